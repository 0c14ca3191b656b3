"""docs/architecture.md's node table against the running sim graph: every topic, service and action each
node publishes, subscribes, serves or calls is named in that node's row, so the table a ROS user reads to
wire a graph is the graph's own (the ROS graph API asked of each live node, not a list kept by hand).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from rclpy.action import get_action_client_names_and_types_by_node, get_action_server_names_and_types_by_node
from replayed_planner_graph import fetch_graph, start_watchers
from repo_paths import REPO_ROOT
from ros_harness import RosGraph

from llm_planner_ros.bringup.graphs import SIM_GRAPH

# Started beside the sim graph: the nodes that watch it.
COMPANIONS = ("operator_console", "plan_recorder")

pytestmark = pytest.mark.graph

ARCHITECTURE = REPO_ROOT / "docs" / "architecture.md"
# What every rclpy node has: its parameter services, the log and parameter-event topics, its type service.
EVERY_NODE = re.compile(
    r"^/(rosout|parameter_events)$"
    r"|/(describe_parameters|get_parameters|get_parameter_types|list_parameters|set_parameters"
    r"|set_parameters_atomically|get_type_description)$"
)


def table_rows() -> dict[str, str]:
    """Each row of the node table by its node name (the first column's first backticked name)."""
    rows: dict[str, str] = {}
    for line in ARCHITECTURE.read_text().splitlines():
        match = re.match(r"\| `([^`]+)`", line)
        if match and line.count("|") >= 5:
            rows[match.group(1)] = line
    return rows


def documented(name: str, row: str) -> bool:
    """Whether ``name`` is in ``row``, a ``<placeholder>`` there standing for any one path segment."""
    for written in re.findall(r"`(/[^`]+)`", row):
        pattern = re.sub(r"<[^>]+>", "[^/]+", re.escape(written).replace(r"\<", "<").replace(r"\>", ">"))
        if re.fullmatch(pattern, name):
            return True
    return False


def interfaces(graph: RosGraph, node: str) -> set[str]:
    """The names ``node`` publishes, subscribes, serves or calls (actions by their action name)."""
    ros = graph.node
    found: set[str] = set()
    for query in (
        ros.get_publisher_names_and_types_by_node,
        ros.get_subscriber_names_and_types_by_node,
        ros.get_service_names_and_types_by_node,
        ros.get_client_names_and_types_by_node,
    ):
        found |= {name for name, _ in query(node, "/")}
    for query in (get_action_server_names_and_types_by_node, get_action_client_names_and_types_by_node):
        found |= {name for name, _ in query(ros, node, "/")}
    return {name for name in found if "/_action/" not in name and not EVERY_NODE.search(name)}


def settled(graph: RosGraph, node: str, timeout: float = 30.0) -> set[str]:
    """``interfaces`` once two reads 2 s apart agree (discovery brings a node's endpoints one by one)."""
    deadline = time.monotonic() + timeout
    seen = interfaces(graph, node)
    while time.monotonic() < deadline:
        time.sleep(2.0)
        now = interfaces(graph, node)
        if now == seen and now:
            return now
        seen = now
    return seen


@pytest.mark.timeout(240)
def test_every_interface_of_every_sim_graph_node_is_in_its_row_of_the_node_table(tmp_path: Path) -> None:
    rows = table_rows()
    with fetch_graph(
        tmp_path, llm_service=True, start_more=lambda graph: start_watchers(graph, tmp_path / "audit", tmp_path / "bag")
    ) as graph:
        missing: dict[str, list[str]] = {}
        for name in [*(spec.name for spec in SIM_GRAPH), *COMPANIONS]:
            assert name in rows, f"no row for node {name} in {ARCHITECTURE}"
            names = settled(graph, name)
            assert names, f"{name} shows no interface"
            undocumented = sorted(found for found in names if not documented(found, rows[name]))
            if undocumented:
                missing[name] = undocumented
    assert not missing, f"names the live graph has and docs/architecture.md's node table lacks: {missing}"

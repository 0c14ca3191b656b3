"""docs/architecture.md's node table read against live nodes: each node's row, and the topics, services and
actions a running node has (the ROS graph API), so a test can check that a graph's every name is documented.
"""

from __future__ import annotations

import re
import time

from rclpy.action import get_action_client_names_and_types_by_node, get_action_server_names_and_types_by_node
from repo_paths import REPO_ROOT
from ros_harness import RosGraph

ARCHITECTURE = REPO_ROOT / "docs" / "architecture.md"
# What every rclpy node has: its parameter services, the log and parameter-event topics, its type service.
EVERY_NODE = re.compile(
    r"^/(rosout|parameter_events)$"
    r"|/(describe_parameters|get_parameters|get_parameter_types|list_parameters|set_parameters"
    r"|set_parameters_atomically|get_type_description)$"
)


def table_rows() -> dict[str, str]:
    """Each row of the node table by each node name its first column names (backticked)."""
    rows: dict[str, str] = {}
    for line in ARCHITECTURE.read_text().splitlines():
        cells = line.split("|")
        if line.startswith("| `") and len(cells) >= 6:
            rows.update((name, line) for name in re.findall(r"`([^`]+)`", cells[1]))
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


def undocumented(graph: RosGraph, names: list[str]) -> dict[str, list[str]]:
    """For each node of ``names`` (running in ``graph``), the names it has that its table row lacks; an
    AssertionError for a node without a row or without any interface."""
    rows = table_rows()
    missing: dict[str, list[str]] = {}
    for name in names:
        assert name in rows, f"no row for node {name} in {ARCHITECTURE}"
        found = settled(graph, name)
        assert found, f"{name} shows no interface"
        lacking = sorted(each for each in found if not documented(each, rows[name]))
        if lacking:
            missing[name] = lacking
    return missing

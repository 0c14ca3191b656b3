"""docs/architecture.md's node table against the running sim graph: every topic, service and action each
node publishes, subscribes, serves or calls is named in that node's row, so the table a ROS user reads to
wire a graph is the graph's own (the ROS graph API asked of each live node, not a list kept by hand). The
physics simulator's and perception's rows are checked on the perceived physics graph
(test/physics_sim/test_physics_perception_demo.py), which runs them anyway.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from node_table import ARCHITECTURE, undocumented
from replayed_planner_graph import fetch_graph, start_watchers

from llm_planner_ros.bringup.graphs import SIM_GRAPH

# Started beside the sim graph: the nodes that watch it.
COMPANIONS = ("operator_console", "plan_recorder")

pytestmark = pytest.mark.graph


@pytest.mark.timeout(240)
def test_every_interface_of_every_sim_graph_node_is_in_its_row_of_the_node_table(tmp_path: Path) -> None:
    with fetch_graph(
        tmp_path, llm_service=True, start_more=lambda graph: start_watchers(graph, tmp_path / "audit", tmp_path / "bag")
    ) as graph:
        missing = undocumented(graph, [*(spec.name for spec in SIM_GRAPH), *COMPANIONS])
    assert not missing, f"names the live graph has and {ARCHITECTURE} lacks: {missing}"

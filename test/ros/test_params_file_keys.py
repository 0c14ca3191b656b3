"""How a ROS parameter file reaches nodes (llm_planner_ros.ros.parameter_files): the project reads every
node-key form as rclpy does, and a node started alone (the console script with ``--ros-args
--params-file``, as ``ros2 run`` starts it) refuses a key it does not declare, instead of ignoring it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import rclpy
import yaml
from rclpy.context import Context
from ros_harness import RosGraph, wait_until

from llm_planner_ros.ros.parameter_files import file_entries

# A node at the root, one in a namespace, one two namespaces down, and another node in the namespace.
NODES = ["/planner", "/robot1/planner", "/fleet/robot1/planner", "/robot1/llm_service"]
PARAMETERS = {"probe": 1, "nest": {"x": 2}}
KEYS: list[dict[str, Any]] = [
    {"planner": {"ros__parameters": PARAMETERS}},
    {"/planner": {"ros__parameters": PARAMETERS}},
    {"robot1/planner": {"ros__parameters": PARAMETERS}},
    {"/robot1/planner": {"ros__parameters": PARAMETERS}},
    {"robot1": {"planner": {"ros__parameters": PARAMETERS}}},
    {"/robot1": {"planner": {"ros__parameters": PARAMETERS}}},
    {"/**": {"ros__parameters": PARAMETERS}},
    {"/*": {"ros__parameters": PARAMETERS}},
    {"/**/planner": {"ros__parameters": PARAMETERS}},
    {"/*/planner": {"ros__parameters": PARAMETERS}},
    {"/robot1/*": {"ros__parameters": PARAMETERS}},
    {"/robot1/**": {"ros__parameters": PARAMETERS}},
    {"/**/robot1/planner": {"ros__parameters": PARAMETERS}},
]


def rclpy_gives(path: Path, fully_qualified_name: str) -> set[str]:
    """The parameters rclpy gives the node ``fully_qualified_name`` from the file ``path``."""
    namespace, name = fully_qualified_name.rsplit("/", 1)
    context = Context()
    rclpy.init(args=["probe", "--ros-args", "--params-file", str(path)], context=context)
    try:
        node = rclpy.create_node(
            name, namespace=namespace or "/", context=context, automatically_declare_parameters_from_overrides=True
        )
        given = {name for name in ("probe", "nest.x") if node.has_parameter(name)}
        node.destroy_node()
        return given
    finally:
        rclpy.shutdown(context=context)


@pytest.mark.parametrize("document", KEYS, ids=lambda document: str(document)[:30])
def test_a_key_reaches_exactly_the_nodes_rclpy_gives_it_to(tmp_path: Path, document: dict[str, Any]) -> None:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(document))
    (entry,), malformed = file_entries(document)
    assert not malformed and set(entry.parameters) == {"probe", "nest.x"}
    for node in NODES:
        assert rclpy_gives(path, node) == (set(entry.parameters) if entry.matches(node) else set()), node


@pytest.mark.graph
@pytest.mark.timeout(60)
def test_a_node_started_alone_refuses_a_params_file_key_it_does_not_declare(
    ros_graph: RosGraph, tmp_path: Path
) -> None:
    # time_scale is sim_world's: a /** key some node declares is fine; confirm_each_step is no node's.
    path = tmp_path / "mine.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "/planner": {"ros__parameters": {"require_confirmaton": True}},
                "/**": {"ros__parameters": {"time_scale": 0.1, "confirm_each_step": True}},
            }
        )
    )
    proc = ros_graph.start_node("planner", param_files=[path], name="planner")
    wait_until(lambda: proc.returncode is not None, 30.0, "planner exiting")
    log = proc.log()
    assert proc.returncode == 1, log
    assert "Traceback" not in log, log
    fatal = [line for line in log.splitlines() if "[FATAL]" in line]
    assert len(fatal) == 1 and "2 parameter file key(s) that this node does not declare" in fatal[0], log
    problems = [line.strip() for line in log.splitlines() if line.startswith(f"  {path}: ")]
    assert [problem.split(": not a parameter of /planner")[0] for problem in problems] == [
        f"{path}: /**.confirm_each_step",
        f"{path}: /planner.require_confirmaton",
    ], log
    assert "(did you mean 'require_confirmation'?); its parameters: affordance_timeout_s," in problems[1], log

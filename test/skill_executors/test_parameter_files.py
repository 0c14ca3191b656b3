"""The ROS parameter files in config/ name exactly the parameters their nodes declare, typed alike.

ROS ignores a parameter-file key that a node never declares, so a typo there would go unnoticed; and
each value is written as its default is typed (1.0, not 1, although a node takes 1 for a float).
"""

from __future__ import annotations

import pytest
import yaml

from affordance_servers import affordance_server_node
from llm_planner_ros.kitchen_sim import sim_world_node
from llm_planner_ros.paths import config_file
from llm_planner_ros.ros.parameters import Parameter
from skill_executors import executor_node

AFFORDANCE = {**affordance_server_node.PARAMETERS, **affordance_server_node.CALIBRATION_PARAMETERS}
CASES = [
    ("sim_world.yaml", "sim_world", sim_world_node.PARAMETERS),
    ("affordance_server.yaml", "affordance_server", AFFORDANCE),
    ("manipulator_executor.yaml", "manipulator_executor", executor_node.PARAMETERS),
    ("mobile_base_executor.yaml", "mobile_base_executor", executor_node.PARAMETERS),
]


@pytest.mark.parametrize(("file", "node", "declared"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_parameter_file_matches_declared_parameters(file: str, node: str, declared: dict[str, Parameter]) -> None:
    values = yaml.safe_load(config_file(file).read_text())[node]["ros__parameters"]
    assert set(values) == set(declared), (
        f"undeclared: {set(values) - set(declared)}, missing: {set(declared) - set(values)}"
    )
    for name, spec in declared.items():
        assert type(values[name]) is type(spec.default), (
            f"{file}: {name} is {values[name]!r}, declared like {spec.default!r}"
        )

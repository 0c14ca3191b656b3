"""The executors' ``action`` backend (skill_executors.action_backend): a skill_executor node started as
``presser_executor`` runs the elevator lobby's "press the elevator button" as a goal of the
GripperCommand action its skills file binds it to (test/data/elevator_lobby), against a real server of
the user's (test/support/user_devices.py); a result that fails the binding's rule fails the skill, and a
binding that does not fit its action stops the node at start with the field to fix."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from action_msgs.msg import GoalStatus
from graph_helpers import execute
from repo_paths import TEST_DATA
from ros_harness import RosGraph, wait_until

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.domain import load_domain_files
from llm_planner_ros.processes import NodeProcess, param_literal

pytestmark = [pytest.mark.graph, pytest.mark.timeout(120)]

LOBBY = TEST_DATA / "elevator_lobby"
DEVICES = Path(__file__).parents[1] / "support" / "user_devices.py"
PRESS = load_domain_files(LOBBY / "world.yaml", LOBBY / "skills.yaml").library.find("press the elevator button").skill


def start_devices(graph: RosGraph, record: Path, **params: object) -> None:
    argv = [sys.executable, str(DEVICES), "--ros-args", "-p", f"record_file:={record}"]
    for key, value in params.items():
        argv += ["-p", f"{key}:={param_literal(value)}"]
    graph.start_process(argv, label="user_devices")
    graph.ping("user_devices")


def start_presser(graph: RosGraph, skills_file: Path = LOBBY / "skills.yaml", name: str = "presser") -> NodeProcess:
    params = {"backend": "action", "world_file": str(LOBBY / "world.yaml"), "skills_file": str(skills_file)}
    return graph.start_node("skill_executor", params=params, name=f"{name}_executor")


def test_a_skill_runs_as_a_goal_of_the_action_its_executor_is_bound_to(ros_graph: RosGraph, tmp_path: Path) -> None:
    record = tmp_path / "devices.jsonl"
    start_devices(ros_graph, record)
    start_presser(ros_graph)
    presser = ros_graph.action_client(ExecuteSkill, "/executors/presser/execute_skill")
    feedback: list[tuple[str, float]] = []
    response = execute(presser, PRESS, feedback)
    assert response is not None and response.status == GoalStatus.STATUS_SUCCEEDED, ros_graph.logs()
    assert response.result.message == "'press the elevator button' done by /presser/gripper_cmd"
    goals = [json.loads(line) for line in record.read_text().splitlines()]
    assert goals == [{"server": "presser", "position": 0.0, "max_effort": 5.0}]
    assert feedback and feedback[0] == ("GripperCommand goal on /presser/gripper_cmd", 0.0), feedback


def test_a_result_that_fails_the_success_rule_fails_the_skill(ros_graph: RosGraph, tmp_path: Path) -> None:
    start_devices(ros_graph, tmp_path / "devices.jsonl", reached_goal=False)
    start_presser(ros_graph)
    presser = ros_graph.action_client(ExecuteSkill, "/executors/presser/execute_skill")
    response = execute(presser, PRESS)
    assert response is not None and response.status == GoalStatus.STATUS_ABORTED
    assert response.result.message == "'press the elevator button' failed: the result's reached_goal is False"


def test_a_binding_that_does_not_fit_its_action_stops_the_node_with_the_field(
    ros_graph: RosGraph, tmp_path: Path
) -> None:
    skills = yaml.safe_load((LOBBY / "skills.yaml").read_text())
    skills["executors"]["presser"]["action"]["goal"] = {"command": {"position": 0.0, "effort": 5.0}}
    wrong = tmp_path / "skills.yaml"
    wrong.write_text(yaml.safe_dump(skills))
    misfit = start_presser(ros_graph, wrong)
    unbound = start_presser(ros_graph, name="manipulator")
    wait_until(lambda: misfit.returncode is not None and unbound.returncode is not None, 60, "both nodes to stop")
    assert misfit.returncode != 0 and unbound.returncode != 0
    assert (
        f"backend action ({wrong}, executors.presser): skill 'press the elevator button': goal.command.effort: "
        "GripperCommand has no field 'effort'; its fields are position, max_effort" in misfit.log()
    ), misfit.log()
    assert "binds executor 'manipulator' to no action; add executors.manipulator.action" in unbound.log()

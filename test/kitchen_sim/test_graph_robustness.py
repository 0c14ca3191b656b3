"""Graph tests: no hang when the simulator is missing or dies, and clean exits on SIGINT."""

from __future__ import annotations

import time

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import WorldWatcher, execute
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.action import EvaluateAffordance, ExecuteSkill
from llm_planner_ros.domain import Domain
from llm_planner_ros.ros.messages import skill_to_msg

pytestmark = pytest.mark.graph


@pytest.mark.timeout(60)
def test_executor_without_simulator_fails_the_skill_with_the_fix(ros_graph: RosGraph, kitchen: Domain) -> None:
    ros_graph.start_node("mobile_base_executor", params={"server_timeout_s": 1.0})
    base = ros_graph.action_client(ExecuteSkill, "/executors/mobile_base/execute_skill")
    response = execute(base, kitchen.world().skill("go to the table"))
    assert response.status == GoalStatus.STATUS_ABORTED
    assert (
        "no /sim/apply_skill action server" in response.result.message and "start sim_world" in response.result.message
    )


@pytest.mark.timeout(90)
def test_simulator_dying_mid_skill_ends_the_goal(ros_graph: RosGraph, kitchen: Domain) -> None:
    sim = ros_graph.start_node("sim_world", params={"time_scale": 1.0})
    ros_graph.start_node("mobile_base_executor", params={"silence_timeout_s": 2.0})
    base = ros_graph.action_client(ExecuteSkill, "/executors/mobile_base/execute_skill")
    feedback: list[str] = []
    handle = wait_future(
        base.send_goal_async(
            ExecuteSkill.Goal(skill=skill_to_msg(kitchen.world().skill("bring it to you"))),
            feedback_callback=lambda m: feedback.append(m.feedback.phase),
        )
    )
    wait_until(lambda: "navigate" in feedback, what="navigation under way")
    assert sim.stop() == 0
    started = time.monotonic()
    response = wait_future(handle.get_result_async(), timeout=15.0)
    assert response.status == GoalStatus.STATUS_ABORTED and not response.result.success
    assert "stopped" in response.result.message or "no feedback" in response.result.message, response.result.message
    assert time.monotonic() - started < 10.0


@pytest.mark.timeout(90)
def test_nodes_exit_cleanly_on_sigint(ros_graph: RosGraph) -> None:
    procs = [
        ros_graph.start_node("sim_world", params={"time_scale": 0.0}),
        ros_graph.start_node("affordance_server"),
        ros_graph.start_node("manipulator_executor"),
        ros_graph.start_node("mobile_base_executor"),
    ]
    WorldWatcher(ros_graph).wait_robot("sim up", lambda r: True)
    ros_graph.action_client(EvaluateAffordance, "/affordance/goto")
    ros_graph.action_client(ExecuteSkill, "/executors/manipulator/execute_skill")
    ros_graph.action_client(ExecuteSkill, "/executors/mobile_base/execute_skill")
    for proc in procs:
        assert proc.stop() == 0, proc.log()
        assert "Traceback" not in proc.log(), proc.log()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("entry", "params", "reason"),
    [
        (
            "manipulator_executor",
            {"backend": "moveit", "map_file": "/nonexistent/map.yaml"},
            "cannot load the place map: place map /nonexistent/map.yaml not found: give the executor's map_file",
        ),
        ("sim_world", {"time_scale": -1.0}, "parameter time_scale is -1.0, expected a float of at least 0"),
        ("affordance_server", {"families": ["pick", "fly"]}, "unknown ['fly']"),
    ],
)
def test_bad_parameters_stop_the_node_with_the_fix(ros_graph: RosGraph, entry: str, params: dict, reason: str) -> None:
    proc = ros_graph.start_node(entry, params=params)
    wait_until(lambda: proc.returncode is not None, what=f"{entry} exiting")
    assert proc.returncode == 1
    assert reason in proc.log() and "Traceback" not in proc.log(), proc.log()

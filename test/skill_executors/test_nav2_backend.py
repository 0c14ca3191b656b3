"""The mobile-base executor's nav2 backend through ExecuteSkill, against a real NavigateToPose server
(test/support/robot_doubles.py): goals go to the place map's base poses, Nav2's feedback is the skill's
progress, its error codes end the skill with a clear message, and a cancel reaches Nav2."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import execute
from robot_graph import records, start_doubles, start_executor
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.domain import Domain
from llm_planner_ros.robot_motion.place_map import load_place_map
from llm_planner_ros.ros.messages import skill_to_msg

pytestmark = [pytest.mark.graph, pytest.mark.timeout(120)]

BASE = "mobile_base_executor"
ONLY_COKE = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}


def test_navigation_goes_to_the_base_pose_of_the_place_and_relays_progress(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, ONLY_COKE, goal_s=0.6)
    base = start_executor(ros_graph, BASE)
    places = load_place_map()
    feedback: list[tuple[str, float]] = []
    response = execute(base, kitchen.world().skill("go to the table"), feedback)
    assert response.status == GoalStatus.STATUS_SUCCEEDED and response.result.success, response.result.message
    assert response.result.message == "reached the table"
    goal = records(record, "nav2")[0]
    table = places.place("table").base
    assert goal["frame"] == "map" and goal["position"] == pytest.approx([table.x, table.y])
    assert goal["orientation"] == pytest.approx([table.orientation[2], table.orientation[3]])
    progress = [share for phase, share in feedback if "m to go" in phase]
    assert progress and progress == sorted(progress) and progress[-1] > 0.5, feedback

    # find: where perception reports the object
    response = execute(base, kitchen.world().skill("find a coke"))
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    counter = places.place("far counter").base
    assert records(record, "nav2")[1]["position"] == pytest.approx([counter.x, counter.y])


def test_a_planning_failure_fails_the_skill_with_nav2s_reason(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    start_doubles(ros_graph, tmp_path, ONLY_COKE, nav2_outcomes="plan_fail")
    base = start_executor(ros_graph, BASE)
    response = execute(base, kitchen.world().skill("go to the trash can"))
    assert response.status == GoalStatus.STATUS_ABORTED and not response.result.success
    message = response.result.message
    assert message.startswith("navigation to the trash can failed: Nav2: no path to the goal"), message
    assert "NO_VALID_PATH, error code 208" in message and "GridBased: no valid path found" in message

    # an object perception does not report: no goal is sent at all
    response = execute(base, kitchen.world().skill("find an apple"))
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "perception reports no apple" in response.result.message
    assert len(records(tmp_path / "doubles.jsonl", "nav2")) == 1


def test_an_abort_midway_fails_the_skill_after_relaying_the_recoveries(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    start_doubles(ros_graph, tmp_path, ONLY_COKE, nav2_outcomes="abort", goal_s=1.0)
    base = start_executor(ros_graph, BASE)
    feedback: list[tuple[str, float]] = []
    response = execute(base, kitchen.world().skill("bring it to you"), feedback)
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "the robot stopped making progress" in response.result.message
    assert "FAILED_TO_MAKE_PROGRESS, error code 105" in response.result.message
    assert any("2 recoveries" in phase for phase, _ in feedback), feedback


def test_a_cancel_of_the_skill_cancels_the_navigation(ros_graph: RosGraph, tmp_path: Path, kitchen: Domain) -> None:
    _, record = start_doubles(ros_graph, tmp_path, ONLY_COKE, nav2_outcomes="slow")
    base = start_executor(ros_graph, BASE)
    feedback: list[str] = []
    goal = ExecuteSkill.Goal(skill=skill_to_msg(kitchen.world().skill("go to the close counter")))
    handle = wait_future(base.send_goal_async(goal, feedback_callback=lambda m: feedback.append(m.feedback.phase)))
    assert handle.accepted
    wait_until(lambda: any("m to go" in phase for phase in feedback), what="navigation feedback")
    wait_future(handle.cancel_goal_async(), what="cancel response")
    response = wait_future(handle.get_result_async(), timeout=20.0)
    assert response.status == GoalStatus.STATUS_CANCELED, response.result.message
    assert "canceled" in response.result.message and "close counter" in response.result.message
    assert {"server": "nav2", "canceled": True} in records(record, "nav2")


def test_without_nav2_the_skill_fails_naming_the_server(ros_graph: RosGraph, kitchen: Domain) -> None:
    base = start_executor(ros_graph, BASE, navigate_action="elsewhere/navigate_to_pose", server_timeout_s=1.0)
    response = execute(base, kitchen.world().skill("go to the table"))
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "no /elsewhere/navigate_to_pose action server after 1 s: start Nav2" in response.result.message


def test_nav2_going_away_mid_navigation_fails_the_skill(ros_graph: RosGraph, tmp_path: Path, kitchen: Domain) -> None:
    doubles, _ = start_doubles(ros_graph, tmp_path, ONLY_COKE, nav2_outcomes="slow")
    base = start_executor(ros_graph, BASE, server_lost_s=1.0)
    feedback: list[str] = []
    goal = ExecuteSkill.Goal(skill=skill_to_msg(kitchen.world().skill("go to the table")))
    handle = wait_future(base.send_goal_async(goal, feedback_callback=lambda m: feedback.append(m.feedback.phase)))
    wait_until(lambda: any("m to go" in phase for phase in feedback), what="navigation feedback")
    doubles.stop()
    response = wait_future(handle.get_result_async(), timeout=30.0)
    assert response.status == GoalStatus.STATUS_ABORTED
    message = response.result.message
    assert message.startswith("navigation to the table failed: /navigate_to_pose left the ROS graph"), message
    assert "start Nav2" in message

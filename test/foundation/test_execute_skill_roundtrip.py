"""Cross-process round trip of ExecuteSkill through the harness: feedback, result, cancel, rejection."""

from __future__ import annotations

import sys

import pytest
from action_msgs.msg import GoalStatus
from repo_paths import REPO_ROOT
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_interfaces.msg import Skill

MOCK_SERVER = REPO_ROOT / "test" / "support" / "execute_skill_server.py"
ACTION = "/executors/mock/execute_skill"

pytestmark = pytest.mark.graph


def _start_server(graph: RosGraph, duration: float) -> None:
    graph.start_process(
        [sys.executable, str(MOCK_SERVER), "--action", ACTION, "--families", "pick", "--duration", str(duration)],
        label="mock_executor",
    )


def _send(graph: RosGraph, client, text: str, family: str, feedback: list | None = None):
    goal = ExecuteSkill.Goal(skill=Skill(text=text, family=family, arguments=["coke"], executor="mock"))
    callback = feedback.append if feedback is not None else None
    return wait_future(client.send_goal_async(goal, feedback_callback=callback), what="goal response")


def test_goal_runs_in_another_process_with_feedback_and_result(ros_graph: RosGraph) -> None:
    _start_server(ros_graph, duration=0.6)
    client = ros_graph.action_client(ExecuteSkill, ACTION)
    feedback: list = []
    handle = _send(ros_graph, client, "pick up the coke", "pick", feedback)
    assert handle.accepted
    response = wait_future(handle.get_result_async(), what="result")
    assert response.status == GoalStatus.STATUS_SUCCEEDED
    assert response.result.success and response.result.message == "done: pick up the coke"
    progress = [f.feedback.progress for f in feedback]
    assert len(progress) >= 3 and progress == sorted(progress) and 0.0 <= progress[0] < progress[-1] < 1.0


def test_failed_skill_reports_aborted_with_reason(ros_graph: RosGraph) -> None:
    _start_server(ros_graph, duration=0.1)
    client = ros_graph.action_client(ExecuteSkill, ACTION)
    handle = _send(ros_graph, client, "pick up the coke and fail", "pick")
    response = wait_future(handle.get_result_async(), what="result")
    assert response.status == GoalStatus.STATUS_ABORTED
    assert not response.result.success and "injected failure" in response.result.message


def test_cancel_mid_skill(ros_graph: RosGraph) -> None:
    _start_server(ros_graph, duration=30.0)
    client = ros_graph.action_client(ExecuteSkill, ACTION)
    feedback: list = []
    handle = _send(ros_graph, client, "pick up the coke", "pick", feedback)
    wait_until(lambda: len(feedback) > 0, what="first feedback")
    cancel = wait_future(handle.cancel_goal_async(), what="cancel response")
    assert len(cancel.goals_canceling) == 1
    response = wait_future(handle.get_result_async(), timeout=10, what="result after cancel")
    assert response.status == GoalStatus.STATUS_CANCELED
    assert response.result.message == "canceled"


def test_goal_of_unserved_family_is_rejected(ros_graph: RosGraph) -> None:
    _start_server(ros_graph, duration=0.1)
    client = ros_graph.action_client(ExecuteSkill, ACTION)
    handle = _send(ros_graph, client, "go to the table", "goto")
    assert not handle.accepted

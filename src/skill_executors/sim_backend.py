"""The ``sim`` backend: forwards each skill to sim_world_node's sim/apply_skill action."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from action_msgs.msg import GoalStatus
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from kitchen_domain.skill import Skill
from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.messages import skill_to_msg
from llm_planner_ros.ros.topics import full_name
from skill_executors.backend import ProgressCallback, SkillBackend, SkillOutcome, Status

# How often the blocking wait looks at should_cancel(); bounds the delay between a cancel and its relay.
_POLL_S = 0.02


class SimBackend(SkillBackend):
    """Relays a skill to the simulator and its feedback back; relays cancel the other way.

    ``server_timeout_s`` bounds the wait for the simulator's action server; ``silence_timeout_s`` ends a
    skill as FAILED when neither feedback nor a result arrived for that long (the simulator died), so
    an executor never hangs on a vanished simulator.
    """

    def __init__(
        self,
        node: Node,
        action_name: str,
        callback_group: CallbackGroup,
        server_timeout_s: float = 10.0,
        silence_timeout_s: float = 10.0,
    ) -> None:
        self._client = RaceFreeActionClient(node, ExecuteSkill, action_name, callback_group=callback_group)
        self._action_name = full_name(node, action_name)
        self._server_timeout_s = server_timeout_s
        self._silence_timeout_s = silence_timeout_s

    def execute(self, skill: Skill, report: ProgressCallback, should_cancel: Callable[[], bool]) -> SkillOutcome:
        if not self._client.wait_for_server(timeout_sec=self._server_timeout_s):
            return SkillOutcome(
                Status.FAILED,
                f"no {self._action_name} action server after {self._server_timeout_s:.0f} s: "
                "start sim_world_node (or set the executor's sim_action parameter)",
            )
        last_heard = [time.monotonic()]

        def on_feedback(message: Any) -> None:
            last_heard[0] = time.monotonic()
            report(float(message.feedback.progress), message.feedback.phase)

        sent = self._client.send_goal_async(ExecuteSkill.Goal(skill=skill_to_msg(skill)), feedback_callback=on_feedback)
        if not _done_event(sent).wait(self._server_timeout_s):
            return SkillOutcome(
                Status.FAILED, f"{self._action_name} did not answer the goal within {self._server_timeout_s:.0f} s"
            )
        handle = sent.result()
        if not handle.accepted:
            return SkillOutcome(Status.FAILED, f"{self._action_name} rejected {skill.text!r}")
        result = handle.get_result_async()
        result_arrived = _done_event(result)
        canceling = False
        while not result_arrived.wait(_POLL_S):
            if should_cancel() and not canceling:
                handle.cancel_goal_async()
                canceling = True
            if time.monotonic() - last_heard[0] > self._silence_timeout_s:
                handle.cancel_goal_async()
                return SkillOutcome(
                    Status.FAILED,
                    f"no feedback from {self._action_name} for "
                    f"{self._silence_timeout_s:.0f} s; is sim_world_node alive?",
                )
        response = result.result()
        status = {GoalStatus.STATUS_SUCCEEDED: Status.SUCCEEDED, GoalStatus.STATUS_CANCELED: Status.CANCELED}
        return SkillOutcome(status.get(response.status, Status.FAILED), response.result.message)


def _done_event(future: Any) -> threading.Event:
    """An event set when the rclpy future completes (it completes in the node's executor threads)."""
    event = threading.Event()
    future.add_done_callback(lambda _future: event.set())
    if future.done():
        event.set()
    return event

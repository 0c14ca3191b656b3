"""The ``sim`` backend: forwards each skill to sim_world's sim/apply_skill action."""

from __future__ import annotations

from collections.abc import Callable

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.ros.messages import skill_to_msg
from skill_executors.action_call import ActionCall, CallLimits
from skill_executors.backend import ProgressCallback, SkillBackend, SkillOutcome, Status


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
        # The simulator reports progress continuously, so silence (not a total time) tells it is gone.
        limits = CallLimits(server_timeout_s, timeout_s=float("inf"), silence_timeout_s=silence_timeout_s)
        fix = "start sim_world (or set the executor's sim_action parameter)"
        self._call = ActionCall(node, ExecuteSkill, action_name, callback_group, limits, fix)

    def execute(self, skill: Skill, report: ProgressCallback, should_cancel: Callable[[], bool]) -> SkillOutcome:
        outcome = self._call.run(
            ExecuteSkill.Goal(skill=skill_to_msg(skill)),
            should_cancel,
            lambda feedback: report(float(feedback.progress), feedback.phase),
        )
        if outcome.result is None:
            return SkillOutcome(Status.FAILED, outcome.message or f"{self._call.name} rejected {skill.text!r}")
        return SkillOutcome(outcome.status, outcome.result.message)

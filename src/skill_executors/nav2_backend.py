"""The ``nav2`` backend: navigation skills as Nav2 NavigateToPose goals.

``go to the table`` / ``bring it to you`` / ``find a coke`` go to the base pose of their place in the
place map (llm_planner_ros.robot_motion.navigation). Feedback (``distance_remaining``, ``number_of_recoveries``) is
relayed as the skill's progress and phase; a cancel of the skill cancels the navigation goal (Nav2
stops the base where it is); an aborted goal fails the skill with its error code's meaning
(llm_planner_ros.robot_motion.error_codes.nav2_failure).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nav2_msgs.action import NavigateToPose
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from llm_planner_ros.domain.skill import FIND, Skill
from llm_planner_ros.robot_motion.error_codes import nav2_failure
from llm_planner_ros.robot_motion.navigation import MotionError, navigation_goal
from llm_planner_ros.robot_motion.place_map import PlaceMap
from skill_executors.action_call import ActionCall, CallLimits
from skill_executors.backend import ProgressCallback, SkillBackend, SkillOutcome, Status
from skill_executors.robot_view import RobotView
from skill_executors.ros_poses import pose_stamped


class Nav2Backend(SkillBackend):
    """Drives the base with Nav2's ``navigate_action`` (NavigateToPose) to places of ``places``."""

    def __init__(self, node: Node, places: PlaceMap, view: RobotView, p: dict[str, Any], group: CallbackGroup) -> None:
        limits = CallLimits(p["server_timeout_s"], p["navigation_timeout_s"], server_lost_s=p["server_lost_s"])
        fix = "start Nav2 (bt_navigator) or set the executor's navigate_action parameter"
        self._call = ActionCall(node, NavigateToPose, p["navigate_action"], group, limits, fix)
        self._places = places
        self._view = view
        self._behavior_tree = p["behavior_tree"]
        self._state_timeout_s = p["server_timeout_s"]

    def execute(self, skill: Skill, report: ProgressCallback, should_cancel: Callable[[], bool]) -> SkillOutcome:
        if skill.family == FIND and (missing := self._view.wait(self._state_timeout_s)) is not None:
            return SkillOutcome(Status.FAILED, f"{skill.text!r} not executed: {missing}")
        try:
            place, pose = navigation_goal(skill, self._places, self._view.objects())
        except MotionError as error:
            return SkillOutcome(Status.FAILED, str(error))
        first: list[float] = []

        def on_feedback(feedback: Any) -> None:
            remaining = float(feedback.distance_remaining)
            if not first and remaining > 0.0:
                first.append(remaining)  # Nav2 reports 0 until it has a path
            progress = min(1.0, max(0.0, 1.0 - remaining / first[0])) if first else 0.0
            recoveries = int(feedback.number_of_recoveries)
            note = f", {recoveries} recover{'y' if recoveries == 1 else 'ies'}" if recoveries else ""
            report(progress, f"navigate to the {place}: {remaining:.1f} m to go{note}")

        report(0.0, f"navigate to the {place}")
        goal = NavigateToPose.Goal(pose=pose_stamped(pose), behavior_tree=self._behavior_tree)
        outcome = self._call.run(goal, should_cancel, on_feedback)
        if outcome.result is None:
            return SkillOutcome(Status.FAILED, f"navigation to the {place} failed: {outcome.message}")
        if outcome.status is Status.SUCCEEDED:
            return SkillOutcome(Status.SUCCEEDED, f"reached the {place}")
        if outcome.status is Status.CANCELED:
            return SkillOutcome(Status.CANCELED, f"navigation to the {place} canceled; the base stopped where it was")
        # Results before Jazzy (std_msgs/Empty) carry neither an error code nor a message.
        code = int(getattr(outcome.result, "error_code", 0))
        return SkillOutcome(
            Status.FAILED,
            f"navigation to the {place} failed: {nav2_failure(code, getattr(outcome.result, 'error_msg', ''))}",
        )

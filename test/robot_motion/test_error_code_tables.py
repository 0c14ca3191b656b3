"""llm_planner_ros.robot_motion.error_codes names every code as the installed Nav2 and MoveIt interfaces define it."""

from __future__ import annotations

from typing import Any

from moveit_msgs.msg import MoveItErrorCodes
from nav2_msgs.action import NavigateToPose

from llm_planner_ros.robot_motion.error_codes import MOVEIT_ERRORS, NAV2_NAVIGATE_TO_POSE


def _constants(message: Any) -> dict[str, int]:
    return {name: getattr(message, name) for name in dir(message) if name.isupper() and name != "SLOT_TYPES"}


def test_moveit_error_codes_match_moveit_msgs() -> None:
    assert {name: code for code, (name, _) in MOVEIT_ERRORS.items()} == _constants(MoveItErrorCodes)


def test_navigate_to_pose_error_codes_match_nav2_msgs() -> None:
    assert {name: code for code, (name, _) in NAV2_NAVIGATE_TO_POSE.items()} == _constants(NavigateToPose.Result)

"""What a user of another robot brings, as one ROS node: a button-pressing device that speaks
control_msgs GripperCommand on ``presser/gripper_cmd``, and their own affordance server for the
elevator family, an EvaluateAffordance action on ``elevator_affordance`` (test/data/elevator_lobby
binds both in its skills file).

The device succeeds with ``reached_goal`` = the ``reached_goal`` parameter (default true); the
affordance server answers ``affordance`` (default 0.9) for every skill. Every goal is appended as a
JSON line to ``record_file``. It prints "user devices ready" once both servers exist.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from control_msgs.action import GripperCommand
from rclpy.action import ActionServer
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.action import EvaluateAffordance
from llm_planner_ros.ros.node_startup import run_node


class UserDevices(Node):
    """The two servers; they know nothing of the project but its interface package."""

    def __init__(self) -> None:
        super().__init__("user_devices")
        self.declare_parameter("record_file", "")
        self.declare_parameter("reached_goal", True)
        self.declare_parameter("affordance", 0.9)
        group = ReentrantCallbackGroup()
        self._servers = [
            ActionServer(self, GripperCommand, "presser/gripper_cmd", self._press, callback_group=group),
            ActionServer(self, EvaluateAffordance, "elevator_affordance", self._afford, callback_group=group),
        ]
        print("user devices ready", flush=True)

    def _record(self, entry: dict[str, Any]) -> None:
        path = self.get_parameter("record_file").value
        if path:
            with open(path, "a") as out:
                out.write(json.dumps(entry) + "\n")

    def _press(self, handle: Any) -> GripperCommand.Result:
        command = handle.request.command
        self._record({"server": "presser", "position": command.position, "max_effort": command.max_effort})
        reached = bool(self.get_parameter("reached_goal").value)
        handle.succeed()
        return GripperCommand.Result(position=command.position, reached_goal=reached)

    def _afford(self, handle: Any) -> EvaluateAffordance.Result:
        texts = [skill.text for skill in handle.request.skills]
        self._record({"server": "elevator_affordance", "skills": texts})
        value = float(self.get_parameter("affordance").value)
        handle.succeed()
        return EvaluateAffordance.Result(affordances=[value] * len(texts), success=True)


if __name__ == "__main__":
    sys.exit(run_node(UserDevices))

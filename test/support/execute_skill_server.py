"""A stand-in ExecuteSkill action server for harness tests, run as its own process.

Accepts skills whose family is in ``--families``, rejects the rest; runs each accepted skill for
``--duration`` seconds publishing progress feedback at 20 Hz; honours cancel; fails skills whose
text contains "fail". It exists to test the interfaces and the harness across processes, not the
project's executors (those live in src/skill_executors).
"""

from __future__ import annotations

import argparse
import time

import rclpy
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node

from llm_planner_interfaces.action import ExecuteSkill


class MockExecutor(Node):
    """The ExecuteSkill server of this module's docstring."""

    def __init__(self, action_name: str, families: set[str], duration: float) -> None:
        super().__init__("mock_execute_skill_server")
        self._families = families
        self._duration = duration
        self._server = ActionServer(
            self,
            ExecuteSkill,
            action_name,
            execute_callback=self._execute,
            goal_callback=self._on_goal,
            cancel_callback=lambda _goal: CancelResponse.ACCEPT,
            callback_group=ReentrantCallbackGroup(),
        )

    def _on_goal(self, goal: ExecuteSkill.Goal) -> GoalResponse:
        if goal.skill.family not in self._families:
            self.get_logger().warning(f"rejecting {goal.skill.text!r}: family {goal.skill.family!r} not served")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _execute(self, handle) -> ExecuteSkill.Result:
        start = time.monotonic()
        feedback = ExecuteSkill.Feedback(phase="running")
        while (elapsed := time.monotonic() - start) < self._duration:
            if handle.is_cancel_requested:
                handle.canceled()
                return ExecuteSkill.Result(success=False, message="canceled")
            feedback.progress = float(elapsed / self._duration)
            handle.publish_feedback(feedback)
            time.sleep(0.05)
        if "fail" in handle.request.skill.text:
            handle.abort()
            return ExecuteSkill.Result(success=False, message="injected failure")
        handle.succeed()
        return ExecuteSkill.Result(success=True, message=f"done: {handle.request.skill.text}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--action", default="/executors/mock/execute_skill")
    parser.add_argument("--families", default="pick,place")
    parser.add_argument("--duration", type=float, default=0.5)
    args, ros_args = parser.parse_known_args()
    rclpy.init(args=ros_args)
    node = MockExecutor(args.action, set(args.families.split(",")), args.duration)
    executor = MultiThreadedExecutor()
    executor.add_node(node)
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    main()

"""One goal to a robot-side action server (Nav2, MoveIt, a gripper, the simulator), start to end.

``ActionCall.run`` waits for the server, sends the goal, relays feedback, relays a cancel when
``should_cancel`` turns true, and gives up on a server that left the graph (``Liveness``) or that
went silent; it never raises for server-side problems. The waiting itself is ``ros.futures.wait_for``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from action_msgs.msg import GoalStatus
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.futures import Liveness, WaitTimeout, wait_for
from llm_planner_ros.ros.topics import full_name
from skill_executors.backend import Status


@dataclass(frozen=True)
class ActionOutcome:
    """How a goal ended. SUCCEEDED/CANCELED/FAILED (aborted) come with the server's ``result``; FAILED
    without one (no server, rejected, lost, silent, timed out) has ``message`` saying which."""

    status: Status
    result: Any = None
    message: str = ""


@dataclass(frozen=True)
class CallLimits:
    """``server_timeout_s``: wait for the server and for its answer to the goal; ``timeout_s``: the whole
    goal; ``silence_timeout_s``: fail when neither feedback nor result came for this long (0: off, for
    servers that send feedback rarely); ``server_lost_s``: grace after the server left the graph."""

    server_timeout_s: float = 10.0
    timeout_s: float = 300.0
    silence_timeout_s: float = 0.0
    server_lost_s: float = 3.0


_STATUS = {GoalStatus.STATUS_SUCCEEDED: Status.SUCCEEDED, GoalStatus.STATUS_CANCELED: Status.CANCELED}


class ActionCall:
    """A RaceFreeActionClient for ``action_name`` with the waiting rules above; ``fix`` tells the user
    what to start when the server is missing (it ends every such message)."""

    def __init__(
        self, node: Node, action_type: Any, action_name: str, group: CallbackGroup, limits: CallLimits, fix: str
    ) -> None:
        self._client = RaceFreeActionClient(node, action_type, action_name, callback_group=group)
        self.name = full_name(node, action_name)
        self._limits = limits
        self._fix = fix
        self._liveness = Liveness(self.name, self._client.server_is_ready, limits.server_lost_s, fix)

    def run(
        self, goal: Any, should_cancel: Callable[[], bool], on_feedback: Callable[[Any], None] | None = None
    ) -> ActionOutcome:
        limits = self._limits
        if not self._client.wait_for_server(timeout_sec=limits.server_timeout_s):
            return ActionOutcome(
                Status.FAILED,
                message=f"no {self.name} action server after {limits.server_timeout_s:.0f} s: {self._fix}",
            )
        last_heard = [time.monotonic()]

        def feedback(message: Any) -> None:
            last_heard[0] = time.monotonic()
            if on_feedback is not None:
                on_feedback(message.feedback)

        handle = None
        try:
            sent = self._client.send_goal_async(goal, feedback_callback=feedback)
            handle = wait_for(sent, limits.server_timeout_s, f"{self.name} (goal)", liveness=self._liveness)
            if not handle.accepted:
                return ActionOutcome(Status.FAILED, message=f"{self.name} rejected the goal")
            result = handle.get_result_async()
            silent = [False]

            def interrupted() -> bool:
                silent[0] = bool(limits.silence_timeout_s) and (
                    time.monotonic() - last_heard[0] > limits.silence_timeout_s
                )
                return silent[0] or should_cancel()

            response = wait_for(result, limits.timeout_s, f"{self.name} (result)", interrupted, self._liveness)
            if response is None:
                handle.cancel_goal_async()
                if silent[0]:
                    return ActionOutcome(
                        Status.FAILED,
                        message=f"no feedback from {self.name} for {limits.silence_timeout_s:.0f} s: {self._fix}",
                    )
                # The server decides how the goal ends: it may still finish before the cancel lands.
                response = wait_for(result, limits.server_timeout_s, f"{self.name} (cancel)", liveness=self._liveness)
        except WaitTimeout as error:  # ServerLost included
            if handle is not None and handle.accepted:
                handle.cancel_goal_async()
            return ActionOutcome(Status.FAILED, message=str(error))
        return ActionOutcome(_STATUS.get(response.status, Status.FAILED), response.result)

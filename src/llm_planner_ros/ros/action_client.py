"""An rclpy ActionClient that never drops the answer to its own request.

rclpy 7.1 (Jazzy) registers a request's sequence number only after handing the request to the
middleware. Under a MultiThreadedExecutor a fast server's answer can be taken by another thread in
that gap; the client then logs "Ignoring unexpected goal response. There may be more than one action
server" and the request's future never completes. The simulator at ``time_scale: 0`` answers fast
enough to hit this (a skill then fails with "did not answer the goal within 10 s").
"""

from __future__ import annotations

import threading
from typing import Any

from rclpy.action import ActionClient

from llm_planner_ros.ros.qos import action_service_qos


class RaceFreeActionClient(ActionClient):
    """ActionClient whose responses are taken only once the request that asked for them is registered.

    Sending a request and registering its sequence number happen under one lock, and the executor
    takes responses under the same lock, so a response can never be looked up before its request is
    known. Everything else is rclpy's ActionClient unchanged.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # rclpy keeps 10 requests per service: a burst of goals from one client would lose the rest.
        for service in ("goal", "result", "cancel"):
            kwargs.setdefault(f"{service}_service_qos_profile", action_service_qos())
        super().__init__(*args, **kwargs)
        # Re-entrant: rclpy may call one of the wrapped methods from another (e.g. add_future).
        self._registration_lock = threading.RLock()

    def take_data(self) -> Any:
        with self._registration_lock:
            return super().take_data()

    def send_goal_async(self, *args: Any, **kwargs: Any) -> Any:
        with self._registration_lock:
            return super().send_goal_async(*args, **kwargs)

    def _cancel_goal_async(self, *args: Any, **kwargs: Any) -> Any:
        with self._registration_lock:
            return super()._cancel_goal_async(*args, **kwargs)

    def _get_result_async(self, *args: Any, **kwargs: Any) -> Any:
        with self._registration_lock:
            return super()._get_result_async(*args, **kwargs)

"""Waiting for rclpy futures from inside a callback, without spinning and without fixed sleeps.

A node's action callbacks run on a MultiThreadedExecutor; the responses they wait for are delivered
by other executor threads (clients live in a ReentrantCallbackGroup), so a callback may block on an
Event that the future's done-callback sets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rclpy.task import Future


class WaitTimeout(TimeoutError):
    """A ROS call did not answer in time; the message names the call and the limit."""


def wait_for(future: Future, timeout_s: float, what: str, interrupted: Callable[[], bool] | None = None) -> Any:
    """The future's result, waiting at most ``timeout_s``.

    With ``interrupted``, wakes every 50 ms to ask whether to give up early (cancel, e-stop) and
    then returns None without the result. Raises WaitTimeout naming ``what`` on timeout.
    """
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if interrupted is None:
        if not done.wait(timeout_s):
            raise WaitTimeout(f"{what} did not answer within {timeout_s:.1f} s")
        return future.result()
    waited = 0.0
    while not done.wait(0.05):
        waited += 0.05
        if interrupted():
            return None
        if waited >= timeout_s:
            raise WaitTimeout(f"{what} did not answer within {timeout_s:.1f} s")
    return future.result()

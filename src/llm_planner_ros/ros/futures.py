"""Waiting for rclpy futures from inside a callback, without spinning and without fixed sleeps.

A node's action callbacks run on a MultiThreadedExecutor; the responses they wait for are delivered
by other executor threads (clients live in a ReentrantCallbackGroup), so a callback may block on an
Event that the future's done-callback sets.

A request whose server died is never answered, and a restarted server does not know it: a wait given
a ``Liveness`` gives up a grace period after the server left the graph instead of waiting out the
call's full timeout.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rclpy.task import Future

# How often a wait with ``interrupted`` or ``liveness`` looks at them; bounds how late it reacts.
_POLL_S = 0.05


class WaitTimeout(TimeoutError):
    """A ROS call did not answer in time; the message names the call and the limit."""


class ServerLost(WaitTimeout):
    """A ROS call was given up because its server left the graph; the message names the server and the fix."""


@dataclass(frozen=True)
class Liveness:
    """How a wait tells that the server it waits on is gone.

    ``ready`` is rclpy's ``ActionClient.server_is_ready`` or ``Client.service_is_ready``: false once
    the server's endpoints left the graph, which is when its process exits (a process killed hard
    leaves after the DDS lease, about 20 s). ``grace_s`` is how long an answer may still arrive after
    that; ``fix`` says what to do, for the error message.
    """

    server: str
    ready: Callable[[], bool]
    grace_s: float
    fix: str


def wait_for(
    future: Future,
    timeout_s: float,
    what: str,
    interrupted: Callable[[], bool] | None = None,
    liveness: Liveness | None = None,
) -> Any:
    """The future's result, waiting at most ``timeout_s``.

    With ``interrupted``, asks every 50 ms whether to give up early (cancel, e-stop) and then returns
    None without the result. With ``liveness``, raises ServerLost once the server has been gone for
    its grace period, even if a server of that name came back meanwhile (it is a new one, which
    never got the request). Raises WaitTimeout naming ``what`` on timeout.
    """
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if interrupted is None and liveness is None:
        if not done.wait(timeout_s):
            raise WaitTimeout(f"{what} did not answer within {timeout_s:.1f} s")
        return future.result()
    deadline = time.monotonic() + timeout_s
    lost_at: float | None = None
    while not done.wait(_POLL_S):
        now = time.monotonic()
        if interrupted is not None and interrupted():
            return None
        if liveness is not None:
            if lost_at is None and not liveness.ready():
                lost_at = now
            if lost_at is not None and now - lost_at >= liveness.grace_s:
                raise ServerLost(
                    f"{liveness.server} left the ROS graph while {what} was pending, and no answer came "
                    f"within {liveness.grace_s:.1f} s: {liveness.fix}"
                )
        if now >= deadline:
            raise WaitTimeout(f"{what} did not answer within {timeout_s:.1f} s")
    return future.result()

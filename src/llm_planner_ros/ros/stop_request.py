"""A stop asked for by a signal (Ctrl-C, a kill, a closed terminal), which the main thread waits on.

``threading.Event`` cannot carry it: Python runs a signal handler in the main thread, between two
bytecodes of whatever that thread does, and ``Event.set()`` takes the lock that ``Event.wait()`` holds
while it wakes up and returns. A signal handled in that window waits on its own thread forever, and the
handler of every later signal joins it: the process then ignores Ctrl-C and SIGTERM until SIGKILL. CI
saw exactly that: an affordance_server killed by ``ros2 launch`` 15 s after Ctrl-C. Here the handler
only assigns a flag, which takes no lock, and ``wait()`` sleeps in short steps.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterable
from types import FrameType

# How long a request can go unnoticed by wait(): short against any shutdown, long against a busy loop.
_POLL_S = 0.05


class StopRequest:
    """Set by the signals given to ``install`` (or by ``request()``); ``wait`` returns True once set."""

    def __init__(self) -> None:
        self._requested = False

    def install(self, signals: Iterable[signal.Signals]) -> None:
        """Make each of ``signals`` request the stop; call from the main thread (Python's rule)."""
        for signum in signals:
            signal.signal(signum, self._on_signal)

    def _on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        self.request()

    def request(self) -> None:
        self._requested = True

    @property
    def requested(self) -> bool:
        return self._requested

    def wait(self, timeout_s: float) -> bool:
        """Sleep until the stop is requested (True) or ``timeout_s`` passed (False)."""
        deadline = time.monotonic() + timeout_s
        while not self._requested:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(remaining, _POLL_S))
        return True

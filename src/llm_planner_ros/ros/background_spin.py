"""Spinning an executor on a background thread that a raising callback does not end.

Tools and tests that call ROS from their own thread (the benchmark graphs, the test harness) spin
an executor beside it. ``Executor.spin`` re-raises a callback's exception in the spinning thread,
which ends it: every later future then waits out its timeout with no sign of why. It happened in CI
when rclpy handled feedback of an action client the caller had just destroyed ("action client pointer
is invalid"). ``BackgroundSpin`` spins one callback at a time and keeps such an error in ``errors``
instead, for the caller's logs.
"""

from __future__ import annotations

import threading

from rclpy.context import Context
from rclpy.executors import Executor

# How long one spin_once waits for work; bounds how late ``stop`` takes effect.
_SPIN_ONCE_S = 0.1


class BackgroundSpin:
    """Spins ``executor`` on a daemon thread from ``start()`` until ``stop()`` or the context's shutdown.

    ``errors`` lists the exceptions callbacks raised (type and message), oldest first; spinning went on
    after each.
    """

    def __init__(self, executor: Executor, context: Context) -> None:
        self._executor = executor
        self._context = context
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self.errors: list[str] = []

    def start(self) -> BackgroundSpin:
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop spinning (the executor itself is the caller's to shut down)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=timeout_s)

    def _spin(self) -> None:
        while not self._stop.is_set() and self._context.ok():
            try:
                self._executor.spin_once(timeout_sec=_SPIN_ONCE_S)
            except Exception as error:
                if not self._context.ok():
                    return
                self.errors.append(f"{type(error).__name__}: {error}")

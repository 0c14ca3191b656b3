"""How the command-line client stops: Ctrl-C (SIGINT), a kill (SIGTERM) and a closed terminal (SIGHUP) all
raise KeyboardInterrupt in the main thread, so a graph the command started is stopped and a goal in
flight canceled instead of Python dying on the spot (`up` sets handlers of its own)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

INTERRUPTING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def interrupt_on_every_stop_signal() -> None:
    """SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt. SIGINT too: a background job of a non-interactive
    shell (`llm-planner run ... &` in a script, a CI step) starts with it ignored, and an interrupt is how a
    goal in flight gets canceled."""
    for signum in INTERRUPTING_SIGNALS:
        signal.signal(signum, interrupt)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold back an interrupt arriving inside the block and raise it as KeyboardInterrupt once the block
    is done: a call that must not be cut in half (a goal sent but its future not yet returned, so nothing
    could cancel it) finishes first. Outside the main thread, where handlers cannot be set, a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {
        signum: signal.signal(signum, lambda got, _frame: arrived.append(got)) for signum in INTERRUPTING_SIGNALS
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if arrived:
        raise KeyboardInterrupt

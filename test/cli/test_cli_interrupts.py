"""The command-line client's interrupts: every stop signal raises KeyboardInterrupt, and one arriving while a
goal is being sent is held back until the send returned (test_goal_faults.py has the whole CLI)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from llm_planner_ros.cli.interrupts import (
    INTERRUPTING_SIGNALS,
    interrupt,
    interrupt_on_every_stop_signal,
    interrupts_deferred,
)


@pytest.fixture
def handlers() -> Iterator[None]:
    saved = {signum: signal.getsignal(signum) for signum in INTERRUPTING_SIGNALS}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


@pytest.mark.parametrize("signum", INTERRUPTING_SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_each_stop_signal_interrupts_the_command(handlers: None, signum: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a script's background job starts
    interrupt_on_every_stop_signal()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signum)
        signal.sigtimedwait([], 0.5)  # let the handler run


@pytest.mark.parametrize("signum", INTERRUPTING_SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupt_during_a_send_is_raised_once_the_send_returned(handlers: None, signum: int) -> None:
    interrupt_on_every_stop_signal()
    finished = False
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            os.kill(os.getpid(), signum)
            signal.sigtimedwait([], 0.5)
            finished = True
    assert finished
    assert all(signal.getsignal(s) is interrupt for s in INTERRUPTING_SIGNALS), "handlers put back"


def test_a_block_without_an_interrupt_ends_normally(handlers: None) -> None:
    interrupt_on_every_stop_signal()
    with interrupts_deferred():
        value = 1
    assert value == 1

"""Stopping a graph's processes (llm_planner_ros.processes): together, escalating from SIGINT to SIGTERM
to SIGKILL for the processes that do not exit."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from llm_planner_ros.processes import NodeProcess, stat_fields, stop_all

# A process that says it is up, then ignores the signals named in its arguments and sleeps.
IGNORING = """
import signal, sys, time
for name in sys.argv[1:]:
    signal.signal(getattr(signal, name), signal.SIG_IGN)
print("up", flush=True)
time.sleep(60)
"""


def start(tmp_path: Path, label: str, *ignored: str) -> NodeProcess:
    process = NodeProcess([sys.executable, "-c", IGNORING, *ignored], {}, tmp_path / f"{label}.log").start()
    deadline = time.monotonic() + 20
    while "up" not in process.log():
        assert time.monotonic() < deadline, f"{label} did not start: {process.log()}"
        time.sleep(0.02)
    return process


def test_processes_stop_together_and_each_gets_the_signal_it_needs(tmp_path: Path) -> None:
    polite = start(tmp_path, "polite")
    deaf_to_int = [start(tmp_path, f"deaf{i}", "SIGINT") for i in range(3)]
    deaf_to_both = start(tmp_path, "stubborn", "SIGINT", "SIGTERM")
    never_started = NodeProcess([sys.executable, "-c", "pass"], {}, tmp_path / "never.log")

    began = time.monotonic()
    codes = stop_all([polite, *deaf_to_int, deaf_to_both, never_started], timeout=1.0)
    took = time.monotonic() - began

    assert codes == [-signal.SIGINT, *[-signal.SIGTERM] * 3, -signal.SIGKILL, None]
    # One wait per escalation step for all of them (1 s + 1 s + the kill); one process after the other
    # would wait at least 1 s for each deaf one and 2 s for the stubborn one: 5 s.
    assert took < 3.5, f"stopping took {took:.1f} s"


# A leader like `llm-planner up`: starts a child in a session of its own that ignores SIGINT, says both are
# up, and exits at once on SIGINT without stopping the child.
LEADER = """
import signal, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], "SIGINT"], start_new_session=True)
print("child", child.pid, flush=True)
time.sleep(60)
"""


def process_alive(pid: int) -> bool:
    fields = stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def test_what_a_process_started_stops_with_it_even_when_the_leader_exits_first(tmp_path: Path) -> None:
    leader = NodeProcess([sys.executable, "-c", LEADER, IGNORING], {}, tmp_path / "leader.log").start()
    deadline = time.monotonic() + 20
    while "child" not in leader.log():
        assert time.monotonic() < deadline, f"the leader did not start its child: {leader.log()}"
        time.sleep(0.02)
    child = int(leader.log().split()[1])
    assert process_alive(child)

    stop_all([leader], timeout=1.0)

    # SIGINT ended the leader; the child, in a session of its own and deaf to SIGINT, is never reached
    # by the leader's group: it was stopped as a descendant (SIGTERM).
    assert leader.returncode == -signal.SIGINT
    assert not process_alive(child), "the leader's child outlived stop_all"

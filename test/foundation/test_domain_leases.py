"""Concurrent test runs on one machine never share a ROS domain (``ros_harness.allocate_domain_id``).

Two pytest runs side by side (CI beside a developer) used to pick ids from their pids, and two graphs
in one domain answer each other's goals; a lease held by another process must never be handed out,
and must come free when that process ends, however it ends.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
import ros_harness

HOLDER = "import ros_harness, sys; print(ros_harness.allocate_domain_id(), flush=True); sys.stdin.read()"


def _start_holder() -> subprocess.Popen[str]:
    """A process that leases a domain, prints its id and holds it until its stdin closes."""
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER],
        cwd=Path(ros_harness.__file__).parent,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _walk_whole_range() -> set[int]:
    return {ros_harness.allocate_domain_id() for _ in range(ros_harness._DOMAIN_PAIRS)}


def test_a_domain_another_process_holds_is_never_handed_out_and_frees_when_it_ends() -> None:
    holder = _start_holder()
    try:
        assert holder.stdout is not None
        held = int(holder.stdout.readline())
        seen = _walk_whole_range()
        assert held not in seen
        # Below Linux's ephemeral ports: a domain's DDS ports start at 7400 + 250 x id.
        assert all(domain_id % 2 == 1 and 1 <= domain_id <= 99 for domain_id in seen)
        assert 7400 + 250 * (max(seen) + 1) + 250 <= 32768
    finally:
        holder.kill()
        holder.wait()
    assert held in _walk_whole_range()


def test_a_domain_another_process_just_let_go_of_waits_while_a_cooled_one_is_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Fast DDS still lists the participants of a process killed a moment ago: the next graph in that
    # domain would see its servers.
    holder = _start_holder()
    assert holder.stdout is not None
    held = int(holder.stdout.readline())
    holder.kill()
    holder.wait()
    # The next id this process would try is the one just let go of.
    monkeypatch.setattr(ros_harness, "_cursor", itertools.count((held - ros_harness._DOMAIN_BASE) // 2))
    assert ros_harness.allocate_domain_id() != held

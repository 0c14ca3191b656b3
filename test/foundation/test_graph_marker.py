"""Every test that starts nodes carries the ``graph`` marker (test/conftest.py), so ``-m "not graph"``
is a quick run without a single node process, and ``-m graph`` selects exactly the graph tests."""

from __future__ import annotations

import subprocess
import sys

from repo_paths import REPO_ROOT

# Neither graph module marks itself: one takes a ROS domain of its own, one the shared ros_graph fixture.
OWN_GRAPH = "test/ros/test_dds_profile.py"
SHARED_FIXTURE = "test/foundation/test_harness_executor.py"
NO_GRAPH = "test/foundation/test_layering.py"


def _selected(marker: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", marker]
        + [OWN_GRAPH, SHARED_FIXTURE, NO_GRAPH],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}


def test_graph_tests_are_marked_and_the_rest_are_not() -> None:
    assert _selected("graph") == {OWN_GRAPH, SHARED_FIXTURE}
    assert _selected("not graph") == {NO_GRAPH}

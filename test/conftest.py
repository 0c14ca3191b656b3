"""Shared pytest fixtures: ``ros_graph`` gives a test an isolated ROS domain with node processes."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "support"))

from colcon_ws import Workspace, shared_workspace
from ros_harness import RosGraph
from ros_harness import ros_graph as _ros_graph
from world_builders import MakeWorld, world_builder

from llm_planner_ros.domain import Domain, load_domain_files
from llm_planner_ros.ros.dds_profile import use_project_profiles

# The test process hosts servers too (test doubles of MoveIt and Nav2): the same Fast DDS profile as the nodes.
use_project_profiles()

REPO_ROOT = Path(__file__).resolve().parents[1]

# The language-model fixtures (tiny random-weight models, the embedded SmolLM2), for tests in any folder.
pytest_plugins = ["model_fixtures"]


# What makes a test a graph test: the fixtures that start nodes or build a workspace, or the harness names
# a module uses to start its own graphs. `-m "not graph"` then leaves out every test that starts nodes.
GRAPH_FIXTURES = frozenset({"ros_graph", "colcon_workspace", "ros_tools"})
GRAPH_HARNESS = ("RosGraph", "allocate_domain_id", "Workspace")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = getattr(item, "module", None)
        fixtures = set(getattr(item, "fixturenames", ()))
        if GRAPH_FIXTURES & fixtures or any(hasattr(module, name) for name in GRAPH_HARNESS):
            item.add_marker(pytest.mark.graph)


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture
def ros_graph(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RosGraph]:
    """An isolated ROS graph; prints every node's log when the test fails."""
    with _ros_graph(tmp_path) as graph:
        yield graph
        failed = any(
            getattr(request.node, f"rep_{when}", None) is not None and getattr(request.node, f"rep_{when}").failed
            for when in ("setup", "call")
        )
        if failed:
            print(f"\n===== node logs (ROS_DOMAIN_ID={graph.domain_id}) =====\n{graph.logs()}")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def minilm():
    """The project's embedded sentence encoder (all-MiniLM-L6-v2), loaded once per session."""
    from llm_planner_ros.llm.factory import load_embedder

    return load_embedder({})


@pytest.fixture(scope="session")
def kitchen() -> Domain:
    """The configured kitchen (domains/saycan_kitchen/world.yaml and domains/saycan_kitchen/skills.yaml)."""
    return load_domain_files()


@pytest.fixture
def make_world(kitchen: Domain) -> MakeWorld:
    """A world builder: ``make_world("table", holding=None, coke_1="far counter")`` (test/support/world_builders.py)."""
    return world_builder(kitchen)


@pytest.fixture(scope="session")
def colcon_workspace(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """The repository cloned into ``ws/src/`` and built with plain ``colcon build``, once per test session
    (test/support/colcon_ws.py; under pytest-xdist in the session's folder that every worker shares);
    fails the test when the build fails."""
    session_dir = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        session_dir = session_dir.parent
    workspace = shared_workspace(repo_root, session_dir / "ws")
    assert workspace.returncode == 0, f"colcon build failed:\n{workspace.output}"
    return workspace


@pytest.fixture(scope="session")
def ros_tools() -> None:
    """The ROS 2 launch and command-line tools (``ros2 launch``, ``ros2 run``, ``ros2 action``, ...): from a
    sourced ROS 2 install, or their wheels installed into the venv (``make ros-tools``). Where they are
    missing the test is skipped with how to get them; under CI (CI=true) that is a failure."""
    try:
        import launch_ros  # noqa: F401
        import ros2cli  # noqa: F401
    except ImportError as error:
        reason = (
            f"the ROS 2 launch and command-line tools are not importable ({error}): source a ROS 2 Jazzy install, "
            "or install their wheels with `make ros-tools ROS_WHEELS=<folder>` (docs/architecture.md, "
            '"The ROS user\'s path")'
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true: {reason}")
        pytest.skip(reason)

"""Shared pytest fixtures: ``ros_graph`` gives a test an isolated ROS domain with node processes."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from ros_harness import RosGraph  # noqa: E402
from ros_harness import ros_graph as _ros_graph
from world_builders import MakeWorld, world_builder  # noqa: E402

from kitchen_domain import Kitchen, load_kitchen  # noqa: E402
from llm_planner_ros.ros.dds_profile import use_project_profiles  # noqa: E402

# The test process hosts servers too (test doubles of MoveIt and Nav2): the same Fast DDS profile as the nodes.
use_project_profiles()

REPO_ROOT = Path(__file__).resolve().parents[1]


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
def minilm():  # noqa: ANN201 (an Embedder; imported lazily so collection stays fast)
    """The project's embedded sentence encoder (all-MiniLM-L6-v2), loaded once per session."""
    from llm_planner_ros.llm.factory import load_embedder

    return load_embedder({})


@pytest.fixture(scope="session")
def kitchen() -> Kitchen:
    """The configured kitchen (config/kitchen_world.yaml and config/kitchen_skills.yaml)."""
    return load_kitchen()


@pytest.fixture
def make_world(kitchen: Kitchen) -> MakeWorld:
    """make_world("table", holding=None, drawer=None, coke_1="far counter") -> World (test/world_builders.py)."""
    return world_builder(kitchen)

"""Fixtures of the tests that go through the real ROS 2 tools on a colcon workspace."""

from __future__ import annotations

import pytest
from colcon_ws import Workspace
from ros2_cli import Ros2
from ros_harness import RosGraph


@pytest.fixture
def ros2(ros_tools: None, colcon_workspace: Workspace, ros_graph: RosGraph) -> Ros2:
    """``ros2`` of the sourced workspace in this test's ROS domain (skipped or, under CI, failed without
    the ROS tools)."""
    return Ros2(ros_graph, colcon_workspace)

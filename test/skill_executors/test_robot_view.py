"""Where the robot executors take the robot's place from: the robot-state record, or with tf2_ros a
``map -> base_link`` lookup matched to the place map (tf2_ros is not on PyPI: a stand-in module here)."""

from __future__ import annotations

import importlib.machinery
import sys
import types
from typing import Any

import pytest
from rclpy.callback_groups import ReentrantCallbackGroup
from ros_harness import RosGraph

from llm_planner_ros.robot_motion.place_map import load_place_map
from llm_planner_ros.ros.node_startup import StartupError
from skill_executors.robot_parameters import ROBOT_PARAMETERS
from skill_executors.robot_view import RobotView, tf_available

pytestmark = pytest.mark.graph


def params(**overrides: Any) -> dict[str, Any]:
    return {**{name: spec.default for name, spec in ROBOT_PARAMETERS.items()}, **overrides}


def fake_tf2(x: float, y: float, fail: bool = False) -> types.ModuleType:
    """A tf2_ros whose buffer has the base at (x, y) in every frame (or no transform when ``fail``)."""
    module = types.ModuleType("tf2_ros")
    module.__spec__ = importlib.machinery.ModuleSpec("tf2_ros", None)
    lookups: list[tuple[str, str]] = []

    class Buffer:
        def lookup_transform(self, target: str, source: str, _time: Any) -> Any:
            lookups.append((target, source))
            if fail:
                raise LookupError(f'"{target}" passed to lookupTransform does not exist')
            translation = types.SimpleNamespace(x=x, y=y, z=0.0)
            return types.SimpleNamespace(transform=types.SimpleNamespace(translation=translation))

    module.Buffer = Buffer
    module.TransformListener = lambda buffer, node: None
    module.lookups = lookups
    return module


def test_without_tf2_the_place_is_the_records(ros_graph: RosGraph) -> None:
    assert not tf_available()  # the PyPI environment has no tf2_ros
    view = RobotView(ros_graph.node, load_place_map(), params(), ReentrantCallbackGroup())
    place, why = view.place()
    assert place is None and "no robot-state record on /robot/state" in why
    assert "place from /robot/state" in view.describe()
    with pytest.raises(StartupError, match="tf2_ros is not importable"):
        RobotView(ros_graph.node, load_place_map(), params(base_pose="tf"), ReentrantCallbackGroup())


def test_with_tf2_the_place_is_the_nearest_to_the_base_transform(
    ros_graph: RosGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    tf2 = fake_tf2(4.6, 1.0)
    monkeypatch.setitem(sys.modules, "tf2_ros", tf2)
    view = RobotView(ros_graph.node, load_place_map(), params(base_frame="base_footprint"), ReentrantCallbackGroup())
    assert view.place() == ("far counter", "")
    assert tf2.lookups == [("map", "base_footprint")]
    assert "place from TF map -> base_footprint" in view.describe()
    assert view.wait(0.1) is not None and "scene/objects" in view.wait(0.1)  # objects still needed, no record

    monkeypatch.setitem(sys.modules, "tf2_ros", fake_tf2(3.5, 2.0))
    far = RobotView(ros_graph.node, load_place_map(), params(base_pose="tf"), ReentrantCallbackGroup())
    assert far.place() == (None, "the base is more than 0.5 m from every place of the place map")

    monkeypatch.setitem(sys.modules, "tf2_ros", fake_tf2(0, 0, fail=True))
    lost = RobotView(ros_graph.node, load_place_map(), params(), ReentrantCallbackGroup())
    place, why = lost.place()
    assert place is None and why.startswith("no transform map -> base_link")

"""Runs a launch file of launch/ without ROS 2's launch packages (not on PyPI).

Stand-ins of ``launch``, ``launch.actions`` and ``launch_ros.actions`` record what the file declares;
the OpaqueFunction is then called with the declared arguments' defaults, updated by the test's values, as
``ros2 launch ... name:=value`` would, and returns the keyword arguments of every launch_ros Node.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from repo_paths import REPO_ROOT

LAUNCH_DIR = REPO_ROOT / "launch"


def launch_nodes(
    launch_file: Path, monkeypatch: pytest.MonkeyPatch, arguments: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The Nodes ``launch_file`` starts with ``arguments`` (launch argument name -> value)."""
    launch = types.ModuleType("launch")
    launch.LaunchDescription = lambda entities: list(entities)
    launch_actions = types.ModuleType("launch.actions")
    launch_actions.DeclareLaunchArgument = lambda name, default_value, description: ("argument", name, default_value)
    launch_actions.OpaqueFunction = lambda function: ("opaque", function)
    ros_actions = types.ModuleType("launch_ros.actions")
    ros_actions.Node = lambda **kwargs: kwargs
    monkeypatch.setitem(sys.modules, "launch", launch)
    monkeypatch.setitem(sys.modules, "launch.actions", launch_actions)
    monkeypatch.setitem(sys.modules, "launch_ros", types.ModuleType("launch_ros"))
    monkeypatch.setitem(sys.modules, "launch_ros.actions", ros_actions)
    spec = importlib.util.spec_from_file_location(launch_file.stem.replace(".", "_"), launch_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entities = module.generate_launch_description()
    configurations = {name: default for _, name, default in (e for e in entities if e[0] == "argument")}
    unknown = set(arguments or {}) - set(configurations)
    assert not unknown, f"{launch_file.name} declares no launch arguments {sorted(unknown)}"
    configurations.update(arguments or {})
    (function,) = [e[1] for e in entities if e[0] == "opaque"]
    return function(types.SimpleNamespace(launch_configurations=configurations))

"""The launch files' glue: a ``LaunchDescription`` declaring the launch arguments and starting a graph's
nodes as launch_ros Nodes (``launch`` and ``launch_ros`` are imported only here, only when a launch runs).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from llm_planner_ros.bringup.graphs import GRAPHS, LAUNCH_ARGUMENTS
from llm_planner_ros.bringup.options import GraphOptions
from llm_planner_ros.bringup.starts import NodeStart, node_starts


def launch_description(graph: str):
    """A ``launch.LaunchDescription`` declaring ``LAUNCH_ARGUMENTS`` and starting ``GRAPHS[graph]`` with
    them (used by the files in launch/)."""
    from launch.actions import DeclareLaunchArgument, OpaqueFunction

    from launch import LaunchDescription

    return LaunchDescription(
        [
            *(
                DeclareLaunchArgument(name, default_value=default, description=description)
                for name, (default, description) in LAUNCH_ARGUMENTS.items()
            ),
            OpaqueFunction(function=lambda context: launch_nodes(graph, context.launch_configurations)),
        ]
    )


def launch_nodes(graph: str, arguments: Mapping[str, str]) -> list:
    """launch_ros Nodes of ``GRAPHS[graph]`` for the launch ``arguments`` (names of LAUNCH_ARGUMENTS)."""
    options = GraphOptions.parse(
        **{name: arguments.get(name, default) for name, (default, _) in LAUNCH_ARGUMENTS.items()}
    )
    return launch_ros_nodes(node_starts(GRAPHS[graph], options, launch_scratch()))


def launch_scratch() -> Path:
    """Where a launch process writes the parameter files it generates."""
    return Path(tempfile.gettempdir()) / f"llm_planner_ros_launch_{os.getpid()}"


def launch_ros_nodes(starts: Sequence[NodeStart]) -> list:
    """launch_ros Nodes for ``starts`` (their packaged parameter files, then their own parameters)."""
    from launch_ros.actions import Node

    return [
        Node(
            package="llm_planner_ros",
            executable=start.executable,
            name=start.name,
            namespace=start.namespace,
            parameters=[*map(str, start.param_files), *([dict(start.params)] if start.params else [])],
            output="screen",
        )
        for start in starts
    ]

"""The node graphs of this stack, declared once for both ``ros2 launch`` and ``llm-planner up``.

``launch/sim.launch.py`` and ``launch/robot.launch.py`` turn these specs into launch_ros Nodes on a
machine with a ROS 2 install; ``llm-planner up``/``demo`` start the same executables with the same
parameter files as processes (launch is not on PyPI). Keeping one list makes the two bring-ups
impossible to drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kitchen_domain.paths import config_file


@dataclass(frozen=True)
class NodeSpec:
    """One node of a graph: its console entry point, its ROS node name, and its parameter files
    (names in config/, applied in order so later files override earlier ones)."""

    executable: str
    name: str
    param_files: tuple[str, ...]

    def param_paths(self) -> list[Path]:
        return [config_file(name) for name in self.param_files]


SIM_GRAPH: tuple[NodeSpec, ...] = (
    NodeSpec("sim_world_node", "sim_world_node", ("sim_world.yaml",)),
    NodeSpec("affordance_server", "affordance_server", ("affordance.yaml",)),
    NodeSpec("manipulator_executor", "manipulator_executor", ("executors.yaml",)),
    NodeSpec("mobile_base_executor", "mobile_base_executor", ("executors.yaml",)),
    NodeSpec("llm_service_node", "llm_service", ("llm_service.yaml",)),
    NodeSpec("planner_node", "planner", ("planner.yaml",)),
)

# On a robot the simulator is gone: affordances read the perceived scene and the robot state, and the
# executors drive MoveIt 2 and Nav2 (robot.yaml overrides the sim defaults of each node).
ROBOT_GRAPH: tuple[NodeSpec, ...] = (
    NodeSpec("affordance_server", "affordance_server", ("affordance.yaml", "robot.yaml")),
    NodeSpec("manipulator_executor", "manipulator_executor", ("executors.yaml", "robot.yaml")),
    NodeSpec("mobile_base_executor", "mobile_base_executor", ("executors.yaml", "robot.yaml")),
    NodeSpec("llm_service_node", "llm_service", ("llm_service.yaml",)),
    NodeSpec("planner_node", "planner", ("planner.yaml", "robot.yaml")),
)

GRAPHS: dict[str, tuple[NodeSpec, ...]] = {"sim": SIM_GRAPH, "robot": ROBOT_GRAPH}


def launch_description(graph: str):  # noqa: ANN201 (launch is only importable on a ROS 2 install)
    """A ``launch.LaunchDescription`` starting ``GRAPHS[graph]`` (used by the files in launch/)."""
    from launch import LaunchDescription
    from launch_ros.actions import Node

    return LaunchDescription(
        [
            Node(
                package="llm_planner_ros",
                executable=spec.executable,
                name=spec.name,
                parameters=[str(path) for path in spec.param_paths()],
                output="screen",
            )
            for spec in GRAPHS[graph]
        ]
    )

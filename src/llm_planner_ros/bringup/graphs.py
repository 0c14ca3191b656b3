"""The node graphs of this stack as data, declared once for both ``ros2 launch`` and ``llm-planner up``:
each node's executable, ROS name and packaged parameter files, the optional nodes, the nodes that watch
a planner (recorder, console), and the launch arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.bringup.options import GraphOptionError
from llm_planner_ros.paths import config_file


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
    NodeSpec("sim_world", "sim_world", ("sim_world.yaml",)),
    NodeSpec("affordance_server", "affordance_server", ("affordance_server.yaml",)),
    NodeSpec("manipulator_executor", "manipulator_executor", ("manipulator_executor.yaml",)),
    NodeSpec("mobile_base_executor", "mobile_base_executor", ("mobile_base_executor.yaml",)),
    NodeSpec("llm_service", "llm_service", ("llm_service.yaml",)),
    NodeSpec("planner", "planner", ("planner.yaml",)),
)


# On a robot the simulator is gone: affordances read the perceived scene and the robot state, and the
# executors drive MoveIt 2 and Nav2 (robot_graph.yaml overrides the sim defaults of each node).
ROBOT_GRAPH: tuple[NodeSpec, ...] = (
    NodeSpec("affordance_server", "affordance_server", ("affordance_server.yaml", "robot_graph.yaml")),
    NodeSpec("manipulator_executor", "manipulator_executor", ("manipulator_executor.yaml", "robot_graph.yaml")),
    NodeSpec("mobile_base_executor", "mobile_base_executor", ("mobile_base_executor.yaml", "robot_graph.yaml")),
    NodeSpec("llm_service", "llm_service", ("llm_service.yaml",)),
    NodeSpec("planner", "planner", ("planner.yaml", "robot_graph.yaml")),
)


# The PyBullet kitchen in place of the symbolic simulator, driven as a robot is: the executors' nav2 and
# moveit backends send NavigateToPose, MoveGroup and GripperCommand goals to physics_sim
# (physics_graph.yaml over the executors' own files; docs/physics_sim.md).
PHYSICS_GRAPH: tuple[NodeSpec, ...] = (
    NodeSpec("physics_sim", "physics_sim", ("physics_sim.yaml",)),
    NodeSpec("affordance_server", "affordance_server", ("affordance_server.yaml",)),
    NodeSpec("manipulator_executor", "manipulator_executor", ("manipulator_executor.yaml", "physics_graph.yaml")),
    NodeSpec("mobile_base_executor", "mobile_base_executor", ("mobile_base_executor.yaml", "physics_graph.yaml")),
    NodeSpec("llm_service", "llm_service", ("llm_service.yaml",)),
    NodeSpec("planner", "planner", ("planner.yaml",)),
)


# The physics graph as users start it (`llm-planner demo/up --sim physics`, launch/physics.launch.py): the
# scene comes from perception on the simulator's head camera, not from its ground truth
# (physics_perception_graph.yaml over every node but the LLM service, which is the same on every graph).
# PHYSICS_GRAPH above, whose scene is the ground truth, is what the kitchen benchmark and the execution tests
# run (no cameras needed), and `--scene truth`.
PHYSICS_PERCEPTION_GRAPH: tuple[NodeSpec, ...] = (
    *(
        spec
        if spec.name == "llm_service"
        else NodeSpec(spec.executable, spec.name, (*spec.param_files, "physics_perception_graph.yaml"))
        for spec in PHYSICS_GRAPH
    ),
    NodeSpec("perception", "perception", ("perception.yaml", "physics_perception_graph.yaml")),
)


# Node names of releases before 0.4.0, for the error that meets a params file still keyed by one.
RENAMED_NODES: dict[str, str] = {"sim_world_node": "sim_world", "physics_sim_node": "physics_sim"}


GRAPHS: dict[str, tuple[NodeSpec, ...]] = {
    "sim": SIM_GRAPH,
    "robot": ROBOT_GRAPH,
    "physics": PHYSICS_PERCEPTION_GRAPH,
}


# Nodes a graph runs only when asked for: `perception` publishes /scene/objects from a camera (on a
# robot, or beside a simulator that renders images), in place of the simulator's ground truth;
# `saycanpay_can`/`saycanpay_pay` serve SayCanPay's learned models (planners.yaml: can_service, pay_service).
OPTIONAL_NODES: dict[str, NodeSpec] = {
    "perception": NodeSpec("perception", "perception", ("perception.yaml",)),
    "saycanpay_can": NodeSpec("saycanpay_scorer", "saycanpay_can", ("saycanpay_scorer.yaml",)),
    "saycanpay_pay": NodeSpec("saycanpay_scorer", "saycanpay_pay", ("saycanpay_scorer.yaml",)),
}


def with_optional(graph: tuple[NodeSpec, ...], names: tuple[str, ...]) -> tuple[NodeSpec, ...]:
    """``graph`` plus the OPTIONAL_NODES ``names``; GraphOptionError for an unknown name."""
    unknown = [name for name in names if name not in OPTIONAL_NODES]
    if unknown:
        raise GraphOptionError(f"unknown optional node(s) {unknown}: choose from {', '.join(OPTIONAL_NODES)}")
    return (*graph, *(OPTIONAL_NODES[name] for name in names))


# The launch arguments of launch/*.launch.py: name -> (default, description). `llm-planner up`/`demo` take the
# same as --params-file, --namespace, --use-sim-time.
LAUNCH_ARGUMENTS: dict[str, tuple[str, str]] = {
    "params_file": (
        "",
        "YAML applied after the packaged parameter files: node-name keys (planner:, "
        "affordance_server:, ...) or /** for every node",
    ),
    "namespace": (
        "",
        "namespace every node of the graph is pushed into: robot1 serves /robot1/llm_planner/execute_instruction",
    ),
    "use_sim_time": ("false", "true: every node takes its time from /clock"),
    "domain": (
        "",
        "a domain folder (world.yaml, skills.yaml, optional params.yaml; docs/domains.md) every node plans in",
    ),
    "without": (
        "",
        "comma-separated names of nodes to leave out, for nodes of your own to take their place "
        "(affordance_server,wiper_executor)",
    ),
    "record": ("false", "true: plan_recorder keeps every plan as a rosbag2 bag (docs/operator.md)"),
    "console": (
        "auto",
        "true | false | auto: the operator console's web page (docs/operator.md); auto starts it where the "
        "planner waits for a person's approval of each step (require_confirmation: the robot graph)",
    ),
}


# Where a launch starts nodes: a namespace ("" for the root) and the nodes it starts there.
Placement = tuple[str, Sequence[NodeSpec]]


def planner_spec(graph: tuple[NodeSpec, ...]) -> NodeSpec | None:
    return next((spec for spec in graph if spec.executable == "planner"), None)


def _beside_planner(graph: tuple[NodeSpec, ...], executable: str) -> NodeSpec | None:
    """``executable`` for ``graph``: its packaged file, then the graph's own files of the planner (robot_graph.yaml
    gives the robot's state topic); None for a part of a graph without the planner."""
    planner = planner_spec(graph)
    if planner is None:
        return None
    own = tuple(name for name in planner.param_files if name != "planner.yaml")
    return NodeSpec(executable, executable, (f"{executable}.yaml", *own))


def recorder_spec(graph: tuple[NodeSpec, ...]) -> NodeSpec | None:
    """plan_recorder for ``graph`` (None for a part of a graph without the planner)."""
    return _beside_planner(graph, "plan_recorder")


def console_spec(graph: tuple[NodeSpec, ...]) -> NodeSpec | None:
    """operator_console for ``graph`` (None for a part of a graph without the planner)."""
    return _beside_planner(graph, "operator_console")

"""The arguments of ``llm-planner demo | up | run`` (``cli.graph_commands`` runs them).

Apart from the commands so that ``llm-planner --help`` and a parse error import none of what the
commands need (rclpy, the simulators, torch): each parser names its command's function, which
``cli.main`` imports only when that command runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from llm_planner_ros.bringup.options import GraphOptionError, normalize_namespace
from llm_planner_ros.options import finite_float, non_negative_float, step_budget

DEFAULT_INSTRUCTION = "How would you bring me a coke can?"


def add_arguments(commands: argparse._SubParsersAction) -> None:
    demo = commands.add_parser("demo", help="bring up the sim graph, plan and execute one instruction, stop")
    demo.add_argument("instruction", nargs="?", default=None, help=f'default: "{DEFAULT_INSTRUCTION}"')
    _goal_arguments(demo)
    demo.add_argument("--episode", type=Path, help="episode file: start from its initial state, judge its goal")
    demo.add_argument("--id", dest="episode_id", help="episode id within --episode")
    demo.add_argument("--plot", type=Path, help="write the decision chart (paper Figure 5) to this PNG")
    demo.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="--sim physics: write the head camera's frames (one per simulated second) and strip.png to DIR",
    )
    demo.add_argument(
        "--log-dir", type=Path, help="node logs (default: a new folder under ~/.cache/llm_planner_ros/logs)"
    )
    demo.add_argument(
        "--time-scale",
        type=finite_float,
        default=0.1,
        help="simulated skill durations x this (1.0: real time; default 0.1 so the demo is quick; --sim symbolic only)",
    )
    demo.add_argument(
        "--real-time-factor",
        type=non_negative_float,
        default=0.0,
        help="--sim physics: simulated seconds per wall second (1.0: real time, for someone watching; default "
        "0: as fast as the CPU allows, so the demo is quick; every node follows the simulator's /clock)",
    )
    _sim_argument(demo)
    _llm_argument(demo)
    _graph_arguments(demo)
    demo.set_defaults(_run="run_demo")

    up = commands.add_parser("up", help="bring up the sim graph and wait (Ctrl-C stops it)")
    up.add_argument("--log-dir", type=Path)
    up.add_argument("--time-scale", type=finite_float, default=1.0, help="simulated skill durations x this")
    _llm_argument(up)
    up.add_argument("--episode", type=Path)
    up.add_argument("--id", dest="episode_id")
    up.add_argument(
        "--robot",
        action="store_true",
        help="the robot graph (config/robot_graph.yaml: no simulator, Nav2 and MoveIt 2 executors; docs/robot.md)",
    )
    _sim_argument(up)
    _graph_arguments(up)
    up.set_defaults(_run="run_up")

    run = commands.add_parser("run", help="send an instruction to a running graph and show the plan")
    run.add_argument("instruction")
    _goal_arguments(run)
    run.add_argument("--plot", type=Path)
    _namespace_argument(run, "namespace of the planner to address (that of `llm-planner up --namespace`)")
    run.set_defaults(_run="run_instruction")

    confirm = commands.add_parser("confirm", help="approve or refuse each step of a running graph in this terminal")
    _namespace_argument(
        confirm, "namespace of the planner whose steps to approve (that of `llm-planner up --namespace`)"
    )
    confirm.set_defaults(_module="llm_planner_ros.cli.confirm_command")

    console = commands.add_parser(
        "console", help="serve the operator console: a web page to watch, approve and stop running graphs"
    )
    console.add_argument("--host", default="127.0.0.1", help="address to serve on (not loopback: a token is needed)")
    console.add_argument("--port", type=int, default=8080, help="TCP port (0: any free port; default 8080)")
    console.add_argument("--token", default="", help="the token requests need (default: a random one off loopback)")
    console.add_argument(
        "--robots",
        default="",
        metavar="NS[,NS...]",
        help="namespaces of the robots to show, e.g. robot1,robot2 (default: --namespace only)",
    )
    console.add_argument(
        "--approval-timeout",
        type=finite_float,
        default=30.0,
        help="seconds a step waits on the page before it is refused",
    )
    console.add_argument(
        "--robot-state-topic", default="sim/robot_state", help="the robot-state record (robot/state on a robot)"
    )
    _namespace_argument(console, "namespace of the planner to watch (that of `llm-planner up --namespace`)")
    console.set_defaults(_module="llm_planner_ros.cli.console_command")

    recording = "llm_planner_ros.cli.recording_commands"
    record = commands.add_parser("record", help="record a running graph's plans as a rosbag2 bag (MCAP)")
    record.add_argument("--out", type=Path, required=True, help="the bag folder to write (new or empty)")
    record.add_argument(
        "--robot-state-topic",
        default="sim/robot_state",
        help="the robot-state record's topic (default sim/robot_state; robot/state on the robot graph)",
    )
    record.add_argument("--camera", action="store_true", help="also record the head camera's images")
    _namespace_argument(record, "namespace of the graph to record (as `llm-planner up --namespace`)")
    record.set_defaults(_module=recording)
    replay = commands.add_parser("replay", help="print the plans of a recorded bag and their tables")
    replay.add_argument("bag", type=Path, help="a bag folder (or its .mcap file)")
    replay.add_argument("--plot", type=Path, help="write the last goal's decision chart (PNG) here")
    replay.set_defaults(_module=recording)


def _goal_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--planner", default="", help="saycan (default) or another registered method")
    parser.add_argument("--plan-only", action="store_true", help="plan against simulated effects, dispatch nothing")
    parser.add_argument(
        "--max-steps",
        type=step_budget,
        default=0,
        help="step budget (0: the planner's default; the planner refuses more than its max_steps_limit)",
    )
    parser.add_argument("--json", type=Path, help="write the outcome (steps, scores, final state) as JSON")


def _sim_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sim",
        choices=("symbolic", "physics"),
        default="symbolic",
        help="symbolic: sim_world decides skill outcomes by rule; physics: the PyBullet kitchen "
        "(physics_sim) driven through NavigateToPose, MoveGroup and GripperCommand (docs/physics_sim.md)",
    )
    parser.add_argument(
        "--scene",
        choices=("perceived", "truth"),
        default=None,
        help="--sim physics: perceived (default): perception publishes the scene from the head camera, "
        "after the robot looked at every place once; truth: the simulator publishes its ground truth",
    )


def _graph_arguments(parser: argparse.ArgumentParser) -> None:
    """The launch files' arguments (llm_planner_ros.bringup.graphs.LAUNCH_ARGUMENTS), with the same meaning."""
    parser.add_argument(
        "--domain",
        type=Path,
        metavar="DIR",
        help="domain folder every node plans in: world.yaml, skills.yaml and optionally params.yaml "
        "(docs/domains.md; default: the SayCan kitchen)",
    )
    parser.add_argument(
        "--params-file",
        type=Path,
        help="ROS parameter YAML applied after the packaged files: "
        "node-name keys (planner:, sim_world:, ...) or /** for every node",
    )
    _namespace_argument(parser, "push every node into this namespace (robot1: /robot1/llm_planner/execute_instruction)")
    parser.add_argument(
        "--use-sim-time",
        action="store_true",
        help="every node takes its time from /clock (something must publish it, e.g. Gazebo)",
    )
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="NODE",
        help="leave this node out, for a node of your own to take its place (affordance_server, "
        "wiper_executor); repeatable",
    )
    parser.add_argument(
        "--bag",
        action="store_true",
        help="plan_recorder keeps every plan as a rosbag2 bag under ~/.cache/llm_planner_ros/bags "
        "(launch argument record:=true; docs/operator.md)",
    )
    parser.add_argument(
        "--console",
        choices=("auto", "true", "false"),
        default="auto",
        help="the operator console's web page (launch argument console:=...); auto: where the planner waits "
        "for approval of each step (--robot)",
    )


def _namespace_argument(parser: argparse.ArgumentParser, text: str) -> None:
    parser.add_argument("--namespace", type=_namespace, default="", help=text)


def _namespace(value: str) -> str:
    try:
        return normalize_namespace(value)
    except GraphOptionError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _llm_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--llm",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="llm_service parameter (fields of LLMConfig), e.g. --llm backend=replay "
        "--llm recording=run.jsonl; repeatable",
    )

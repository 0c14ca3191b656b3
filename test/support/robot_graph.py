"""Helpers of the robot graph tests: the robot doubles (test/support/robot_doubles.py) and the executors
started as the robot graph starts them (their own files, then robot_graph.yaml)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from graph_helpers import write_episode
from ros_harness import RosGraph

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.bringup.graphs import ROBOT_GRAPH
from llm_planner_ros.processes import NodeProcess, param_literal
from llm_planner_ros.ros.action_client import RaceFreeActionClient

# The fetch scene the robot-graph tests plan in: the coke on the far counter, an apple on the table.
INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [
        {"id": "coke_1", "label": "coke", "at": "far counter"},
        {"id": "apple_1", "label": "apple", "at": "table"},
    ],
}
PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]

DOUBLES = Path(__file__).with_name("robot_doubles.py")


def start_doubles(
    graph: RosGraph, work: Path, initial: dict[str, Any] | None = None, **params: Any
) -> tuple[NodeProcess, Path]:
    """The robot doubles with ``params`` (``nav2_outcomes="plan_fail"``, ...) from ``initial`` (an episode
    ``initial`` block; None: the kitchen's default scene); returns the process and its record file."""
    record = work / "doubles.jsonl"
    settings: dict[str, Any] = {"record_file": str(record), **params}
    if initial is not None:
        settings["episode_file"] = str(write_episode(work / "scene.yaml", "scene", initial))
    argv = [sys.executable, str(DOUBLES), "--ros-args"]
    for key, value in settings.items():
        argv += ["-p", f"{key}:={param_literal(value)}"]
    process = graph.start_process(argv, label="robot_doubles")
    graph.ping("robot_doubles")
    return process, record


def start_executor(graph: RosGraph, executable: str, **params: Any) -> RaceFreeActionClient:
    """An executor of the robot graph (its packaged parameter files, then ``params``), up and pinged;
    its ExecuteSkill client."""
    spec = next(spec for spec in ROBOT_GRAPH if spec.executable == executable)
    graph.start_node(executable, params=params, param_files=spec.param_paths(), name=spec.name)
    executor = spec.name.removesuffix("_executor")
    return graph.action_client(ExecuteSkill, f"/executors/{executor}/execute_skill")


def records(path: Path, server: str) -> list[dict[str, Any]]:
    """What the doubles recorded for ``server`` (nav2, move_group, gripper), in order."""
    if not path.exists():
        return []
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    return [entry for entry in entries if entry["server"] == server]

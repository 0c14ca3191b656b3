"""The manipulator executor's moveit backend (config/physics_graph.yaml) through physics_sim's real MoveGroup
and GripperCommand servers: the drawer skills work the PyBullet cabinet's drawer by its handle, and a
second object put down at a place stands beside the first instead of on it.

Regressions of the dev episodes drawer-01..03 (every drawer skill failed at `pre-grasp handle` with
NO_IK_SOLUTION: from the old base pose the hand at the handle folded the Panda into its own base, and
the simulator's IK tried one seed) and long-02 (the second object put down at the user aimed at the
point the first stood on)."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import execute, write_episode
from ros_harness import RosGraph, wait_until
from std_msgs.msg import String

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.bringup.graphs import PHYSICS_GRAPH
from llm_planner_ros.domain import Domain
from llm_planner_ros.ros.topics import STATE_QOS

pytestmark = pytest.mark.graph

FAST_SIM = {"real_time_factor": 0.0, "image_width": 64, "image_height": 48, "camera_rate_hz": 0.0}
AT_THE_DRAWER = {
    "robot": {"at": "drawers", "holding": None},
    "drawer": {"open": False},
    "objects": [{"id": "redbull_1", "label": "redbull", "at": "drawer"}],
}
COKE_IN_HAND = {
    "robot": {"at": "far counter", "holding": "coke_1"},
    "objects": [
        {"id": "coke_1", "label": "coke", "at": "robot"},
        {"id": "pepsi_1", "label": "pepsi", "at": "far counter"},
    ],
}
CAN_DIAMETER = 0.066  # config/physics_kitchen.yaml


class GroundTruth:
    """The latest ground truth and robot-state record of physics_sim."""

    def __init__(self, graph: RosGraph) -> None:
        self._lock = threading.Lock()
        self._truth: dict[str, Any] = {}
        self._robot: dict[str, Any] = {}
        graph.node.create_subscription(String, "sim/ground_truth", self._on_truth, STATE_QOS)
        graph.node.create_subscription(String, "sim/robot_state", self._on_robot, STATE_QOS)

    def _on_truth(self, msg: String) -> None:
        with self._lock:
            self._truth = json.loads(msg.data)

    def _on_robot(self, msg: String) -> None:
        with self._lock:
            self._robot = json.loads(msg.data)

    def get(self, key: str) -> Any:
        with self._lock:
            return self._truth.get(key)

    def robot(self, key: str) -> Any:
        with self._lock:
            return self._robot.get(key)

    def objects(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {o["id"]: o for o in self._truth.get("objects", [])}


def start(graph: RosGraph, tmp_path: Path, initial: dict[str, Any]) -> tuple[Any, GroundTruth]:
    """physics_sim in the scene ``initial`` and the manipulator executor of the physics graph (its
    packaged parameter files, config/physics_graph.yaml last); the executor's ExecuteSkill client."""
    episode = write_episode(tmp_path / "scene.yaml", "scene", initial)
    truth = GroundTruth(graph)
    for spec in PHYSICS_GRAPH:
        if spec.executable == "physics_sim":
            params = {**FAST_SIM, "episode_file": str(episode), "episode_id": "scene"}
            graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
        if spec.name == "manipulator_executor":
            graph.start_node(spec.executable, param_files=spec.param_paths(), name=spec.name)
    wait_until(lambda: truth.robot("at") == initial["robot"]["at"], 60.0, "the robot-state record of the scene")
    return graph.action_client(ExecuteSkill, "/executors/manipulator/execute_skill", timeout=60.0), truth


def run_skill(arm: Any, kitchen: Domain, initial: dict[str, Any], text: str) -> str:
    """Execute one skill through the executor; fails with the executor's message unless it succeeded."""
    response = execute(arm, kitchen.world(initial).skill(text))
    assert response is not None, f"{text!r} rejected"
    assert response.status == GoalStatus.STATUS_SUCCEEDED, f"{text!r}: {response.result.message}"
    return str(response.result.message)


@pytest.mark.timeout(240)
def test_the_drawer_skills_open_the_drawer_fetch_from_it_fill_it_and_close_it(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    arm, truth = start(ros_graph, tmp_path, AT_THE_DRAWER)
    assert truth.get("drawer_open") is False

    message = run_skill(arm, kitchen, AT_THE_DRAWER, "open the drawer")
    assert "pull 3/3" in message, message
    wait_until(lambda: truth.get("drawer_open") is True, 20.0, "the drawer open (ground truth)")
    assert truth.get("drawer_extension") > 0.25 and truth.get("grasped") is None, "let go of the handle"

    opened = {**AT_THE_DRAWER, "drawer": {"open": True}}
    run_skill(arm, kitchen, opened, "pick up the redbull")
    wait_until(lambda: truth.get("holding") == "redbull_1", 20.0, "the redbull in the gripper")
    held = {**opened, "robot": {"at": "drawers", "holding": "redbull_1"}}
    held["objects"] = [{"id": "redbull_1", "label": "redbull", "at": "robot"}]
    run_skill(arm, kitchen, held, "put the redbull in the drawer")
    wait_until(lambda: truth.objects()["redbull_1"]["at"] == "drawer", 20.0, "the redbull back in the drawer")

    run_skill(arm, kitchen, AT_THE_DRAWER | {"drawer": {"open": True}}, "close the drawer")
    wait_until(lambda: truth.get("drawer_open") is False, 20.0, "the drawer closed (ground truth)")
    assert truth.get("drawer_extension") < 0.05
    redbull = truth.objects()["redbull_1"]
    assert redbull["at"] == "drawer" and redbull["upright"], redbull


@pytest.mark.timeout(180)
def test_a_second_object_put_down_at_a_place_stands_beside_the_first(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    arm, truth = start(ros_graph, tmp_path, COKE_IN_HAND)
    run_skill(arm, kitchen, COKE_IN_HAND, "put down the coke")
    wait_until(lambda: truth.objects()["coke_1"]["at"] == "far counter", 20.0, "the coke on the far counter")
    on_counter = {
        "robot": {"at": "far counter", "holding": None},
        "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}, COKE_IN_HAND["objects"][1]],
    }
    run_skill(arm, kitchen, on_counter, "pick up the pepsi")
    wait_until(lambda: truth.get("holding") == "pepsi_1", 20.0, "the pepsi in the gripper")
    holding = {**on_counter, "robot": {"at": "far counter", "holding": "pepsi_1"}}
    holding["objects"] = [on_counter["objects"][0], {"id": "pepsi_1", "label": "pepsi", "at": "robot"}]
    run_skill(arm, kitchen, holding, "put down the pepsi")
    wait_until(lambda: truth.objects()["pepsi_1"]["at"] == "far counter", 20.0, "the pepsi on the far counter")

    objects = truth.objects()
    coke, pepsi = objects["coke_1"], objects["pepsi_1"]
    assert coke["upright"] and pepsi["upright"], (coke, pepsi)
    assert "pepsi_1" not in coke["touching"] and "coke_1" not in pepsi["touching"], (coke, pepsi)
    # Both stand on the counter's top, side by side: the pepsi beside the coke, not on it.
    assert abs(coke["position"][2] - pepsi["position"][2]) < 0.01, (coke, pepsi)
    assert math.dist(coke["position"][:2], pepsi["position"][:2]) > CAN_DIAMETER + 0.01, (coke, pepsi)
    assert coke["position"][:2] == pytest.approx([4.5, 0.5], abs=0.02), "the first at the counter's point"

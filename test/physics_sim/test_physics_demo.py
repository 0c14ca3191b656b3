"""The physics graph (llm_planner_ros.bringup.graphs.PHYSICS_GRAPH: physics_sim, the affordance server, the
executors on their nav2 and moveit backends, the planner) plans and executes a fetch instruction end to
end: the executors drive the PyBullet kitchen through NavigateToPose, MoveGroup and GripperCommand, and
the coke ends on the user's table per the simulator's ground truth.

SayCan plans with its model replayed from a recording made offline (test/support/replayed_planner_graph.py); the
physics itself is real: the pick closes the fingers around the can (grasped below its top, the arm stowed
before the base drives), and the put down releases it onto the table. ``llm-planner demo --sim physics
--record DIR`` runs the same graph as a user starts it and writes the head camera's frame strip.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import cv2
import pytest
from action_msgs.msg import GoalStatus
from demo_runs import replayed_physics_demo
from graph_helpers import write_episode
from language_model_doubles import PreferringModel
from replayed_planner_graph import execute_instruction, record_plan, wait_for_affordance_state
from ros_harness import RosGraph, wait_until
from std_msgs.msg import String

from llm_planner_interfaces.msg import PlanStep
from llm_planner_ros.bringup.graphs import PHYSICS_GRAPH
from llm_planner_ros.ros.topics import STATE_QOS

pytestmark = [pytest.mark.graph, pytest.mark.timeout(300)]

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}
PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]
# As fast as the CPU allows, tiny images at a low rate: the cameras are not what this test is about.
FAST_SIM = {"real_time_factor": 0.0, "image_width": 64, "image_height": 48, "camera_rate_hz": 1.0}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "saycan.jsonl"
    return record_plan(path, "saycan", PreferringModel(PLAN), INSTRUCTION, INITIAL)


class GroundTruth:
    """The latest ground truth physics_sim published (sim/ground_truth)."""

    def __init__(self, graph: RosGraph) -> None:
        self._lock = threading.Lock()
        self._data: dict[str, Any] | None = None
        graph.node.create_subscription(String, "sim/ground_truth", self._on_truth, STATE_QOS)

    def _on_truth(self, msg: String) -> None:
        with self._lock:
            self._data = json.loads(msg.data)

    def object_at(self, object_id: str) -> str | None:
        with self._lock:
            objects = self._data["objects"] if self._data else []
        return next((o["at"] for o in objects if o["id"] == object_id), None)


def test_the_physics_graph_fetches_the_coke_to_the_user(ros_graph: RosGraph, tmp_path: Path, recording: Path) -> None:
    episode = write_episode(tmp_path / "scene.yaml", "scene", INITIAL)
    truth = GroundTruth(ros_graph)
    replay = {"llm_mode": "in_process", "llm.backend": "replay", "llm.recording": str(recording), "planner": "saycan"}
    for spec in PHYSICS_GRAPH:
        if spec.executable == "llm_service":
            continue  # the planner replays the recording in-process
        params: dict[str, object] = {}
        if spec.executable == "physics_sim":
            params = {**FAST_SIM, "episode_file": str(episode), "episode_id": "scene"}
        if spec.executable == "planner":
            params = replay
        ros_graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
    ros_graph.ping("planner")
    wait_until(lambda: truth.object_at("coke_1") == "far counter", 60.0, "the coke on the far counter")
    wait_for_affordance_state(ros_graph)

    response = execute_instruction(ros_graph, INSTRUCTION)
    steps = [(step.skill, step.status, step.message) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, steps)
    assert [(skill, status) for skill, status, _ in steps] == [(skill, PlanStep.STATUS_SUCCEEDED) for skill in PLAN], (
        steps
    )
    # The pick ran its motions in the physics world, ending with the arm stowed for the drive.
    assert "stow" in steps[1][2], steps[1]
    wait_until(lambda: truth.object_at("coke_1") == "user", 10.0, "the coke on the user's table (ground truth)")


def test_llm_planner_demo_sim_physics_fetches_the_coke_and_records_the_head_camera(
    ros_graph: RosGraph, tmp_path: Path, recording: Path
) -> None:
    goal = {"at": {"label": "coke", "location": "user"}}
    episode = {"id": "fetch", "family": "test", "instruction": INSTRUCTION, "initial": INITIAL, "goal": goal}
    strip_dir = tmp_path / "strip"
    # Tiny frames for speed (--scene truth): perception is test_physics_perception_demo.py's subject.
    options = ("--scene", "truth", "--record", str(strip_dir))
    argv = replayed_physics_demo(tmp_path, "saycan_kitchen", episode, FAST_SIM, recording, *options)
    demo = ros_graph.start_process(argv, label="llm-planner-demo")
    wait_until(lambda: demo.returncode is not None, 240, "`llm-planner demo --sim physics` to finish")
    logs = "\n".join(f"--- {path.name}\n{path.read_text()}" for path in sorted((tmp_path / "logs").glob("*.log")))
    assert demo.returncode == 0, f"{demo.log()}\n{logs}"
    assert "episode fetch goal holds" in demo.log()
    strip = cv2.imread(str(strip_dir / "strip.png"))
    frames = sorted(strip_dir.glob("frame_*.png"))
    assert strip is not None and len(frames) >= 2, demo.log()
    assert strip.shape[0] == FAST_SIM["image_height"] and strip.shape[1] % FAST_SIM["image_width"] == 0

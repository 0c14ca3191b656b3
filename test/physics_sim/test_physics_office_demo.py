"""A domain that is not the kitchen in the physics graph, started as a user starts it: `llm-planner demo
--domain domains/office --sim physics`. The office's layout.yaml builds its furniture and objects, the
executors drive the robot through Nav2, MoveIt and gripper goals on the place map the layout implies,
"open the door" (a skill that changes a fact only, on the manipulator) is applied by physics_sim,
and "hand over the mug" (family hand) runs as a put down; the episode's goal holds on ground truth.

SayCan plans with its model replayed from a recording made offline in the office; the physics is real."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_runs import replayed_physics_demo
from language_model_doubles import StepPreferenceModel
from replayed_planner_graph import record_plan
from repo_paths import REPO_ROOT
from ros_harness import RosGraph, wait_until

from llm_planner_ros.domain.domain_folder import load_domain

pytestmark = [pytest.mark.graph, pytest.mark.timeout(300)]

OFFICE = REPO_ROOT / "domains" / "office"
INSTRUCTION = "Open the meeting room door, then bring me my mug."
INITIAL = {
    "robot": {"at": "desk", "holding": None},
    "objects": [
        {"id": "mug_1", "label": "mug", "at": "kitchenette"},
        {"id": "phone_1", "label": "phone", "at": "desk"},
    ],
}
GOAL = {"all": [{"fact": "door_open"}, {"at": {"label": "mug", "location": "user"}}]}
PLAN = [
    "go to the hall",
    "open the door",
    "find a mug",
    "pick up the mug",
    "bring it to you",
    "hand over the mug",
    "done",
]
# No real_time_factor: the demo's own default (--real-time-factor 0) steps the physics as fast as it can.
FAST_SIM = {"image_width": 64, "image_height": 48, "camera_rate_hz": 1.0}


def test_llm_planner_demo_runs_the_office_in_the_physics_graph(ros_graph: RosGraph, tmp_path: Path) -> None:
    recording = record_plan(
        tmp_path / "saycan.jsonl",
        "saycan",
        StepPreferenceModel([[step] for step in PLAN]),
        INSTRUCTION,
        INITIAL,
        kitchen=load_domain(OFFICE),
    )
    episode = {"id": "door-mug", "family": "test", "instruction": INSTRUCTION, "initial": INITIAL, "goal": GOAL}
    options = ("--domain", str(OFFICE), "--scene", "truth")
    argv = replayed_physics_demo(tmp_path, "office", episode, FAST_SIM, recording, *options)
    demo = ros_graph.start_process(argv, label="llm-planner-demo-office")
    logs = tmp_path / "logs"
    wait_until(lambda: demo.returncode is not None, 240, "`llm-planner demo --domain office --sim physics`")
    node_logs = "\n".join(f"--- {path.name}\n{path.read_text()}" for path in sorted(logs.glob("*.log")))
    assert demo.returncode == 0, f"{demo.log()}\n{node_logs}"
    assert "episode door-mug goal holds" in demo.log(), demo.log()
    # The door: applied by the simulation (facts have no bodies); the hand-over: a put down of the arm.
    assert "'open the door' done: set(door_open)" in node_logs, node_logs[-4000:]
    assert "places from the layout of" in node_logs, node_logs[-4000:]
    assert "physics office door-mug running as fast as it can" in node_logs, node_logs[-4000:]

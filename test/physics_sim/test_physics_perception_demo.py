"""`llm-planner demo --sim physics` as a user runs it: the scene comes from perception on the physics
head camera, never from the simulator's ground truth.

The demo starts PHYSICS_PERCEPTION_GRAPH, looks around once (the robot visits every place so that
perception sees the coke on the far counter, then the simulator is reset to the episode), and SayCan,
its model replayed from a recording made offline, fetches the coke; the episode's goal is judged on the
perceived final state. Meanwhile the test checks the graph: only perception publishes /scene/objects,
none of the planner-side nodes subscribes to the ground truth (sim/ground_truth), and every name the
simulator and perception have is in their rows of docs/architecture.md's node table.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_runs import replayed_physics_demo
from language_model_doubles import PreferringModel
from node_table import ARCHITECTURE, undocumented
from replayed_planner_graph import record_plan
from ros_harness import RosGraph, wait_until

from llm_planner_ros.bringup.graphs import PHYSICS_PERCEPTION_GRAPH

pytestmark = [pytest.mark.graph, pytest.mark.model, pytest.mark.timeout(600)]

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}
PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]
# Physics as fast as the CPU allows; the head camera as physics_perception_graph.yaml has it (perception needs
# its 320 x 240 frames).
FAST_PHYSICS = {"real_time_factor": 0.0}
PLANNER_SIDE = {spec.name for spec in PHYSICS_PERCEPTION_GRAPH} - {"physics_sim"}


# The goal is judged on the perceived final scene. It failed in about 1 run in 3 with the put-down coke
# missing from it: the goal ended 10 ms before perception saw the coke again. The planner now waits for
# the scene to show a skill's effects (effect_wait_s, docs/reliability.md).
def test_the_physics_demo_plans_on_the_perceived_scene_only(ros_graph: RosGraph, tmp_path: Path) -> None:
    recording = record_plan(tmp_path / "saycan.jsonl", "saycan", PreferringModel(PLAN), INSTRUCTION, INITIAL)
    goal = {"at": {"label": "coke", "location": "user"}}
    episode = {"id": "fetch", "family": "test", "instruction": INSTRUCTION, "initial": INITIAL, "goal": goal}
    argv = replayed_physics_demo(tmp_path, "saycan_kitchen", episode, FAST_PHYSICS, recording)
    logs = tmp_path / "logs"
    demo = ros_graph.start_process(argv, label="llm-planner-demo")
    node = ros_graph.node

    def endpoints(topic: str, publishers: bool) -> set[str]:
        infos = node.get_publishers_info_by_topic(topic) if publishers else node.get_subscriptions_info_by_topic(topic)
        return {info.node_name for info in infos}

    # Once every node's endpoints are discovered: the truth's publisher, the scene's publisher and readers.
    wait_until(
        lambda: (
            "physics_sim" in endpoints("/sim/ground_truth", True)
            and "perception" in endpoints("/scene/objects", True)
            and {"planner", "affordance_server"} <= endpoints("/scene/objects", False)
        ),
        300,
        "the physics graph's endpoints",
    )
    assert endpoints("/scene/objects", True) == {"perception"}
    assert not endpoints("/sim/ground_truth", False) & PLANNER_SIDE
    missing = undocumented(ros_graph, ["physics_sim", "perception"])
    assert not missing, f"names the live graph has and {ARCHITECTURE} lacks: {missing}"

    wait_until(lambda: demo.returncode is not None, 480, "`llm-planner demo --sim physics` to finish")
    node_logs = "\n".join(f"--- {path.name}\n{path.read_text()}" for path in sorted(logs.glob("*.log")))
    assert demo.returncode == 0, f"{demo.log()}\n{node_logs}"
    output = demo.log()
    assert "looked at the far counter" in output and "simulator reset" in output, output
    assert "episode fetch goal holds" in output, output
    assert "picked up by the robot: out of the scene" in (logs / "perception.log").read_text()

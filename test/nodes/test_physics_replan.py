"""The planner re-plans when the scene changes mid-plan in the physics simulation (PHYSICS_GRAPH).

The physics graph runs with the planner's ``require_confirmation``; the test's ConfirmPlan server, asked
about the first step, resets physics_sim to a changed scene (``sim/load_episode``: someone moved the
coke from the far counter to the close counter) before it approves. The first plan's "go to the far
counter" then drives there in the physics, and before its "pick up the coke" the plan loop sees the coke
gone from where the plan needs it: LLM-Planner re-plans from the current world and the physics executes
the new plan (the pick closes the gripper around the coke at the close counter). The model is replayed from
a recording made offline by the same planner over a SimulatedEnvironment changed at the same point.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import load_episode, write_episode
from language_model_doubles import ScriptedModel
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from replayed_planner_graph import execute_instruction, wait_for_affordance_state
from ros_harness import RosGraph, ros_graph

from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan
from llm_planner_ros.bringup.graphs import PHYSICS_GRAPH
from llm_planner_ros.domain import load_domain_files
from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.llm.replay import ReplayLanguageModel
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.planning.plan_loop import EndReason, PlanHooks, run_plan
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.ros.topics import CONFIRM_SERVICE

pytestmark = [pytest.mark.graph, pytest.mark.model, pytest.mark.timeout(300)]

INSTRUCTION = "Pick up the coke."
BEFORE = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}
AFTER = {**BEFORE, "objects": [{**BEFORE["objects"][0], "at": "close counter"}]}
PLANS = ["go to the far counter, pick up the coke, done", "find a coke, pick up the coke, done"]
# As fast as the CPU allows, tiny images at a low rate: the cameras are not what this test is about.
FAST_SIM = {"real_time_factor": 0.0, "image_width": 64, "image_height": 48, "camera_rate_hz": 1.0}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "llm_planner.jsonl"
    kitchen = load_domain_files()
    model = ReplayLanguageModel(path, ScriptedModel([[plan] for plan in PLANS]))
    resources = PlannerResources(model, kitchen, lambda: load_embedder({}), load_planner_options())
    env = SimulatedEnvironment(kitchen.world(BEFORE))

    def move_the_coke_first(record: StepRecord) -> tuple[bool, str]:
        if record.index == 0:
            env.world = kitchen.world(AFTER)
        return True, "approved"

    result = run_plan(
        build_planner("llm_planner", resources), INSTRUCTION, env, 12, PlanHooks(confirm=move_the_coke_first)
    )
    assert result.reason == EndReason.DONE and len(result.replans) == 1, (result.message, result.replans)
    return path


@pytest.fixture
def graph(tmp_path: Path, recording: Path) -> Iterator[RosGraph]:
    before = write_episode(tmp_path / "before.yaml", "before", BEFORE)
    replay = {
        "llm_mode": "in_process",
        "llm.backend": "replay",
        "llm.recording": str(recording),
        "planner": "llm_planner",
        "require_confirmation": True,
    }
    with ros_graph(tmp_path / "graph") as graph:
        for spec in PHYSICS_GRAPH:
            if spec.executable == "llm_service":
                continue  # the planner replays the recording in-process
            params: dict[str, object] = {}
            if spec.executable == "physics_sim":
                params = {**FAST_SIM, "episode_file": str(before), "episode_id": "before"}
            if spec.executable == "planner":
                params = replay
            graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
        graph.ping("planner")
        wait_for_affordance_state(graph)
        yield graph


def test_a_scene_changed_mid_plan_in_the_physics_is_replanned_and_executed(graph: RosGraph, tmp_path: Path) -> None:
    after = write_episode(tmp_path / "after.yaml", "after", AFTER)
    asked: list[int] = []

    def confirm(request: ConfirmPlan.Request, response: ConfirmPlan.Response) -> ConfirmPlan.Response:
        # Its own callback group: the episode load below is answered through the node's default group.
        if not asked:
            loaded = load_episode(graph, after)
            assert loaded.success, loaded.message
        asked.append(request.steps[0].index)
        response.approved = True
        return response

    service = graph.node.create_service(
        ConfirmPlan, f"/{CONFIRM_SERVICE}", confirm, callback_group=MutuallyExclusiveCallbackGroup()
    )
    try:
        response = execute_instruction(graph, INSTRUCTION)
    finally:
        graph.node.destroy_service(service)
    steps = [(step.skill, step.status, step.message) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, steps, graph.logs())
    assert [(skill, status) for skill, status, _ in steps] == [
        ("go to the far counter", PlanStep.STATUS_SUCCEEDED),
        *((skill, PlanStep.STATUS_SUCCEEDED) for skill in PLANS[1].split(", ")),
    ]
    assert steps[1][2].startswith(
        "re-planned: scene changed (coke_1 (coke) moved far counter -> close counter): the plan can no longer go on"
    ), steps[1]
    assert "grasped" in steps[2][2] or "stow" in steps[2][2], steps[2]  # the pick ran in the physics
    assert "1 re-plan(s) on scene changes" in response.result.message

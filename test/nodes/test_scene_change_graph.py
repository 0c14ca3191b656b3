"""planner re-plans when the simulated scene changes mid-plan: LLM-Planner, its model replayed.

The sim graph runs with ``require_confirmation``; the test's ConfirmPlan server, asked about the first
step, loads a changed scene into sim_world (someone moved the coke from the far counter to the
close counter) before it approves. The first plan's "go to the far counter" then runs, and before its
"pick up the coke" the plan loop sees the coke gone from where the plan needs it: LLM-Planner re-plans
from the current world, and the result's next step says so. The recording is made offline by the same
planner over a SimulatedEnvironment changed at the same point; a re-plan prompt that differed in any
character would find no recorded answer and abort the goal.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import load_episode, write_episode
from language_model_doubles import ScriptedModel
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from replayed_planner_graph import execute_instruction, start_replay_planner, wait_for_affordance_state
from ros_harness import RosGraph, ros_graph

from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan
from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.domain import load_domain_files
from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.llm.replay import ReplayLanguageModel
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.planning.plan_loop import EndReason, PlanHooks, run_plan
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.ros.topics import CONFIRM_SERVICE

pytestmark = [pytest.mark.graph, pytest.mark.model]

INSTRUCTION = "Bring me the coke, please."
BEFORE = {
    "robot": {"at": "table", "holding": None},
    "objects": [
        {"id": "coke_1", "label": "coke", "at": "far counter"},
        {"id": "apple_1", "label": "apple", "at": "table"},
    ],
}
AFTER = {**BEFORE, "objects": [{**BEFORE["objects"][0], "at": "close counter"}, BEFORE["objects"][1]]}
PLANS = [
    "go to the far counter, pick up the coke, bring it to you, put down the coke, done",
    "find a coke, pick up the coke, bring it to you, put down the coke, done",
]


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

    hooks = PlanHooks(confirm=move_the_coke_first)
    result = run_plan(build_planner("llm_planner", resources), INSTRUCTION, env, 12, hooks)
    assert result.reason == EndReason.DONE and len(result.replans) == 1, (result.message, result.replans)
    return path


@pytest.fixture
def graph(tmp_path: Path, recording: Path) -> Iterator[RosGraph]:
    with ros_graph(tmp_path / "graph") as graph:
        for spec in SIM_GRAPH:
            if spec.executable in ("planner", "llm_service"):
                continue
            params = {"time_scale": 0.05} if spec.executable == "sim_world" else {}
            graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
        assert load_episode(graph, write_episode(tmp_path / "before.yaml", "before", BEFORE)).success
        wait_for_affordance_state(graph)
        start_replay_planner(graph, recording, planner="llm_planner", require_confirmation=True)
        yield graph


def test_a_scene_changed_mid_plan_is_replanned_and_the_result_says_why(graph: RosGraph, tmp_path: Path) -> None:
    after = write_episode(tmp_path / "after.yaml", "after", AFTER)
    asked: list[int] = []

    def confirm(request: ConfirmPlan.Request, response: ConfirmPlan.Response) -> ConfirmPlan.Response:
        # Its own callback group: the episode load below is answered through the node's default group.
        index = request.steps[0].index
        if not asked:
            loaded = load_episode(graph, after)
            assert loaded.success, loaded.message
        asked.append(index)
        response.approved = True
        return response

    service = graph.node.create_service(
        ConfirmPlan, f"/{CONFIRM_SERVICE}", confirm, callback_group=MutuallyExclusiveCallbackGroup()
    )
    try:
        response = execute_instruction(graph, INSTRUCTION)
    finally:
        graph.node.destroy_service(service)
    executed = [(step.skill, step.status) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, executed, graph.logs())
    assert executed == [("go to the far counter", PlanStep.STATUS_SUCCEEDED)] + [
        (skill, PlanStep.STATUS_SUCCEEDED) for skill in PLANS[1].split(", ")
    ]
    assert response.result.executed[1].message.startswith(
        "re-planned: scene changed (coke_1 (coke) moved far counter -> close counter): the plan can no longer go on"
    )
    assert "1 re-plan(s) on scene changes" in response.result.message
    assert asked[0] == 0

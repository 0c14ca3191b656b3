"""LLM-Planner in planner_node on the simulated kitchen graph, with a replayed model: a subgoal fails in the
executor, and the node re-plans with the completed subgoals and the objects on /scene/objects.

The recording is made offline by the same planner over a SimulatedEnvironment of the same episode, its
model a scripted one wrapped by the replay backend in record mode. The node then replays it: a re-plan
prompt that differed in any character (completed subgoals, perceived objects, retrieved examples)
would find no recorded answer and abort the goal, so success shows the node re-planned exactly so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from doubles import ScriptedModel

from kitchen_sim import load_kitchen
from kitchen_sim.topics import LOAD_EPISODE_SERVICE
from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.bringup import SIM_GRAPH
from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.llm.replay import ReplayLanguageModel
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from ros_harness import RosGraph, ros_graph, wait_future

pytestmark = [pytest.mark.graph, pytest.mark.model]

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}, {"id": "apple_1", "label": "apple", "at": "table"}],
}
PLANS = [
    # Wrong guess: the coke is not on the close counter, so the pick fails in the executor.
    "go to the close counter, pick up the coke, bring it to you, put down the coke, done",
    "find a coke, pick up the coke, bring it to you, put down the coke, done",
]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "llm_planner.jsonl"
    kitchen = load_kitchen()
    model = ReplayLanguageModel(path, ScriptedModel([[plan] for plan in PLANS]))
    resources = PlannerResources(model, kitchen, lambda: load_embedder({}), load_planner_options())
    result = run_plan(build_planner("llm_planner", resources), INSTRUCTION, SimulatedEnvironment(kitchen.world(INITIAL)), 12)
    assert result.reason == EndReason.DONE, result.message
    return path


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, recording: Path) -> Iterator[RosGraph]:
    episodes = tmp_path_factory.mktemp("episodes") / "episodes.yaml"
    episodes.write_text(json.dumps({"world": "saycan_kitchen", "episodes": [
        {"id": "coke-far", "family": "test", "instruction": INSTRUCTION, "initial": INITIAL,
         "goal": {"at": {"label": "coke", "location": "user"}}}]}))
    with ros_graph(tmp_path_factory.mktemp("graph")) as graph:
        for spec in SIM_GRAPH:
            if spec.executable == "llm_service_node":
                continue
            params: dict[str, object] = {"time_scale": 0.05} if spec.executable == "sim_world_node" else {}
            if spec.executable == "planner_node":
                params = {"llm_mode": "in_process", "llm.backend": "replay", "llm.recording": str(recording),
                          "planner": "llm_planner"}
            graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
        graph.ping(next(spec.name for spec in SIM_GRAPH if spec.executable == "planner_node"))
        load = graph.service_client(LoadEpisode, LOAD_EPISODE_SERVICE)
        reply = wait_future(load.call_async(LoadEpisode.Request(episode_file=str(episodes), episode_id="coke-far")))
        assert reply.success, reply.message
        yield graph


def test_a_failed_subgoal_is_replanned_with_completed_subgoals_and_perceived_objects(
    graph: RosGraph, recording: Path
) -> None:
    client = graph.action_client(ExecuteInstruction, "/llm_planner/execute_instruction", timeout=60)
    handle = wait_future(client.send_goal_async(ExecuteInstruction.Goal(instruction=INSTRUCTION)), what="goal response")
    assert handle.accepted
    response = wait_future(handle.get_result_async(), timeout=240, what="planner result")
    executed = [(step.skill, step.status) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, executed, graph.logs())
    assert executed[:2] == [("go to the close counter", PlanStep.STATUS_SUCCEEDED),
                            ("pick up the coke", PlanStep.STATUS_FAILED)]
    assert executed[2:] == [(skill, PlanStep.STATUS_SUCCEEDED) for skill in PLANS[1].split(", ")]

    prompts = [json.loads(line)["request"]["prompt"] for line in recording.read_text().splitlines()]
    assert len(prompts) == 2
    assert prompts[1].endswith(
        f"Task description: {INSTRUCTION}\nCompleted plans: go to the close counter\n"
        "Visible objects are apple, coke\nNext plan:"
    )

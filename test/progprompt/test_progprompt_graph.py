"""ProgPrompt in planner_node on the simulated kitchen graph, with a replayed model: the node writes the
program prompt from the objects on /scene/objects, interprets the program step by step through the
affordance servers and executors, skips the infeasible first pick and runs the assert's recovery.

The recording is made offline by the same planner over a SimulatedEnvironment of the same scene, its
model the scripted one wrapped by the replay backend in record mode. A node prompt that differed in
any character (objects, examples, task header) would find no recorded answer and abort the goal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus

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

from .scripted_model import ScriptedModel

pytestmark = [pytest.mark.graph, pytest.mark.model]

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}, {"id": "apple_1", "label": "apple", "at": "table"}],
}
# Picks before finding: infeasible at the table, so the step is skipped and the assert recovers.
PROGRAM = """
    # 1: grab the coke
    pick_up('coke')
    assert(holding('coke'))
        else: find('coke')
        else: pick_up('coke')
    # 2: bring it to the user
    bring_it_to_you()
    put_down('coke')
"""


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "progprompt.jsonl"
    kitchen = load_kitchen()
    model = ReplayLanguageModel(path, ScriptedModel(PROGRAM))
    resources = PlannerResources(model, kitchen, lambda: load_embedder({}), load_planner_options())
    result = run_plan(build_planner("progprompt", resources), INSTRUCTION, SimulatedEnvironment(kitchen.world(INITIAL)), 12)
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
            params: dict[str, object] = {"time_scale": 0.0} if spec.executable == "sim_world_node" else {}
            if spec.executable == "planner_node":
                params = {"llm_mode": "in_process", "llm.backend": "replay", "llm.recording": str(recording),
                          "planner": "progprompt"}
            graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
        graph.ping(next(spec.name for spec in SIM_GRAPH if spec.executable == "planner_node"))
        load = graph.service_client(LoadEpisode, LOAD_EPISODE_SERVICE)
        reply = wait_future(load.call_async(LoadEpisode.Request(episode_file=str(episodes), episode_id="coke-far")))
        assert reply.success, reply.message
        yield graph


def test_the_node_interprets_the_program_skips_the_infeasible_pick_and_recovers(graph: RosGraph) -> None:
    client = graph.action_client(ExecuteInstruction, "/llm_planner/execute_instruction", timeout=60)
    handle = wait_future(client.send_goal_async(ExecuteInstruction.Goal(instruction=INSTRUCTION)), what="goal response")
    assert handle.accepted
    response = wait_future(handle.get_result_async(), timeout=240, what="planner result")
    executed = [(step.skill, step.status) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, executed, graph.logs())
    assert executed == [
        ("pick up the coke", PlanStep.STATUS_SKIPPED),
        ("find a coke", PlanStep.STATUS_SUCCEEDED),
        ("pick up the coke", PlanStep.STATUS_SUCCEEDED),
        ("bring it to you", PlanStep.STATUS_SUCCEEDED),
        ("put down the coke", PlanStep.STATUS_SUCCEEDED),
        ("done", PlanStep.STATUS_SUCCEEDED),
    ]
    skipped = response.result.executed[0]
    assert "infeasible" in skipped.message and "line 3" in skipped.message

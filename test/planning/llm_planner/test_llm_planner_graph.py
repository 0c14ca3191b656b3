"""LLM-Planner in planner on the simulated kitchen graph, with a replayed model: a subgoal fails in the
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
from language_model_doubles import ScriptedModel
from replayed_planner_graph import execute_instruction, record_plan, replaying_sim_graph
from ros_harness import RosGraph

from llm_planner_interfaces.msg import PlanStep

pytestmark = [pytest.mark.graph, pytest.mark.model]

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [
        {"id": "coke_1", "label": "coke", "at": "far counter"},
        {"id": "apple_1", "label": "apple", "at": "table"},
    ],
}
PLANS = [
    # Wrong guess: the coke is not on the close counter, so the pick fails in the executor.
    "go to the close counter, pick up the coke, bring it to you, put down the coke, done",
    "find a coke, pick up the coke, bring it to you, put down the coke, done",
]


GOAL = {"at": {"label": "coke", "location": "user"}}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "llm_planner.jsonl"
    return record_plan(path, "llm_planner", ScriptedModel([[plan] for plan in PLANS]), INSTRUCTION, INITIAL)


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, recording: Path) -> Iterator[RosGraph]:
    with replaying_sim_graph(
        tmp_path_factory.mktemp("work"), recording, "llm_planner", INSTRUCTION, INITIAL, GOAL, time_scale=0.05
    ) as graph:
        yield graph


def test_a_failed_subgoal_is_replanned_with_completed_subgoals_and_perceived_objects(
    graph: RosGraph, recording: Path
) -> None:
    response = execute_instruction(graph, INSTRUCTION)
    executed = [(step.skill, step.status) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, executed, graph.logs())
    assert executed[:2] == [
        ("go to the close counter", PlanStep.STATUS_SUCCEEDED),
        ("pick up the coke", PlanStep.STATUS_FAILED),
    ]
    assert executed[2:] == [(skill, PlanStep.STATUS_SUCCEEDED) for skill in PLANS[1].split(", ")]

    prompts = [json.loads(line)["request"]["prompt"] for line in recording.read_text().splitlines()]
    assert len(prompts) == 2
    # the scene line (config/planners.yaml: scene_context) is the world the node sees after the failure
    assert prompts[1].endswith(
        f"Task description: {INSTRUCTION}\nCompleted plans: go to the close counter\n"
        "Scene: robot at the close counter, holding nothing. close counter: nothing. far counter: coke. "
        "table: apple. trash can: nothing. you: nothing.\nVisible objects are apple, coke\nNext plan:"
    ), prompts[1]

"""ProgPrompt in planner on the simulated kitchen graph, with a replayed model: the node writes the
program prompt from the objects on /scene/objects, interprets the program step by step through the
affordance servers and executors, skips the infeasible first pick and runs the assert's recovery.

The recording is made offline by the same planner over a SimulatedEnvironment of the same scene, its
model the scripted one wrapped by the replay backend in record mode. A node prompt that differed in
any character (objects, examples, task header) would find no recorded answer and abort the goal.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from language_model_doubles import ProgramModel
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


GOAL = {"at": {"label": "coke", "location": "user"}}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "progprompt.jsonl"
    return record_plan(path, "progprompt", ProgramModel(PROGRAM), INSTRUCTION, INITIAL)


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, recording: Path) -> Iterator[RosGraph]:
    with replaying_sim_graph(
        tmp_path_factory.mktemp("work"), recording, "progprompt", INSTRUCTION, INITIAL, GOAL, time_scale=0.0
    ) as graph:
        yield graph


def test_the_node_interprets_the_program_skips_the_infeasible_pick_and_recovers(graph: RosGraph) -> None:
    response = execute_instruction(graph, INSTRUCTION)
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

"""`planner: saycanpay` in planner on the simulated kitchen graph, as a user selects it.

The Say model's answers are recorded offline (a scripted model preferring the next step of a fixed plan,
wrapped by the replay backend) and replayed by the node. In the kitchen, SayCanPay's Can and Pay are the
shipped kitchen models (data/saycanpay/kitchen_*.safetensors): the whole plan is made offline, then the
plan loop executes it through the executors.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from replayed_planner_graph import execute_instruction, record_plan, replaying_sim_graph
from ros_harness import RosGraph
from test_saycanpay_planner import ScriptedSay

from llm_planner_interfaces.msg import PlanStep

pytestmark = [pytest.mark.graph, pytest.mark.timeout(300)]

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [
        {"id": "coke_1", "label": "coke", "at": "far counter"},
        {"id": "apple_1", "label": "apple", "at": "table"},
    ],
}
GOAL = {"at": {"label": "coke", "location": "user"}}
PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "saycanpay.jsonl"
    scripted = ScriptedSay(lambda history: PLAN[min(len(history), len(PLAN) - 1)])
    return record_plan(path, "saycanpay", scripted, INSTRUCTION, INITIAL)


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, recording: Path) -> Iterator[RosGraph]:
    with replaying_sim_graph(
        tmp_path_factory.mktemp("work"), recording, "saycanpay", INSTRUCTION, INITIAL, GOAL, time_scale=0.05
    ) as graph:
        yield graph


def test_saycanpay_plans_offline_and_the_graph_executes_the_plan(graph: RosGraph) -> None:
    response = execute_instruction(graph, INSTRUCTION)
    executed = [(step.skill, step.status) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, executed, graph.logs())
    assert executed == [(skill, PlanStep.STATUS_SUCCEEDED) for skill in PLAN]

"""Holding back through the real graph: a stop request ends ``nothing_to_do`` and an absent object
``missing`` for every method, with no skill sent to an executor, and an ordinary request still runs.

The sim graph with planner (its packaged parameters: ``hold_back: true``, the shipped hold-back
model and the embedded sentence embedder) replaying SayCan's coke fetch; the held-back requests never
reach a method, so no recording is needed for them.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from replayed_planner_graph import (
    FETCH_GOAL,
    FETCH_INITIAL,
    FETCH_INSTRUCTION,
    FETCH_PLAN,
    record_fetch,
    replaying_sim_graph,
)
from ros_harness import RosGraph, wait_future

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_ros.processes import entry_point

pytestmark = [pytest.mark.graph, pytest.mark.model]

METHODS = ("saycan", "saycanpay", "progprompt", "zero_shot", "llm_planner")


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RosGraph]:
    work = tmp_path_factory.mktemp("hold-back")
    recording = record_fetch(work / "saycan.jsonl")
    with replaying_sim_graph(
        work, recording, "saycan", FETCH_INSTRUCTION, FETCH_INITIAL, FETCH_GOAL, 0.0, llm_service=True
    ) as graph:
        yield graph


def request(graph: RosGraph, instruction: str, planner: str) -> Any:
    client = graph.action_client(ExecuteInstruction, "/llm_planner/execute_instruction", timeout=60)
    goal = ExecuteInstruction.Goal(instruction=instruction, planner=planner)
    handle = wait_future(client.send_goal_async(goal), what="goal response")
    assert handle.accepted
    return wait_future(handle.get_result_async(), timeout=240, what="planner result")


def executed_skills(graph: RosGraph) -> list[str]:
    """The skills the executors' own logs say they ran."""
    return [
        line
        for process in graph.processes
        if "executor" in Path(process.log_path).name
        for line in process.log().splitlines()
        if "executing '" in line
    ]


@pytest.mark.parametrize("method", METHODS)
def test_stop_never_mind_and_an_absent_object_send_nothing_to_the_executors(graph: RosGraph, method: str) -> None:
    for instruction in ("Stop.", "never mind"):
        response = request(graph, instruction, method)
        assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
        assert response.result.message.startswith("nothing_to_do: "), response.result.message
        assert not response.result.success and list(response.result.executed) == []
    response = request(graph, "Bring me a banana.", method)
    assert response.status == GoalStatus.STATUS_ABORTED
    assert response.result.message.startswith("missing: not in the scene: banana (seen: coke)"), response.result.message
    assert list(response.result.executed) == []
    assert executed_skills(graph) == [], graph.logs()


def test_llm_planner_run_says_nothing_to_do_and_exits_0(graph: RosGraph, tmp_path: Path) -> None:
    """A user's `llm-planner run "Never mind."`: served as asked, so exit 0, the ending named, no skill."""
    out = tmp_path / "outcome.json"
    argv = [entry_point("llm-planner"), "run", "Never mind.", "--planner", "zero_shot", "--json", str(out)]
    completed = subprocess.run(argv, env={**graph.env, "COLUMNS": "200"}, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "nothing to do (succeeded, no skill run): nothing_to_do: 'Never mind.' asks for nothing" in completed.stdout
    outcome = json.loads(out.read_text())
    assert (outcome["ending"], outcome["success"], outcome["steps"]) == ("nothing_to_do", False, [])


def test_an_ordinary_request_still_runs_after_the_held_back_ones(graph: RosGraph) -> None:
    response = request(graph, FETCH_INSTRUCTION, "saycan")
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    assert response.result.success and response.result.message.startswith("done: ")
    assert [step.skill for step in response.result.executed] == FETCH_PLAN
    assert len(executed_skills(graph)) == len(FETCH_PLAN) - 1  # every skill but done reached an executor

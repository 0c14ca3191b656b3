"""Instructions that must not be planned as sent, through a real planner on the simulated kitchen graph.

A request for an object the scene lacks is refused, asked about (a ConfirmPlan server of the test) or
planned with a warning, as ``missing_objects`` says; a control character is refused with its position,
while a line break reads as a space; ProgPrompt halts a loop of asserts at ``max_checks_per_step``.
The planner replays ProgPrompt programs recorded offline (a scripted model), so a prompt that differs
in any character from the recorded one (an instruction not normalised) finds no answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_msgs.msg import GoalStatus
from graph_helpers import load_episode, write_episode
from language_model_doubles import ProgramModel
from replayed_planner_graph import record_plan
from replayed_planner_graph import start_replay_planner as start_planner
from ros_harness import RosGraph, ros_graph, wait_future

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan
from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.planning.registry import load_planner_options

pytestmark = pytest.mark.graph

ACTION = "/llm_planner/execute_instruction"
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [
        {"id": "apple_1", "label": "apple", "at": "table"},
        {"id": "coke_1", "label": "coke", "at": "far counter"},
        {"id": "sponge_1", "label": "sponge", "at": "close counter"},
    ],
}
SEEN = "(seen: apple, coke, sponge)"
BANANA = "bring me the banana"
SPONGE = "bring me the sponge"
# What the scripted model writes for each instruction (the banana one substitutes the apple).
PROGRAMS = {
    BANANA: "\n    find('apple')\n    pick_up('apple')\n    bring_it_to_you()\n    put_down('apple')\n",
    SPONGE: "\n    find('sponge')\n    pick_up('sponge')\n    bring_it_to_you()\n    put_down('sponge')\n",
    # 16 asserts before the first call: within the default budget (recorded), over the node's 10 here.
    "find the apple": "\n    for _ in range(4):\n        for _ in range(4):\n            assert near('apple')\n"
    "    find('apple')\n",
}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "progprompt.jsonl"
    for instruction, program in PROGRAMS.items():
        record_plan(path, "progprompt", ProgramModel(program), instruction, INITIAL)
    return path


@pytest.fixture(scope="module")
def kitchen_graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RosGraph]:
    """The sim graph without planner and LLM service (each test starts its planner)."""
    with ros_graph(tmp_path_factory.mktemp("graph")) as graph:
        for spec in SIM_GRAPH:
            if spec.executable not in ("planner", "llm_service"):
                params = {"time_scale": 0.0} if spec.executable == "sim_world" else {}
                graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
        yield graph


@pytest.fixture
def graph(kitchen_graph: RosGraph, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[RosGraph]:
    """The module's graph with the scene reloaded; prints the logs and stops this test's planner after it."""
    reply = load_episode(kitchen_graph, write_episode(tmp_path / "scene.yaml", "scene", INITIAL), "scene")
    assert reply.success, reply.message
    started = len(kitchen_graph.processes)
    yield kitchen_graph
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print(kitchen_graph.logs())
    for process in kitchen_graph.processes[started:]:
        process.stop()
    del kitchen_graph.processes[started:]


def execute(graph: RosGraph, instruction: str) -> Any:
    """The final response (status, result) of one goal; bounded: the skills run at time_scale 0."""
    client = graph.action_client(ExecuteInstruction, ACTION, timeout=30)
    handle = wait_future(client.send_goal_async(ExecuteInstruction.Goal(instruction=instruction)), 30, "goal response")
    assert handle.accepted
    return wait_future(handle.get_result_async(), 60, "planner result")


def skills(response: Any) -> list[tuple[str, int]]:
    return [(step.skill, step.status) for step in response.result.executed]


def test_refuse_ends_a_request_for_an_absent_object_at_once(graph: RosGraph, recording: Path) -> None:
    start_planner(graph, recording)  # missing_objects: refuse, the default of config/planner.yaml
    response = execute(graph, BANANA)
    assert response.status == GoalStatus.STATUS_ABORTED and not response.result.executed, skills(response)
    assert response.result.message.startswith(f"missing: not in the scene: banana {SEEN}: ")


def test_warn_plans_and_says_which_named_object_was_absent(graph: RosGraph, recording: Path) -> None:
    start_planner(graph, recording, missing_objects="warn")
    response = execute(graph, BANANA)
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, skills(response))
    assert ("put down the apple", PlanStep.STATUS_SUCCEEDED) in skills(response)
    assert response.result.message.endswith(f"; planned anyway, not in the scene: banana {SEEN}; banana: not found")


def test_confirm_asks_for_a_substitute_and_a_refusal_ends_the_goal(graph: RosGraph, recording: Path) -> None:
    asked: list[ConfirmPlan.Request] = []
    answers = iter([(False, "bring nothing else"), (True, "the apple will do")])

    def confirm(request: ConfirmPlan.Request, response: ConfirmPlan.Response) -> ConfirmPlan.Response:
        asked.append(request)
        response.approved, response.reason = next(answers)
        return response

    service = graph.node.create_service(ConfirmPlan, "/llm_planner/confirm", confirm)
    try:
        start_planner(graph, recording, missing_objects="confirm")
        refused = execute(graph, BANANA)
        approved = execute(graph, BANANA)
    finally:
        graph.node.destroy_service(service)
    question = f"not in the scene: banana {SEEN}: go ahead with a substitute?"
    assert [(request.instruction, [step.message for step in request.steps]) for request in asked] == [
        (BANANA, [question]),
        (BANANA, [question]),
    ]
    assert refused.status == GoalStatus.STATUS_ABORTED and not refused.result.executed
    assert refused.result.message == (
        f"refused: not in the scene: banana {SEEN}; a substitute was not approved: bring nothing else"
    )
    assert approved.status == GoalStatus.STATUS_SUCCEEDED, (approved.result.message, skills(approved))
    assert approved.result.message.endswith(
        f"; a substitute was approved, not in the scene: banana {SEEN}; banana: not found"
    )


def test_a_control_character_is_refused_with_its_position_and_a_line_break_reads_as_a_space(
    graph: RosGraph, recording: Path
) -> None:
    start_planner(graph, recording)
    bell = execute(graph, "bring me\athe sponge")
    assert bell.status == GoalStatus.STATUS_ABORTED and not bell.result.executed
    assert bell.result.message.startswith(
        "error: the instruction has the control character U+0007 ('\\x07') at position 9: remove it"
    )
    newline = execute(graph, "bring me\nthe sponge")
    assert newline.status == GoalStatus.STATUS_SUCCEEDED, (newline.result.message, skills(newline))
    assert skills(newline)[-2:] == [
        ("put down the sponge", PlanStep.STATUS_SUCCEEDED),
        ("done", PlanStep.STATUS_SUCCEEDED),
    ]


def test_progprompt_halts_a_loop_of_asserts_at_the_nodes_check_budget(
    graph: RosGraph, recording: Path, tmp_path: Path
) -> None:
    planners = tmp_path / "planners.yaml"
    # the shipped section (the prompt the recording was made with) with a smaller check budget
    section = {**load_planner_options()["progprompt"], "max_checks_per_step": 10}
    planners.write_text(yaml.safe_dump({"progprompt": section}))
    start_planner(graph, recording, planners_file=str(planners))
    response = execute(graph, "find the apple")
    assert response.status == GoalStatus.STATUS_ABORTED and not response.result.executed, response.result.message
    assert response.result.message == (
        "no_candidate: the program stopped: line 4: more than 10 checks without a "
        "skill call (option max_checks_per_step of config/planners.yaml's progprompt "
        "section); apple: table (found, not moved)"
    )

"""planner through a real graph: sim world, affordance server, executors, and the planner.

The kitchen nodes and llm_service start once per module; each test starts its own planner (with
the parameters it needs) in the same ROS domain and resets the world with /sim/load_episode. The
language model is the embedded SmolLM2, served by llm_service as in the sim graph (loading it once
per module rather than in each planner), with SayCan as the paper runs it
(test/data/saycan_paper_planners.yaml; scoring is deterministic: for the coke episode the first step
is "find a coke"); these tests check the node's mechanics and gates, not plan quality.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from repo_paths import TEST_DATA
from ros_harness import NodeProcess, RosGraph, ros_graph, stop_all, wait_future, wait_until
from std_msgs.msg import Bool
from visualization_msgs.msg import Marker, MarkerArray

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan, LoadEpisode
from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.ros.topics import LOAD_EPISODE_SERVICE

pytestmark = pytest.mark.graph

ACTION = "/llm_planner/execute_instruction"
EPISODES = TEST_DATA / "sample_episodes.yaml"
PAPER_SAYCAN = TEST_DATA / "saycan_paper_planners.yaml"
PLANNER = next(spec for spec in SIM_GRAPH if spec.executable == "planner")


@pytest.fixture(scope="module")
def kitchen_graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RosGraph]:
    with ros_graph(tmp_path_factory.mktemp("graph")) as graph:
        for spec in SIM_GRAPH:
            if spec.executable == "planner":
                continue
            params = {"time_scale": 0.3} if spec.executable == "sim_world" else {}
            graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
        yield graph


@pytest.fixture
def graph(kitchen_graph: RosGraph, request: pytest.FixtureRequest) -> Iterator[RosGraph]:
    """The module's graph with the world reset to the coke episode; prints the logs if the test fails."""
    load = kitchen_graph.service_client(LoadEpisode, LOAD_EPISODE_SERVICE)
    reply = wait_future(load.call_async(LoadEpisode.Request(episode_file=str(EPISODES), episode_id="nl-verb-03")))
    assert reply.success, reply.message
    started = len(kitchen_graph.processes)
    yield kitchen_graph
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print(kitchen_graph.logs())
    stop_all(kitchen_graph.processes[started:])
    del kitchen_graph.processes[started:]


def start_planner(graph: RosGraph, **params: Any) -> NodeProcess:
    settings = {"llm_mode": "service", "server_wait_s": 60.0, "planners_file": str(PAPER_SAYCAN), **params}
    return graph.start_node("planner", params=settings, param_files=PLANNER.param_paths(), name=PLANNER.name)


def send(graph: RosGraph, instruction: str, feedback: list | None = None, **goal: Any):
    client = graph.action_client(ExecuteInstruction, ACTION, timeout=60)
    graph.ping(PLANNER.name)
    request = ExecuteInstruction.Goal(instruction=instruction, **goal)
    callback = (lambda msg: feedback.append(msg.feedback)) if feedback is not None else None
    handle = wait_future(client.send_goal_async(request, feedback_callback=callback), timeout=60, what="goal response")
    assert handle.accepted
    return handle


def result_of(handle, timeout: float = 120.0):
    return wait_future(handle.get_result_async(), timeout=timeout, what="planner result")


def executor_logs(graph: RosGraph) -> str:
    return "".join(p.log() for p in graph.processes if "executor" in p.log_path.name)


def test_feedback_and_scores_carry_the_candidate_table(graph: RosGraph) -> None:
    start_planner(graph)
    published: list[PlanStep] = []
    markers: list[MarkerArray] = []
    graph.node.create_subscription(PlanStep, "/llm_planner/scores", published.append, 10)
    graph.node.create_subscription(MarkerArray, "/llm_planner/markers", markers.append, 10)
    feedback: list = []
    response = result_of(send(graph, "bring me a coke", feedback, max_steps=3, plan_only=True))
    assert response.status in (GoalStatus.STATUS_SUCCEEDED, GoalStatus.STATUS_ABORTED)
    assert response.result.executed, response.result.message
    first = feedback[0].current
    assert len(first.candidates) == 5 and first.skill == first.candidates[0].skill
    assert all(0.0 <= c.affordance <= 1.0 and c.llm <= 0.0 for c in first.candidates)
    assert all(math.isclose(c.combined, math.exp(c.llm) * c.affordance, rel_tol=1e-9) for c in first.candidates)
    combined = [c.combined for c in first.candidates]
    assert combined == sorted(combined, reverse=True)
    assert first.planning_time > 0.0 and "robot: at table" in feedback[0].state_summary
    wait_until(lambda: len(published) >= len(response.result.executed), what="score tables on /llm_planner/scores")
    assert {s.skill for s in published} >= {s.skill for s in response.result.executed}
    wait_until(lambda: bool(markers), what="RViz markers on /llm_planner/markers")
    text = markers[0].markers[0]
    assert text.type == Marker.TEXT_VIEW_FACING and text.header.frame_id == "map"
    assert text.text.startswith(f"1. {first.skill}") and first.candidates[1].skill in text.text


def test_plan_only_dispatches_nothing(graph: RosGraph) -> None:
    start_planner(graph)
    before = len(executor_logs(graph))
    response = result_of(send(graph, "bring me a coke", max_steps=4, plan_only=True))
    moved = [s for s in response.result.executed if s.status == PlanStep.STATUS_SUCCEEDED and s.skill != "done"]
    assert moved, "the plan should have simulated at least one skill"
    assert "executing" not in executor_logs(graph)[before:]


def test_cancel_stops_the_running_skill(graph: RosGraph) -> None:
    start_planner(graph)
    feedback: list = []
    handle = send(graph, "bring me a coke", feedback, max_steps=5)
    wait_until(
        lambda: any(f.current.status == PlanStep.STATUS_RUNNING for f in feedback), timeout=180, what="a running step"
    )
    wait_future(handle.cancel_goal_async(), what="cancel")
    response = result_of(handle, timeout=30)
    assert response.status == GoalStatus.STATUS_CANCELED
    assert "canceled by the client" in response.result.message
    assert response.result.executed[-1].status == PlanStep.STATUS_CANCELED


def test_estop_aborts_the_goal(graph: RosGraph) -> None:
    start_planner(graph)
    stop = graph.node.create_publisher(Bool, "/llm_planner/stop", 10)
    feedback: list = []
    handle = send(graph, "bring me a coke", feedback, max_steps=5)
    wait_until(
        lambda: any(f.current.status == PlanStep.STATUS_RUNNING for f in feedback), timeout=180, what="a running step"
    )
    stop.publish(Bool(data=True))
    response = result_of(handle, timeout=30)
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "e-stop" in response.result.message


@pytest.mark.parametrize("answer", ["refuse", "silent"])
def test_confirmation_refused_or_unanswered_aborts_before_dispatch(graph: RosGraph, answer: str) -> None:
    asked: list[ConfirmPlan.Request] = []

    def confirm(request: ConfirmPlan.Request, response: ConfirmPlan.Response) -> ConfirmPlan.Response:
        asked.append(request)
        response.approved = False
        response.reason = "operator said no"
        return response

    service = graph.node.create_service(ConfirmPlan, "/llm_planner/confirm", confirm) if answer == "refuse" else None
    start_planner(graph, require_confirmation=True, confirm_timeout_s=2.0)
    try:
        response = result_of(send(graph, "bring me a coke", max_steps=5))
    finally:
        if service is not None:
            graph.node.destroy_service(service)
    assert response.status == GoalStatus.STATUS_ABORTED
    assert response.result.message.startswith("refused")
    assert [s.status for s in response.result.executed] == [PlanStep.STATUS_SKIPPED]
    if answer == "refuse":
        assert "operator said no" in response.result.message
        assert (
            asked[0].instruction == "bring me a coke" and asked[0].steps[0].skill == response.result.executed[0].skill
        )
    else:
        assert "/llm_planner/confirm" in response.result.message


def test_skill_outside_the_allow_list_is_never_dispatched(graph: RosGraph) -> None:
    start_planner(graph, allowed_skills=["done"])
    before = len(executor_logs(graph))
    response = result_of(send(graph, "bring me a coke", max_steps=5))
    assert response.status == GoalStatus.STATUS_ABORTED and response.result.message.startswith("not_allowed")
    (step,) = response.result.executed
    assert step.skill != "done" and step.status == PlanStep.STATUS_SKIPPED
    assert "executing" not in executor_logs(graph)[before:]


def test_second_goal_while_busy_is_refused_with_a_reason(graph: RosGraph) -> None:
    start_planner(graph)
    feedback: list = []
    first = send(graph, "bring me a coke", feedback, max_steps=3)
    wait_until(lambda: bool(feedback), timeout=180, what="the first goal to start")
    second = result_of(send(graph, "throw away the apple"), timeout=10)
    assert second.status == GoalStatus.STATUS_ABORTED and "busy" in second.result.message
    assert result_of(first).result.executed


@pytest.mark.parametrize("instruction, expected", [("   ", "empty"), ("x" * 10_000, "10000 characters")])
def test_malformed_instructions_end_with_a_reason(graph: RosGraph, instruction: str, expected: str) -> None:
    start_planner(graph)
    response = result_of(send(graph, instruction), timeout=10)
    assert response.status == GoalStatus.STATUS_ABORTED and expected in response.result.message
    assert not response.result.executed


def test_missing_llm_service_aborts_with_the_fix(graph: RosGraph) -> None:
    graph.start_node(
        "planner",
        # The module's llm_service serves /llm/score: this planner looks for it in a namespace with none.
        params={
            "llm_mode": "service",
            "llm_namespace": "/nowhere",
            "server_wait_s": 2.0,
            "planners_file": str(PAPER_SAYCAN),
        },
        param_files=PLANNER.param_paths(),
        name=PLANNER.name,
    )
    response = result_of(send(graph, "bring me a coke"), timeout=30)
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "/llm/score" in response.result.message and "llm_service" in response.result.message

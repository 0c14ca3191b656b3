"""planner when a node it depends on is stopped mid-plan (and restarted): the goal ends with an ERROR
that names the lost server within the grace period (server_lost_s), its result lists every step executed
with the outcome the world shows, and the next goal works once the node is back, with the same planner.

SayCan plans (it asks the LLM service and the affordance servers at every step); its language model is
llm_service replaying a recording made offline (test/support/replayed_planner_graph.py). The simulator runs
at time_scale 0.5: "find a coke" takes 4.5 s and the pick 3 s, time to stop a node while a skill runs.
The last test drives RosEnvironment itself against the simulator and a real executor: a skill that
outlives executor_timeout_s is canceled and its outcome read back from the world state.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import WorldWatcher, load_episode, write_episode
from language_model_doubles import PreferringModel
from rclpy.callback_groups import ReentrantCallbackGroup
from replayed_planner_graph import load_scene, record_plan, replaying_sim_graph
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.action import EvaluateAffordance, ExecuteInstruction, ExecuteSkill
from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ScoreCompletions
from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.domain import Domain
from llm_planner_ros.processes import NodeProcess
from llm_planner_ros.ros.ros_environment import ActionClients, RosEnvironment
from llm_planner_ros.ros.topic_state_provider import TopicStateProvider
from llm_planner_ros.ros.topics import ROBOT_STATE_TOPIC, SCENE_TOPIC

SERVER_LOST_S = 3.0  # config/planner.yaml
# A loaded machine's delay on top of the grace. The waits these tests guard against are server_wait_s
# (raised to 60 s here, so a regression to it cannot pass) and executor_timeout_s (120 s).
SLACK_S = 12.0
WAIT_S = 60.0
INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [
        {"id": "coke_1", "label": "coke", "at": "far counter"},
        {"id": "apple_1", "label": "apple", "at": "table"},
    ],
}
PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]


class Steps:
    """The feedback of one goal: every step report and when it arrived."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reports: list[tuple[float, str, int]] = []

    def on_feedback(self, msg: Any) -> None:
        with self._lock:
            self._reports.append((time.monotonic(), msg.feedback.current.skill, msg.feedback.current.status))

    def wait(self, skill: str, status: int, timeout: float = 30.0) -> float:
        """When ``skill`` was first reported with ``status``, waiting for it."""

        def first() -> float | None:
            with self._lock:
                return next((at for at, text, state in self._reports if (text, state) == (skill, status)), None)

        wait_until(lambda: first() is not None, timeout, f"step {skill!r} reported with status {status}")
        return first()  # type: ignore[return-value]


def send(graph: RosGraph, steps: Steps | None = None) -> Any:
    """Send the instruction; the goal handle."""
    client = graph.action_client(ExecuteInstruction, "/llm_planner/execute_instruction", timeout=60)
    goal = ExecuteInstruction.Goal(instruction=INSTRUCTION)
    handle = wait_future(
        client.send_goal_async(goal, feedback_callback=steps.on_feedback if steps else None), what="goal response"
    )
    assert handle.accepted
    return handle


def result_of(handle: Any, timeout: float) -> tuple[Any, float]:
    """The goal's final response and when it arrived."""
    return wait_future(handle.get_result_async(), timeout=timeout, what="planner result"), time.monotonic()


def executed(response: Any) -> list[tuple[str, int]]:
    return [(step.skill, step.status) for step in response.result.executed]


# These tests bound the planner's reaction to a stopped node while six node processes share two cores.
# The bounds were the grace plus 5 s, and one loaded run in a few missed one (it carried a rerun); they
# are now the grace plus SLACK_S, still far below the waits a regression would fall back to.
pytestmark = pytest.mark.graph


def process_of(graph: RosGraph, node: str) -> NodeProcess:
    """The running process of ``node`` (the harness names each log after its node)."""
    return next(p for p in graph.processes if p.log_path.name.startswith(f"{node}-") and p.returncode is None)


def restart(graph: RosGraph, executable: str, **params: object) -> None:
    spec = next(spec for spec in SIM_GRAPH if spec.executable == executable)
    graph.start_node(executable, params=params, param_files=spec.param_paths(), name=spec.name)


def plans_again(graph: RosGraph, work: Path) -> None:
    """With the scene reloaded, the same instruction runs to done: the planner recovered from the fault."""
    load_scene(graph, work)
    response, _ = result_of(send(graph), timeout=60)
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, graph.logs())
    assert executed(response) == [(skill, PlanStep.STATUS_SUCCEEDED) for skill in PLAN]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "saycan.jsonl"
    return record_plan(path, "saycan", PreferringModel(PLAN), INSTRUCTION, INITIAL)


@pytest.fixture
def graph(tmp_path: Path, recording: Path, request: pytest.FixtureRequest) -> Iterator[RosGraph]:
    with replaying_sim_graph(
        tmp_path,
        recording,
        "saycan",
        INSTRUCTION,
        INITIAL,
        {"holding": None},
        time_scale=0.5,
        llm_service=True,
        planner_params={"server_wait_s": WAIT_S},
    ) as graph:
        yield graph
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(f"\n===== node logs =====\n{graph.logs()}")


@pytest.mark.timeout(120)
def test_llm_service_stopped_mid_plan_ends_the_goal_with_its_steps_and_a_restart_serves_the_next(
    graph: RosGraph, recording: Path, tmp_path: Path
) -> None:
    steps = Steps()
    handle = send(graph, steps)
    steps.wait("find a coke", PlanStep.STATUS_RUNNING)
    assert process_of(graph, "llm_service").stop() == 0
    found_at = steps.wait("find a coke", PlanStep.STATUS_SUCCEEDED)
    response, ended = result_of(handle, timeout=SERVER_LOST_S + 30)
    assert response.status == GoalStatus.STATUS_ABORTED
    assert response.result.message.startswith("error: ") and "/llm/score is gone" in response.result.message
    assert "start llm_service" in response.result.message
    assert executed(response) == [("find a coke", PlanStep.STATUS_SUCCEEDED)]
    assert ended - found_at < SERVER_LOST_S + SLACK_S

    restart(graph, "llm_service", backend="replay", recording=str(recording))
    graph.service_client(ScoreCompletions, "/llm/score")
    plans_again(graph, tmp_path)


@pytest.mark.timeout(120)
def test_executor_stopped_mid_pick_reads_the_outcome_back_and_dispatches_nothing_more(graph: RosGraph) -> None:
    watcher = WorldWatcher(graph)
    handle = send(graph)
    watcher.wait_robot("the pick under way", lambda robot: robot.busy == "pick up the coke", timeout=40)
    # A stopped executor first cancels the skill it runs (no motion outlives its executor), then leaves the
    # graph; the planner is timed from its exit.
    executor, exited = process_of(graph, "manipulator_executor"), []

    def stop() -> None:
        executor.stop()
        exited.append(time.monotonic())

    stopping = threading.Thread(target=stop)
    stopping.start()
    response, ended = result_of(handle, timeout=2 * SERVER_LOST_S + 40)
    stopping.join(timeout=30)
    assert response.status == GoalStatus.STATUS_ABORTED
    message = response.result.message
    # The executor ends its goal on the way down, saying so: the planner dispatches nothing more to it.
    assert "/executors/manipulator/execute_skill is shutting down (" in message, message
    assert "restart manipulator_executor" in message
    # The pick was stopped with its executor: the world shows it not done, and nothing ran after it.
    assert executed(response) == [
        ("find a coke", PlanStep.STATUS_SUCCEEDED),
        ("pick up the coke", PlanStep.STATUS_FAILED),
    ]
    assert "the world is unchanged: 'pick up the coke' did not take effect" in response.result.executed[1].message
    assert exited and ended - exited[0] < 2 * SERVER_LOST_S + SLACK_S
    robot = watcher.wait_robot("the robot idle", lambda robot: robot.busy is None)
    assert robot.holding is None and robot.at == "far counter"


@pytest.mark.timeout(120)
def test_affordance_server_stopped_mid_plan_ends_the_goal_quickly_and_a_restart_serves_the_next(
    graph: RosGraph, tmp_path: Path
) -> None:
    steps = Steps()
    handle = send(graph, steps)
    steps.wait("find a coke", PlanStep.STATUS_RUNNING)
    assert process_of(graph, "affordance_server").stop() == 0
    found_at = steps.wait("find a coke", PlanStep.STATUS_SUCCEEDED)
    response, ended = result_of(handle, timeout=SERVER_LOST_S + 30)
    assert response.status == GoalStatus.STATUS_ABORTED
    message = response.result.message
    assert message.startswith("error: action server /affordance/") and "not available after 3.0 s" in message, message
    assert "start affordance_server (llm-planner up" in message, message
    assert executed(response) == [("find a coke", PlanStep.STATUS_SUCCEEDED)]
    assert ended - found_at < SERVER_LOST_S + SLACK_S

    restart(graph, "affordance_server")
    graph.action_client(EvaluateAffordance, "/affordance/pick")
    plans_again(graph, tmp_path)


@pytest.mark.timeout(90)
def test_an_executor_timeout_cancels_the_skill_and_reads_its_outcome_back(
    ros_graph: RosGraph, kitchen: Domain, tmp_path: Path
) -> None:
    ros_graph.start_node("sim_world", params={"time_scale": 0.5})
    ros_graph.start_node("manipulator_executor")
    at_the_coke = {
        "robot": {"at": "far counter", "holding": None},
        "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
    }
    assert load_episode(ros_graph, write_episode(tmp_path / "episodes.yaml", "at-the-coke", at_the_coke)).success
    ros_graph.action_client(ExecuteSkill, "/executors/manipulator/execute_skill")
    state = TopicStateProvider(ros_graph.node, kitchen, SCENE_TOPIC, ROBOT_STATE_TOPIC, match_stamps=True)
    env = RosEnvironment(
        ros_graph.node,
        state,
        ActionClients(ros_graph.node, ReentrantCallbackGroup()),
        canceled=lambda: None,
        affordance_timeout_s=10.0,
        executor_timeout_s=1.0,
        server_wait_s=20.0,
        server_lost_s=SERVER_LOST_S,
        effect_wait_s=3.0,
    )
    wait_until(lambda: env.snapshot().robot_at == "far counter", what="the loaded scene")

    outcome = env.execute(env.snapshot().skill("pick up the coke"))  # the pick takes 3 s
    assert not outcome.success
    assert outcome.message.endswith(
        "did not answer within 1.0 s; the world is unchanged: 'pick up the coke' did not take effect"
    ), outcome.message
    assert env.snapshot().holding is None

"""SayCanPay's Can and Pay models over ROS: the ``saycanpay_scorer`` node, and planner calling it.

The scorer node is started as a user starts it (console script, its parameter file) and asked through
its ``ScorePlanActions`` service; its answers must be the in-process model's, in request order, and
its names must be in its row of docs/architecture.md's node table. In the
kitchen graph, planner runs ``planner: saycanpay`` with ``can_service``/``pay_service`` set and
model files that do not exist, so every Can and Pay value in its result came through the services. The
Say model is replayed from a recording made in-process with the same models standing in for the
services, so the node's plan must be the in-process plan, value for value.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_msgs.msg import GoalStatus
from node_table import ARCHITECTURE, undocumented
from replayed_planner_graph import execute_instruction, load_scene, replaying_sim_graph
from repo_paths import REPO_ROOT
from ros_harness import NodeProcess, RosGraph, wait_future, wait_until
from test_saycanpay_graph import GOAL, INITIAL, INSTRUCTION, PLAN
from test_saycanpay_planner import ScriptedSay

from affordance_servers import saycanpay_scorer_node
from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ScorePlanActions
from llm_planner_ros.babyai_domain.episodes import load_episodes
from llm_planner_ros.domain import load_domain_files
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.llm.replay import ReplayLanguageModel
from llm_planner_ros.paths import config_file
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult, run_plan
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.saycanpay.models import DOMAINS, KINDS, Scorer, load_scorer
from llm_planner_ros.planning.saycanpay.planner import DEFAULT_MODELS
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

EPISODE = next(iter(load_episodes(REPO_ROOT / "benchmarks" / "babyai" / "test-executable.txt")))
WEIGHTS = {kind: REPO_ROOT / DEFAULT_MODELS["babyai", kind] for kind in KINDS}
SCORER_FILE = config_file("saycanpay_scorer.yaml")
SERVICES = {kind: f"saycanpay/{kind}" for kind in KINDS}
START_S = 180.0  # a scorer node loads torch and the sentence encoder first: a minute on a loaded machine


def start_scorer(graph: RosGraph, kind: str, **params: Any) -> NodeProcess:
    """``saycanpay_scorer`` as config/saycanpay_scorer.yaml starts it for ``kind`` (node saycanpay_<kind>)."""
    return graph.start_node("saycanpay_scorer", params=params, param_files=[SCORER_FILE], name=f"saycanpay_{kind}")


def ask(client: Any, goal: str, state: str, history: Sequence[str], actions: Sequence[str]) -> Any:
    request = ScorePlanActions.Request(goal=goal, initial_state=state, history=list(history), actions=list(actions))
    return wait_future(client.call_async(request), what="ScorePlanActions response")


def test_the_node_offers_the_models_kinds_and_domains() -> None:
    assert (saycanpay_scorer_node.KINDS, saycanpay_scorer_node.DOMAINS) == (KINDS, DOMAINS)


@pytest.mark.parametrize("node", ["saycanpay_can", "saycanpay_pay"])
def test_parameter_file_names_exactly_the_declared_parameters(node: str) -> None:
    values = yaml.safe_load(SCORER_FILE.read_text())[node]["ros__parameters"]
    declared = saycanpay_scorer_node.PARAMETERS
    assert set(values) == set(declared)
    assert all(type(values[name]) is type(spec.default) for name, spec in declared.items()), values
    assert values["kind"] == node.removeprefix("saycanpay_")


@pytest.mark.graph
@pytest.mark.timeout(300)
def test_scorer_nodes_rate_a_batch_in_request_order_as_the_model_does(ros_graph: RosGraph, minilm: Embedder) -> None:
    history = list(EPISODE.plan[:2])
    actions = list(dict.fromkeys(EPISODE.plan))  # the oracle plan's distinct actions, feasible or not here
    for kind in KINDS:
        start_scorer(ros_graph, kind)
    for kind in KINDS:
        client = ros_graph.service_client(ScorePlanActions, f"/{SERVICES[kind]}", timeout=START_S)
        model = load_scorer(WEIGHTS[kind], kind, minilm)
        expected = dict(
            zip(actions, model.probabilities(EPISODE.goal, EPISODE.initial_state, history, actions), strict=True)
        )
        assert len({round(v, 3) for v in expected.values()}) > 1, "equal values would not show the order"
        for order in (actions, actions[::-1]):
            response = ask(client, EPISODE.goal, EPISODE.initial_state, history, order)
            assert response.success, response.message
            assert (response.kind, response.model) == (kind, WEIGHTS[kind].name)
            assert list(response.probabilities) == pytest.approx([expected[a] for a in order], abs=1e-5)
        refused = ask(client, EPISODE.goal, EPISODE.initial_state, history, [])
        assert not refused.success and "no actions" in refused.message, refused.message
        refused = ask(client, EPISODE.goal, EPISODE.initial_state, history, [actions[0], " "])
        assert not refused.success and "actions [1] are empty" in refused.message, refused.message
        assert list(refused.probabilities) == []
    missing = undocumented(ros_graph, [f"saycanpay_{kind}" for kind in KINDS])
    assert not missing, f"names the scorer nodes have and {ARCHITECTURE} lacks: {missing}"


@pytest.mark.graph
@pytest.mark.timeout(300)
def test_scorer_node_refuses_a_missing_or_mismatched_weight_file(ros_graph: RosGraph) -> None:
    cases = {  # weights_file given for kind can -> what the one fatal line says (both nodes start at once)
        str(WEIGHTS["pay"]): "holds a pay model, not a can model",
        "/nonexistent/can.safetensors": "can model not found at /nonexistent/can.safetensors",
    }
    processes = {weights: start_scorer(ros_graph, "can", weights_file=weights) for weights in cases}
    for weights, says in cases.items():
        process = processes[weights]
        wait_until(lambda p=process: p.returncode is not None, START_S, "saycanpay_scorer to exit")
        log = process.log()
        fatal = [line for line in log.splitlines() if "[FATAL]" in line]
        assert process.returncode == 1 and len(fatal) == 1 and "Traceback" not in log, log
        assert says in fatal[0] and "parameter weights_file" in fatal[0] and "train it with" in fatal[0], fatal[0]


# ----- planner with planner saycanpay calling the services, in the simulated kitchen ------------------


def served_planners_file(path: Path) -> Path:
    """config/planners.yaml with the saycanpay models asked of the services and every model file missing."""
    options = load_planner_options()
    section = options["saycanpay"]
    section |= {key: f"missing/{key}.safetensors" for key in section if key.endswith("_model")}
    section |= {f"{kind}_service": service for kind, service in SERVICES.items()}
    path.write_text(yaml.safe_dump(options))
    return path


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> tuple[Path, Path, PlanResult]:
    """(planners file, Say recording, the in-process plan): SayCanPay planned in-process with the shipped
    models standing in for the services the planners file names, its Say answers recorded."""
    work = tmp_path_factory.mktemp("offline")
    planners = served_planners_file(work / "planners.yaml")
    recording = work / "say.jsonl"
    asked: list[tuple[str, str]] = []

    def in_process(kind: str, service: str) -> Scorer:
        asked.append((kind, service))
        return load_scorer(WEIGHTS[kind], kind, minilm)

    kitchen = load_domain_files()
    scripted = ScriptedSay(lambda history: PLAN[min(len(history), len(PLAN) - 1)])
    resources = PlannerResources(
        ReplayLanguageModel(recording, scripted),
        kitchen,
        lambda: minilm,
        load_planner_options(planners),
        scorer_service=in_process,
    )
    result = run_plan(
        build_planner("saycanpay", resources), INSTRUCTION, SimulatedEnvironment(kitchen.world(INITIAL)), 12
    )
    assert sorted(asked) == sorted(SERVICES.items())
    assert result.reason == EndReason.DONE, result.message
    return planners, recording, result


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, offline: tuple[Path, Path, PlanResult]
) -> Iterator[tuple[RosGraph, Path, dict[str, NodeProcess]]]:
    """(graph, its work folder, the scorer processes): the sim graph, its planner asking the scorer nodes."""
    planners, recording, _ = offline
    work = tmp_path_factory.mktemp("served")
    params = {"planners_file": str(planners), "server_wait_s": 5.0, "server_lost_s": 2.0}
    scorers: dict[str, NodeProcess] = {}

    def start_scorers(graph: RosGraph) -> None:
        scorers.update({kind: start_scorer(graph, kind) for kind in KINDS})

    with replaying_sim_graph(
        work,
        recording,
        "saycanpay",
        INSTRUCTION,
        INITIAL,
        GOAL,
        time_scale=0.05,
        planner_params=params,
        start_more=start_scorers,
    ) as graph:
        for service in SERVICES.values():
            graph.service_client(ScorePlanActions, f"/{service}", timeout=START_S)
        yield graph, work, scorers


@pytest.mark.graph
@pytest.mark.timeout(540)
def test_planner_node_plans_with_the_served_can_and_pay_models(
    served: tuple[RosGraph, Path, dict[str, NodeProcess]], offline: tuple[Path, Path, PlanResult]
) -> None:
    graph, _, _ = served
    expected = offline[2]
    response = execute_instruction(graph, INSTRUCTION)
    steps = response.result.executed
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, graph.logs())
    assert [(s.skill, s.status) for s in steps] == [(r.skill.text, PlanStep.STATUS_SUCCEEDED) for r in expected.steps]
    for step, record in zip(steps, expected.steps, strict=True):
        assert [c.skill for c in step.candidates] == [c.skill.text for c in record.candidates]
        got = [value for c in step.candidates for value in (c.llm, c.affordance, c.pay)]
        want = [value for c in record.candidates for value in (c.llm, c.affordance, c.pay)]
        assert got == pytest.approx(want, abs=1e-5), step.skill
    # learned values, not the kitchen rules' 0/1 nor the neutral Pay 1.0: they came from the scorer nodes
    values = [(c.affordance, c.pay) for step in steps for c in step.candidates]
    assert any(0.0 < can < 1.0 for can, _ in values) and any(pay < 1.0 for _, pay in values), values


@pytest.mark.graph
@pytest.mark.timeout(180)
def test_a_stopped_scorer_ends_the_goal_with_an_error_naming_the_service(
    served: tuple[RosGraph, Path, dict[str, NodeProcess]],
) -> None:
    graph, work, scorers = served
    scorers["can"].stop()
    load_scene(graph, work)  # the recorded prompt is the initial scene's
    response = execute_instruction(graph, INSTRUCTION)
    message = response.result.message
    assert response.status == GoalStatus.STATUS_ABORTED, message
    assert message.startswith("error:") and "/saycanpay/can" in message, message
    assert "saycanpay_scorer" in message and "can_service" in message, message
    assert list(response.result.executed) == []


def test_a_service_option_outside_a_ros_node_names_the_fix() -> None:
    def no_embedder() -> Embedder:
        raise AssertionError("a served model needs no sentence encoder in the planner")

    resources = PlannerResources(
        ScriptedSay(lambda history: "done"),
        load_domain_files(),
        no_embedder,
        {"saycanpay": {"can_service": SERVICES["can"], "pay_service": SERVICES["pay"]}},
    )
    with pytest.raises(ValueError, match=r"can_service 'saycanpay/can' needs the planner node \(ROS\)"):
        build_planner("saycanpay", resources)

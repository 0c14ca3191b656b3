"""A planning method in planner on the simulated kitchen graph, its model replayed from a recording.

``record_plan`` makes the recording offline: the method plans the scene in a SimulatedEnvironment with a
scripted model wrapped by the replay backend in record mode. ``replaying_sim_graph`` starts the sim graph
with planner replaying it (in-process, or through llm_service with ``llm_service``), and loads
the scene as an episode; a node prompt that differed in any character from the offline one finds no
recorded answer and aborts the goal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from language_model_doubles import PreferringModel
from ros_harness import NodeProcess, RosGraph, ros_graph, wait_future, wait_until

from llm_planner_interfaces.action import EvaluateAffordance, ExecuteInstruction
from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.domain import Domain, load_domain_files
from llm_planner_ros.llm.base import LanguageModel
from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.llm.replay import ReplayLanguageModel
from llm_planner_ros.paths import config_file
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.ros.messages import skill_to_msg
from llm_planner_ros.ros.topics import LOAD_EPISODE_SERVICE

EPISODE_ID = "scene"

# The coke fetch the CLI's graph tests plan (llm-planner confirm, record): its request, scene, goal and
# the plan a scripted SayCan makes.
FETCH_INSTRUCTION = "Bring me the coke, please."
FETCH_INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}
FETCH_GOAL = {"at": {"label": "coke", "location": "user"}}
FETCH_PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]


def record_plan(
    path: Path,
    planner: str,
    scripted: LanguageModel,
    instruction: str,
    initial: Mapping[str, Any],
    max_steps: int = 12,
    kitchen: Domain | None = None,
) -> Path:
    """Plan ``instruction`` offline with ``planner`` over ``scripted`` in ``kitchen`` (None: the default
    domain), recording every model answer to ``path``."""
    kitchen = kitchen or load_domain_files()
    model = ReplayLanguageModel(path, scripted)
    resources = PlannerResources(model, kitchen, lambda: load_embedder({}), load_planner_options())
    result = run_plan(
        build_planner(planner, resources), instruction, SimulatedEnvironment(kitchen.world(initial)), max_steps
    )
    assert result.reason == EndReason.DONE, result.message
    return path


def record_fetch(path: Path) -> Path:
    """The coke fetch recorded to ``path``: SayCan over a model that prefers FETCH_PLAN's next step."""
    return record_plan(path, "saycan", PreferringModel(FETCH_PLAN), FETCH_INSTRUCTION, FETCH_INITIAL)


@contextmanager
def replaying_sim_graph(
    work: Path,
    recording: Path,
    planner: str,
    instruction: str,
    initial: Mapping[str, Any],
    goal: Mapping[str, Any],
    time_scale: float,
    llm_service: bool = False,
    planner_params: Mapping[str, Any] | None = None,
    start_more: Callable[[RosGraph], object] | None = None,
) -> Iterator[RosGraph]:
    """The sim graph with planner running ``planner`` on ``recording`` (plus ``planner_params``), the
    scene loaded (again with ``load_scene``); with ``llm_service`` the LLM service replays it and the
    planner calls that node. ``start_more(graph)`` starts further nodes beside the graph's, so that they
    load while it does."""
    episodes = work / "episodes.yaml"
    episodes.write_text(
        json.dumps(
            {
                "world": "saycan_kitchen",
                "episodes": [
                    {
                        "id": EPISODE_ID,
                        "family": "test",
                        "instruction": instruction,
                        "initial": dict(initial),
                        "goal": dict(goal),
                    }
                ],
            }
        )
    )
    with ros_graph(work / "graph") as graph:
        replay = {"backend": "replay", "recording": str(recording)}
        for spec in SIM_GRAPH:
            if spec.executable == "llm_service" and not llm_service:
                continue
            params: dict[str, object] = {"time_scale": time_scale} if spec.executable == "sim_world" else {}
            if spec.executable == "llm_service":
                params = replay
            if spec.executable == "planner":
                model = (
                    {"llm_mode": "service"}
                    if llm_service
                    else {"llm_mode": "in_process", "llm.backend": "replay", "llm.recording": str(recording)}
                )
                params = {**model, "planner": planner, **(planner_params or {})}
            graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
        if start_more is not None:
            start_more(graph)
        graph.ping(next(spec.name for spec in SIM_GRAPH if spec.executable == "planner"))
        load_scene(graph, work)
        wait_for_affordance_state(graph)
        yield graph


def fetch_graph(
    work: Path,
    time_scale: float = 0.05,
    llm_service: bool = False,
    planner_params: Mapping[str, Any] | None = None,
    start_more: Callable[[RosGraph], object] | None = None,
) -> AbstractContextManager[RosGraph]:
    """The coke fetch (``record_fetch``, recorded to ``work``) replayed by SayCan in the sim graph."""
    return replaying_sim_graph(
        work,
        record_fetch(work / "saycan.jsonl"),
        "saycan",
        FETCH_INSTRUCTION,
        FETCH_INITIAL,
        FETCH_GOAL,
        time_scale,
        llm_service=llm_service,
        planner_params=planner_params,
        start_more=start_more,
    )


def confirming_fetch_graph(
    work: Path, confirm_timeout_s: float, start_approver: Callable[[RosGraph], object]
) -> AbstractContextManager[RosGraph]:
    """The coke fetch replayed by SayCan in the sim graph with every step waiting for approval
    (``require_confirmation``, as on the robot), and ``start_approver(graph)`` starting whoever answers
    ``llm_planner/confirm`` beside it."""
    return fetch_graph(
        work,
        planner_params={"require_confirmation": True, "confirm_timeout_s": confirm_timeout_s},
        start_more=start_approver,
    )


def start_watchers(graph: RosGraph, audit: Path, bag: Path) -> NodeProcess:
    """The operator console (its audit file under ``audit``) and plan_recorder (writing ``bag``) beside
    ``graph``'s planner; the recorder's process, to stop it for its bag."""
    graph.start_node("operator_console", params={"port": 0, "audit_folder": str(audit)})
    return graph.start_node(
        "plan_recorder", params={"bag_folder": str(bag)}, param_files=[config_file("plan_recorder.yaml")]
    )


def load_scene(graph: RosGraph, work: Path) -> None:
    """(Re)load the scene ``replaying_sim_graph`` wrote to ``work`` into the simulator."""
    load = graph.service_client(LoadEpisode, LOAD_EPISODE_SERVICE)
    request = LoadEpisode.Request(episode_file=str(work / "episodes.yaml"), episode_id=EPISODE_ID)
    reply = wait_future(load.call_async(request))
    assert reply.success, reply.message


def wait_for_affordance_state(graph: RosGraph, timeout: float = 60.0) -> None:
    """Until the affordance server answers from the simulator's state: under load the latched state topic
    can take longer to reach it than the server's own state timeout, and a goal sent then would fail."""
    client = graph.action_client(EvaluateAffordance, "/affordance/terminate")
    done = skill_to_msg(load_domain_files().world().skill("done"))

    def answered() -> bool:
        handle = wait_future(client.send_goal_async(EvaluateAffordance.Goal(skills=[done])), what="affordance goal")
        return bool(handle.accepted and wait_future(handle.get_result_async(), what="affordance result").result.success)

    wait_until(answered, timeout, "the affordance server to answer from the simulator's state")


def execute_instruction(graph: RosGraph, instruction: str) -> Any:
    """Send ``instruction`` to /llm_planner/execute_instruction; the goal's final response (status, result)."""
    client = graph.action_client(ExecuteInstruction, "/llm_planner/execute_instruction", timeout=60)
    handle = wait_future(client.send_goal_async(ExecuteInstruction.Goal(instruction=instruction)), what="goal response")
    assert handle.accepted
    return wait_future(handle.get_result_async(), timeout=240, what="planner result")


PLANNER_SPEC = next(spec for spec in SIM_GRAPH if spec.executable == "planner")


def start_replay_planner(graph: RosGraph, recording: Path, **params: Any) -> NodeProcess:
    """The planner node of the sim graph (its packaged parameters) answering from ``recording`` in-process
    (ProgPrompt unless ``params`` says otherwise), started in ``graph`` and pinged before returning."""
    settings = {
        "llm_mode": "in_process",
        "llm.backend": "replay",
        "llm.recording": str(recording),
        "planner": "progprompt",
        "server_wait_s": 5.0,
        **params,
    }
    process = graph.start_node(
        "planner", params=settings, param_files=PLANNER_SPEC.param_paths(), name=PLANNER_SPEC.name
    )
    graph.ping(PLANNER_SPEC.name)
    return process

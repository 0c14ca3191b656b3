"""Runs kitchen episodes through the real node graph (``llm-planner bench kitchen --ros``).

Two copies of the sim graph run side by side in their own ROS domains: one with skill failures off
(plan success), one with the simulator's seeded failures on (execution success). For each episode
the runner resets the world with /sim/load_episode, sends the instruction to the planner's action
and rebuilds the plan and the final world from the result and the state topics, so the same
scoring code judges in-process and ROS runs. With ``sim="physics"`` one physics graph (PHYSICS_GRAPH:
the PyBullet kitchen driven by the nav2 / moveit executors) runs instead: physics decides every skill's
outcome, so there is no separate pass with injected failures. There a failed skill can change the world
(an object dropped), so the runner records the world each step was chosen in (the state topics when the
planner announces the step on /llm_planner/scores) and returns a RecordedPlanResult, which Exec judges
on those worlds instead of a symbolic replay; each episode's steps, their messages and those worlds'
summaries are appended to ``steps.jsonl`` in the log folder. Physics episodes are judged on the
simulator's ground truth (sim/ground_truth); with ``scene="perceived"`` the graph is
PHYSICS_PERCEPTION_GRAPH, whose planner side reads perception's scene, and each episode starts with the
demo's look around. ``affordances`` picks the affordance server's backend (analytic | learned).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import rclpy
from rclpy.context import Context
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from affordance_servers.perceived_observation import ObservationListener
from llm_planner_interfaces.action import EvaluateAffordance, ExecuteInstruction
from llm_planner_interfaces.msg import PlanStep, SceneObjectArray
from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.affordance.model import AffordanceModel
from llm_planner_ros.bringup.graphs import PHYSICS_GRAPH, PHYSICS_PERCEPTION_GRAPH, SIM_GRAPH, NodeSpec
from llm_planner_ros.bringup.options import GraphOptions
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.domain_folder import domain_value_functions_file
from llm_planner_ros.domain.episodes import Episode
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.evaluation.ground_truth import GroundTruthState
from llm_planner_ros.evaluation.metrics import RecordedPlanResult
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult
from llm_planner_ros.processes import NodeProcess, start_graph, stop_all
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.background_spin import BackgroundSpin
from llm_planner_ros.ros.conversions import record_from_msg
from llm_planner_ros.ros.futures import WaitTimeout, wait_for
from llm_planner_ros.ros.messages import skill_to_msg
from llm_planner_ros.ros.survey import FRAMES_PER_PLACE, Survey, SurveyError
from llm_planner_ros.ros.topic_state_provider import TopicStateProvider
from llm_planner_ros.ros.topics import LOAD_EPISODE_SERVICE, ROBOT_STATE_TOPIC, SCENE_TOPIC, STATE_QOS
from llm_planner_ros.value_functions.learned import LearnedAffordance

ACTION = "/llm_planner/execute_instruction"
# How long the final state may take to show up after the result (sim_world republishes every second).
FINAL_STATE_WAIT_S = 5.0
SCORES_TOPIC = "/llm_planner/scores"
# The physics benchmark graph steps as fast as the CPU allows and renders no camera (nothing reads them).
PHYSICS_BENCH = {"real_time_factor": 0.0, "camera_rate_hz": 0.0}
# With the perceived scene, perception reads the head camera at physics_sim.yaml's 2 frames per simulated
# second; physics still runs as fast as the CPU allows (perception keeps up: it processes the latest frame).
PHYSICS_PERCEIVED_BENCH = {"real_time_factor": 0.0}
# Scenes perception must publish after the reset before the planner side counts as refreshed: the first
# may come from a frame rendered before the reset (ros.survey waits for as many at each place).
SCENES_AFTER_RESET = FRAMES_PER_PLACE
# The latest scene must be this recent (perception's stale_after_s): a goal started while the camera
# stalls ends at once with the planner's max_scene_age_s error, which says nothing about planning.
SCENE_FRESH_S = 2.0
# How long a new episode may take to show on the ground truth, the planner side and the affordance server.
READY_TIMEOUT_S = 30.0


class SimGraph:
    """One simulated graph (``specs``: SIM_GRAPH, PHYSICS_GRAPH or PHYSICS_PERCEPTION_GRAPH) in its own
    domain, with a client node for goals, episode loads and state.

    ``physics``: episodes are judged on the simulator's ground truth (``evaluation.ground_truth``), the
    world each step was chosen in is recorded and every episode's steps are logged to ``log_dir``/steps.jsonl.
    ``perceived``: the planner side reads the scene from perception, so each episode starts with the
    demo's look around (``ros.survey``: perception sees every place) and the reset it ends with.
    ``affordances``: the affordance server's backend (analytic | learned), which the readiness check
    evaluates in-process on the client's own view of the planner-side topics. ``options``: the graph
    options every node starts under (a domain folder), as ``llm-planner up`` takes them.
    """

    def __init__(
        self,
        domain_id: int,
        kitchen: Domain,
        log_dir: Path,
        overrides: Mapping[str, Mapping[str, Any]],
        specs: tuple[NodeSpec, ...] = SIM_GRAPH,
        physics: bool = False,
        perceived: bool = False,
        affordances: str = "analytic",
        options: GraphOptions | None = None,
    ) -> None:
        env = dict(os.environ, ROS_DOMAIN_ID=str(domain_id))
        self._kitchen = kitchen
        self._log_dir = log_dir
        self._step_log = log_dir / "steps.jsonl" if physics else None
        self._step_worlds: dict[int, World | None] = {}
        self.processes: list[NodeProcess] = start_graph(specs, log_dir, env, overrides, options)
        self.context = Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node("kitchen_bench_client", context=self.context)
        self.goals = RaceFreeActionClient(self.node, ExecuteInstruction, ACTION)
        self.load = self.node.create_client(LoadEpisode, LOAD_EPISODE_SERVICE)
        self.affordances: dict[str, RaceFreeActionClient] = {}
        # The planner side's view: the same topics, with the same stamp matching, as the planner and the
        # affordance server read (perception stamps its scenes apart from the robot-state record).
        self.planner_side = TopicStateProvider(
            self.node, kitchen, SCENE_TOPIC, ROBOT_STATE_TOPIC, match_stamps=not perceived
        )
        self.judged: GroundTruthState | TopicStateProvider = (
            GroundTruthState(self.node, kitchen) if physics else self.planner_side
        )
        self._perceived = perceived
        self._affordance_check = _AffordanceCheck(self.node, kitchen, affordances, match_stamps=not perceived)
        self._scenes = 0
        self._scene_received = 0.0
        self.node.create_subscription(SceneObjectArray, SCENE_TOPIC, self._on_scene, STATE_QOS)
        self._survey = Survey(self.node, self._log_survey) if perceived else None
        if physics:
            self.node.create_subscription(PlanStep, SCORES_TOPIC, self._on_step, 100)
        self.executor = MultiThreadedExecutor(num_threads=3, context=self.context)
        self.executor.add_node(self.node)
        self._spin = BackgroundSpin(self.executor, self.context).start()

    def wait_ready(self, timeout_s: float, log_dir: Path) -> None:
        deadline = time.monotonic() + timeout_s
        while not (self.goals.wait_for_server(timeout_sec=1.0) and self.load.wait_for_service(timeout_sec=1.0)):
            if time.monotonic() > deadline or any(p.returncode is not None for p in self.processes):
                raise RuntimeError(f"the benchmark graph did not come up; see the node logs in {log_dir}")

    def run(
        self, episode: Episode, episode_file: Path, timeout_s: float, planner: str = "", plan_only: bool = False
    ) -> tuple[PlanResult, World]:
        reply = wait_for(
            self.load.call_async(LoadEpisode.Request(episode_file=str(episode_file), episode_id=episode.id)),
            30.0,
            LOAD_EPISODE_SERVICE,
        )
        if not reply.success:
            raise RuntimeError(f"could not load episode {episode.id}: {reply.message}")
        if self._survey is not None:
            self._log_survey(f"{episode.id}: looking around")
            request = LoadEpisode.Request(episode_file=str(episode_file), episode_id=episode.id)
            try:
                missed = self._survey.run(episode.world(self._kitchen), request)
            except SurveyError as error:
                raise RuntimeError(f"episode {episode.id}: the look around failed: {error}") from error
            self._log_survey(f"{episode.id}: simulator reset; not seen: {', '.join(missed) or 'none'}")
        self._wait_for_scene(episode)
        if self._perceived:
            difference = _scene_difference(self.planner_side.current(), self.judged.current())
            self._log_survey(f"{episode.id}: perceived against truth: {difference}")
        self._step_worlds = {}
        goal = ExecuteInstruction.Goal(
            instruction=episode.instruction, max_steps=episode.max_steps, planner=planner, plan_only=plan_only
        )
        handle = wait_for(self.goals.send_goal_async(goal), 30.0, ACTION)
        response = wait_for(handle.get_result_async(), timeout_s, f"{ACTION} result")
        arrived = self.node.get_clock().now().seconds_nanoseconds()
        reason, _, message = response.result.message.partition(": ")
        result = PlanResult(EndReason(reason), message, [record_from_msg(step) for step in response.result.executed])
        world = self._final_world(arrived)
        if world is None:
            raise RuntimeError(f"no world state after episode {episode.id}")
        if self._step_log is None:
            return result, world
        return self._recorded(episode, result, world), world

    def _final_world(self, result_arrived: tuple[int, int]) -> World | None:
        # The planner's result can overtake the state message carrying the last skill's effect (another
        # node, another topic): judge a state published after the result arrived.
        return self.judged.wait_published_after(result_arrived, FINAL_STATE_WAIT_S)

    def _on_step(self, msg: PlanStep) -> None:
        # The first announcement of a step comes before it runs (RUNNING, or SKIPPED / done, which run
        # nothing): the state topics then show the world the planner chose it in.
        self._step_worlds.setdefault(msg.index, self.judged.current())

    def _recorded(self, episode: Episode, result: PlanResult, final: World) -> RecordedPlanResult:
        """``result`` with the world of every step, after its announcements arrived; logged to steps.jsonl."""
        deadline = time.monotonic() + 5.0
        while any(self._step_worlds.get(step.index) is None for step in result.steps):
            if time.monotonic() > deadline:
                missing = [step.index for step in result.steps if self._step_worlds.get(step.index) is None]
                raise RuntimeError(
                    f"episode {episode.id}: no world recorded for step(s) {missing}: {SCORES_TOPIC} or the "
                    "state topics did not arrive"
                )
            time.sleep(0.02)
        worlds = [world for step in result.steps if (world := self._step_worlds[step.index]) is not None]
        assert self._step_log is not None
        with self._step_log.open("a") as log:
            entry = {
                "id": episode.id,
                "end_reason": result.reason.value,
                "message": result.message,
                "steps": [
                    {
                        "skill": step.skill.text,
                        "status": step.status.name.lower(),
                        "message": step.message,
                        "world": before.summary(),
                    }
                    for step, before in zip(result.steps, worlds, strict=True)
                ],
                "final": final.summary(),
            }
            log.write(json.dumps(entry) + "\n")
        return RecordedPlanResult(result.reason, result.message, result.steps, worlds=worlds)

    def _on_scene(self, _msg: SceneObjectArray) -> None:
        self._scenes += 1
        self._scene_received = time.monotonic()

    def _log_survey(self, line: str) -> None:
        with (self._log_dir / "survey.log").open("a") as log:
            log.write(line + "\n")

    def _wait_for_scene(self, episode: Episode) -> None:
        """Block until the episode is ready to start (docs/benchmarks.md, "Kitchen benchmark on
        the perceived scene"): the judged state (ground truth on physics) shows the episode's initial scene; the
        planner side has been refreshed after the reset (truth: its scene is the initial scene;
        perceived: SCENES_AFTER_RESET scenes arrived after this call, the latest within SCENE_FRESH_S,
        and the robot-state record shows the initial robot); and the affordance server answers for the
        new scene's skills what its own backend computes in-process from the client's view of the same
        topics."""
        scenes_at_reset = self._scenes
        expected = episode.world(self._kitchen).to_initial()
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            judged, planner_side = self.judged.current(), self.planner_side.current()
            if (
                judged is not None
                and planner_side is not None
                and judged.to_initial() == expected
                and self._planner_side_refreshed(planner_side, expected, scenes_at_reset)
                and self._affordances_match(episode.world(self._kitchen), planner_side)
            ):
                return
            time.sleep(0.05)
        raise RuntimeError(
            f"episode {episode.id} was not ready within {READY_TIMEOUT_S:.0f} s: the ground truth, the "
            f"planner-side scene or the affordance server did not show its initial scene; node logs in {self._log_dir}"
        )

    def _planner_side_refreshed(self, world: World, expected: dict[str, Any], scenes_at_reset: int) -> bool:
        if not self._perceived:
            return world.to_initial() == expected
        # Perception's scene may differ from the truth (missed or misplaced objects are what this mode
        # measures); the robot part comes from the simulator's record and must be the initial one.
        return (
            self._scenes >= scenes_at_reset + SCENES_AFTER_RESET
            and time.monotonic() - self._scene_received < SCENE_FRESH_S
            and world.to_initial()["robot"] == expected["robot"]
        )

    def _affordances_match(self, scene: World, planner_side: World) -> bool:
        """The affordance server's values for every skill of the episode's scene equal its backend's,
        computed here from the client's latest view of the planner-side topics. Families the domain leaves
        to the user's own servers are left out: the project's server does not serve them, and the user's
        judges the robot's present state, which nothing here can compute."""
        users = self._kitchen.library.affordance_servers()
        skills = [skill for skill in scene.admissible_skills() if skill.family not in users]
        expected = self._affordance_check.evaluate(skills, planner_side)
        if expected is None:
            return False
        by_family: dict[str, list[int]] = {}
        for index, skill in enumerate(skills):
            by_family.setdefault(skill.family, []).append(index)
        for family, indices in by_family.items():
            client = self.affordances.get(family)
            if client is None:
                # One client per family for the graph's life: every client made leaves DDS endpoints that
                # every node of the graph keeps discovery data for.
                client = RaceFreeActionClient(self.node, EvaluateAffordance, f"/affordance/{family}")
                self.affordances[family] = client
            if not client.wait_for_server(timeout_sec=5.0):
                return False
            goal = EvaluateAffordance.Goal(skills=[skill_to_msg(skills[i]) for i in indices])
            try:
                handle = wait_for(client.send_goal_async(goal), 5.0, f"/affordance/{family}")
                values = wait_for(handle.get_result_async(), 5.0, f"/affordance/{family} result").result.affordances
            except WaitTimeout:
                return False  # a loaded machine answers late: not ready yet, asked again until READY_TIMEOUT_S
            if len(values) != len(indices) or any(abs(values[k] - expected[i]) > 1e-6 for k, i in enumerate(indices)):
                return False
        return True

    def close(self) -> None:
        self._spin.stop()
        self.executor.shutdown(timeout_sec=5)
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)
        stop_all(self.processes)


class _AffordanceCheck:
    """The affordance server's backend run in this process on the client's view of the topics the server
    reads: once the server's answers equal these, the server reads the same (post-reset) state. Comparing
    with the same backend keeps the check valid for the learned model, whose values are not the analytic ones."""

    def __init__(self, node: Node, kitchen: Domain, backend: str, match_stamps: bool) -> None:
        self._analytic = AffordanceModel()
        self._learned = (
            LearnedAffordance(domain_value_functions_file(kitchen), kitchen) if backend == "learned" else None
        )
        self._observations = (
            ObservationListener(node, SCENE_TOPIC, ROBOT_STATE_TOPIC, match_stamps) if self._learned else None
        )

    def evaluate(self, skills: list[Skill], world: World) -> list[float] | None:
        """The backend's values for ``skills``; None while the learned backend has no observation yet."""
        if self._learned is None or self._observations is None:
            return self._analytic.evaluate(skills, world)
        observation = self._observations.current()
        return None if observation is None else self._learned.evaluate(skills, observation)


class RosKitchenRunner:
    """An ``EpisodeRunner`` over two sim graphs (failures off / on), or one physics graph (``sim``
    "physics"); use as a context manager.

    ``llm`` overrides llm_service's parameters (e.g. a replay recording); ``planners_file`` is the
    planner node's per-method options (e.g. with an ablation); ``planner`` its default method. On the
    physics graph ``scene`` picks what the planner side reads: ``truth`` (PHYSICS_GRAPH, the simulator's
    ground truth) or ``perceived`` (PHYSICS_PERCEPTION_GRAPH, perception on the head camera);
    ``affordances`` is the affordance server's backend (analytic | learned) on either graph; ``options``
    the graph options (a domain folder: ``kitchen`` must then be that domain's).
    """

    def __init__(
        self,
        kitchen: Domain,
        episode_file: Path,
        log_dir: Path,
        llm: Mapping[str, Any],
        planner: str,
        planners_file: Path | None,
        failure_seed: int,
        execution_failures: bool,
        sim: str = "symbolic",
        scene: str = "truth",
        affordances: str = "analytic",
        options: GraphOptions | None = None,
    ) -> None:
        # The graphs take this process's ROS_DOMAIN_ID and the next one, so concurrent runs set apart by
        # their domain (as the tests do) never see each other's nodes.
        domain_base = int(os.environ.get("ROS_DOMAIN_ID", "0"))
        self._kitchen = kitchen
        self._episode_file = episode_file.resolve()
        planner_params: dict[str, Any] = {"planner": planner}
        if planners_file is not None:
            planner_params["planners_file"] = str(planners_file)
        self._graphs: dict[bool, SimGraph] = {}
        physics = sim == "physics"
        perceived = physics and scene == "perceived"
        passes = (False, True) if execution_failures else (False,)
        for failures in passes:
            simulator = (
                {"physics_sim": PHYSICS_PERCEIVED_BENCH if perceived else PHYSICS_BENCH}
                if physics
                else {"sim_world": {"time_scale": 0.0, "inject_failures": failures, "failure_seed": failure_seed}}
            )
            overrides = {
                **simulator,
                "llm_service": dict(llm),
                "planner": planner_params,
                "affordance_server": {"backend": affordances},
            }
            name = "failures" if failures else "plan"
            self._graphs[failures] = SimGraph(
                (domain_base + int(failures)) % 233,
                kitchen,
                log_dir / name,
                overrides,
                (PHYSICS_PERCEPTION_GRAPH if perceived else PHYSICS_GRAPH) if physics else SIM_GRAPH,
                physics=physics,
                perceived=perceived,
                affordances=affordances,
                options=options,
            )
        try:
            for graph in self._graphs.values():
                graph.wait_ready(300.0, log_dir)
        except Exception:
            self.__exit__()
            raise

    def __call__(self, episode: Episode, failures: bool) -> tuple[PlanResult, World]:
        return self._graphs[failures].run(episode, self._episode_file, timeout_s=600.0)

    def __enter__(self) -> RosKitchenRunner:
        return self

    def __exit__(self, *_exc: object) -> None:
        for graph in self._graphs.values():
            graph.close()


def _scene_difference(perceived: World | None, truth: World | None) -> str:
    """What perception got wrong at each place, as label counts: ``missing`` (in the truth only) and
    ``extra`` (in perception's scene only); a mislabelled object shows as one of each."""
    if perceived is None or truth is None:
        return "no state to compare"
    problems = []
    for place in truth.places():
        seen = Counter(obj.label for obj in perceived.placed_at(place))
        there = Counter(obj.label for obj in truth.placed_at(place))
        missing, extra = there - seen, seen - there
        if missing or extra:
            problems.append(
                f"{place}: missing {sorted(missing.elements()) or 'none'}, extra {sorted(extra.elements()) or 'none'}"
            )
    return "; ".join(problems) or "the same objects at every place"

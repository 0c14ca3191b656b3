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
summaries are appended to ``steps.jsonl`` in the log folder.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import rclpy
from rclpy.context import Context
from rclpy.executors import MultiThreadedExecutor

from kitchen_domain.episodes import Episode
from kitchen_domain.kitchen import Kitchen
from kitchen_domain.world import World
from llm_planner_interfaces.action import EvaluateAffordance, ExecuteInstruction
from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.affordance.model import AffordanceModel
from llm_planner_ros.bringup import PHYSICS_GRAPH, SIM_GRAPH, NodeSpec
from llm_planner_ros.evaluation.metrics import RecordedPlanResult
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult
from llm_planner_ros.processes import NodeProcess, start_graph
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.conversions import record_from_msg
from llm_planner_ros.ros.futures import wait_for
from llm_planner_ros.ros.messages import skill_to_msg
from llm_planner_ros.ros.topic_state_provider import TopicStateProvider
from llm_planner_ros.ros.topics import LOAD_EPISODE_SERVICE, ROBOT_STATE_TOPIC, SCENE_TOPIC

ACTION = "/llm_planner/execute_instruction"
SCORES_TOPIC = "/llm_planner/scores"
# The physics benchmark graph steps as fast as the CPU allows and renders no camera (nothing reads them).
PHYSICS_BENCH = {"real_time_factor": 0.0, "camera_rate_hz": 0.0}


class SimGraph:
    """One simulated graph (``specs``: SIM_GRAPH or PHYSICS_GRAPH) in its own domain, with a client node
    for goals, episode loads and state; with ``record_steps`` it records the world each step was chosen
    in and logs every episode's steps to ``log_dir``/steps.jsonl."""

    def __init__(
        self,
        domain_id: int,
        kitchen: Kitchen,
        log_dir: Path,
        overrides: Mapping[str, Mapping[str, Any]],
        specs: tuple[NodeSpec, ...] = SIM_GRAPH,
        record_steps: bool = False,
    ) -> None:
        env = dict(os.environ, ROS_DOMAIN_ID=str(domain_id))
        self._step_log = log_dir / "steps.jsonl" if record_steps else None
        self._step_worlds: dict[int, World | None] = {}
        self.processes: list[NodeProcess] = start_graph(specs, log_dir, env, overrides)
        self.context = Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node("kitchen_bench_client", context=self.context)
        self.goals = RaceFreeActionClient(self.node, ExecuteInstruction, ACTION)
        self.load = self.node.create_client(LoadEpisode, LOAD_EPISODE_SERVICE)
        self.affordances: dict[str, RaceFreeActionClient] = {}
        self.state = TopicStateProvider(self.node, kitchen, SCENE_TOPIC, ROBOT_STATE_TOPIC, match_stamps=True)
        if record_steps:
            self.node.create_subscription(PlanStep, SCORES_TOPIC, self._on_step, 100)
        self.executor = MultiThreadedExecutor(num_threads=3, context=self.context)
        self.executor.add_node(self.node)
        threading.Thread(target=self.executor.spin, daemon=True).start()

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
        self._wait_for_scene(episode)
        self._step_worlds = {}
        goal = ExecuteInstruction.Goal(
            instruction=episode.instruction, max_steps=episode.max_steps, planner=planner, plan_only=plan_only
        )
        handle = wait_for(self.goals.send_goal_async(goal), 30.0, ACTION)
        response = wait_for(handle.get_result_async(), timeout_s, f"{ACTION} result")
        reason, _, message = response.result.message.partition(": ")
        result = PlanResult(EndReason(reason), message, [record_from_msg(step) for step in response.result.executed])
        world = self.state.wait(5.0)
        if world is None:
            raise RuntimeError(f"no world state after episode {episode.id}")
        if self._step_log is None:
            return result, world
        return self._recorded(episode, result, world), world

    def _on_step(self, msg: PlanStep) -> None:
        # The first announcement of a step comes before it runs (RUNNING, or SKIPPED / done, which run
        # nothing): the state topics then show the world the planner chose it in.
        self._step_worlds.setdefault(msg.index, self.state.current())

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

    def _wait_for_scene(self, episode: Episode) -> None:
        """Block until the state topics show the episode's initial scene and the affordance server
        answers for that scene, so neither the planner nor the affordances (each reading the topics in
        its own process) start from the previous episode's final state."""
        expected: World | None = None
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            world = self.state.current()
            if world is not None:
                expected = expected or episode.world(world.kitchen)
                if world.to_initial() == expected.to_initial() and self._affordances_match(expected):
                    return
            time.sleep(0.02)
        raise RuntimeError(f"the simulator did not show episode {episode.id}'s initial scene within 10 s")

    def _affordances_match(self, world: World) -> bool:
        """The affordance server's values for every skill equal the calibrated model's on ``world``."""
        skills = list(world.admissible_skills())
        expected = AffordanceModel().evaluate(skills, world)
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
            handle = wait_for(client.send_goal_async(goal), 5.0, f"/affordance/{family}")
            values = wait_for(handle.get_result_async(), 5.0, f"/affordance/{family} result").result.affordances
            if any(abs(values[k] - expected[i]) > 1e-9 for k, i in enumerate(indices)):
                return False
        return True

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=5)
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)
        for process in reversed(self.processes):
            process.stop()


class RosKitchenRunner:
    """An ``EpisodeRunner`` over two sim graphs (failures off / on), or one physics graph (``sim``
    "physics"); use as a context manager.

    ``llm`` overrides llm_service_node's parameters (e.g. a replay recording); ``planners_file`` is the
    planner node's per-method options (e.g. with an ablation); ``planner`` its default method.
    """

    def __init__(
        self,
        kitchen: Kitchen,
        episode_file: Path,
        log_dir: Path,
        llm: Mapping[str, Any],
        planner: str,
        planners_file: Path | None,
        failure_seed: int,
        execution_failures: bool,
        sim: str = "symbolic",
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
        passes = (False, True) if execution_failures else (False,)
        for failures in passes:
            simulator = (
                {"physics_sim_node": PHYSICS_BENCH}
                if physics
                else {"sim_world_node": {"time_scale": 0.0, "inject_failures": failures, "failure_seed": failure_seed}}
            )
            overrides = {**simulator, "llm_service": dict(llm), "planner": planner_params}
            name = "failures" if failures else "plan"
            self._graphs[failures] = SimGraph(
                (domain_base + int(failures)) % 233,
                kitchen,
                log_dir / name,
                overrides,
                PHYSICS_GRAPH if physics else SIM_GRAPH,
                record_steps=physics,
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

"""``llm-planner bench serving``: several robots planning at once against one shared ``llm_service``.

One ``llm_service`` process (the configured model, ``--llm KEY=VALUE`` overrides, ``max_batch``)
serves every robot. A robot is a ROS node in its own namespace (``/robot1``, ...) whose SayCan planner
(config/planners.yaml) calls the shared ``/llm/score`` (``llm_namespace: /``), exactly as a planner
node's ``ServiceLanguageModel`` does, and plans against the simulated kitchen (each robot its own
world, skills applied at once: the bench measures planning, not skill durations). For each robot
count N, the N robots start together and each plans ``--instructions`` requests of the dev suite
(a different slice per robot, so their prompts differ); reported per N:

- ``instructions_per_min``: instructions finished by all robots per minute of wall time;
- ``step_p50_s``/``step_p95_s``: one step's planning time (the robot's view: its LLM request queued,
  batched and answered, plus its affordances);
- ``throughput_vs_1``: instructions per minute over the 1-robot run's.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.paths import default_domain


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--robots", default="1,2,4,8", help="robot counts to run, comma-separated (default 1,2,4,8)")
    parser.add_argument("--instructions", type=int, default=3, help="instructions each robot plans (default 3)")
    parser.add_argument("--episodes", type=Path, default=default_domain() / "dev.yaml")
    parser.add_argument("--max-batch", type=int, default=8, help="llm_service max_batch (1: no batching)")
    parser.add_argument("--llm", action="append", default=[], metavar="KEY=VALUE", help="llm_service parameter")
    add_json_argument(parser, "the results")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from llm_planner_ros.options import parse_key_values

    console = Console(stderr=True)
    counts = [int(count) for count in args.robots.split(",")]
    llm = {**parse_key_values(args.llm), "max_batch": args.max_batch}
    with _SharedService(llm, console) as service:
        rows = [service.measure(count, args.instructions, args.episodes, console) for count in counts]
    single = next((row for row in rows if row["robots"] == 1), rows[0])
    for row in rows:
        row["throughput_vs_1"] = round(row["instructions_per_min"] / single["instructions_per_min"], 2)
    results = {"max_batch": args.max_batch, "load_average_1min": round(os.getloadavg()[0], 2), "runs": rows}
    for row in rows:
        console.print(row)
    write_json(args.json, results, console.print)
    return 0


class _SharedService:
    """The llm_service process and a private ROS context holding the robots' nodes."""

    def __init__(self, llm: dict[str, Any], console: Any) -> None:
        self._llm = llm
        self._console = console
        self._processes: list[Any] = []

    def __enter__(self) -> _SharedService:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import MultiThreadedExecutor

        from llm_planner_ros.bringup.graphs import SIM_GRAPH
        from llm_planner_ros.processes import start_graph
        from llm_planner_ros.ros.background_spin import BackgroundSpin

        log_dir = Path(tempfile.mkdtemp(prefix="serving-bench-"))
        spec = tuple(s for s in SIM_GRAPH if s.name == "llm_service")
        self._processes = start_graph(spec, log_dir, overrides={"llm_service": self._llm})
        self._context = Context()
        rclpy.init(context=self._context)
        self._executor = MultiThreadedExecutor(num_threads=12, context=self._context)
        self._spin = BackgroundSpin(self._executor, self._context).start()
        with self._console.status(f"waiting for llm_service to load and warm up (log: {log_dir})"):
            self._wait_ready(log_dir)
        return self

    def _wait_ready(self, log_dir: Path) -> None:
        import rclpy
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import Bool

        ready = threading.Event()
        node = rclpy.create_node("serving_bench_ready", context=self._context)
        qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(Bool, "/llm/ready", lambda message: message.data and ready.set(), qos)
        self._executor.add_node(node)
        deadline = time.monotonic() + 300
        while not ready.wait(0.5):
            if any(p.returncode is not None for p in self._processes) or time.monotonic() > deadline:
                raise SystemExit(f"llm_service did not become ready: see {log_dir}")

    def measure(self, robots: int, instructions: int, episodes_file: Path, console: Any) -> dict[str, Any]:
        from llm_planner_ros.domain.definition import load_domain_files
        from llm_planner_ros.domain.episodes import load_episodes

        kitchen = load_domain_files()
        episodes = list(load_episodes(episodes_file, kitchen))
        robots_state = [self._robot(index, robots, kitchen) for index in range(robots)]
        steps: list[float] = []
        finished = [0] * robots
        barrier = threading.Barrier(robots + 1)
        errors: list[str] = []

        def drive(index: int) -> None:
            from llm_planner_ros.planning.plan_loop import run_plan
            from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

            planner = robots_state[index]
            barrier.wait()
            for number in range(instructions):
                episode = episodes[(index * instructions + number) % len(episodes)]
                result = run_plan(planner, episode.instruction, SimulatedEnvironment(episode.world(kitchen)), 10)
                if result.reason.value == "error":
                    errors.append(result.message)
                steps.extend(step.planning_s for step in result.steps)
                finished[index] += 1

        threads = [threading.Thread(target=drive, args=(index,)) for index in range(robots)]
        for thread in threads:
            thread.start()
        with console.status(f"{robots} robot(s) planning {instructions} instruction(s) each"):
            barrier.wait()
            started = time.perf_counter()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
        if errors:
            raise SystemExit(f"a robot's plan ended in error: {errors[0]}")
        ordered = sorted(steps)
        return {
            "robots": robots,
            "instructions": sum(finished),
            "steps": len(steps),
            "wall_s": round(wall, 2),
            "instructions_per_min": round(60 * sum(finished) / wall, 2),
            "step_p50_s": round(statistics.median(ordered), 3),
            "step_p95_s": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        }

    def _robot(self, index: int, robots: int, kitchen: Any) -> Any:
        import rclpy
        from rclpy.callback_groups import ReentrantCallbackGroup

        from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
        from llm_planner_ros.ros.llm_client import ServiceLanguageModel

        # One node name per run: the nodes of earlier runs stay in the context until the bench ends.
        node = rclpy.create_node(
            f"serving_bench_{robots}_robots", namespace=f"/robot{index + 1}", context=self._context
        )
        self._executor.add_node(node)
        model = ServiceLanguageModel(node, ReentrantCallbackGroup(), 120.0, 30.0, 10.0, llm_namespace="/")
        return build_planner("saycan", PlannerResources(model, kitchen, _shared_embedder, load_planner_options()))

    def __exit__(self, *_exc: object) -> None:
        self._spin.stop()
        self._executor.shutdown()
        self._context.try_shutdown()
        from llm_planner_ros.processes import stop_all

        stop_all(self._processes)


@functools.cache
def _shared_embedder() -> Any:
    """The one sentence embedder of every robot's SayCan, loaded where its prompt retrieves examples (a
    model without the kitchen's SayCan adapter), as the planner node would."""
    from llm_planner_ros.llm.factory import load_embedder

    return load_embedder({})

"""``llm-planner bench affordance``: round-trip latency of EvaluateAffordance goals on loopback.

Starts sim_world and affordance_server as subprocesses in a private ROS_DOMAIN_ID and, from this
process, times three ways of getting the affordances of the 51 kitchen skills:

  batched     one goal carrying all 51 skills (the headline: ``p50_ms``, ``p95_ms``)
  per_family  one goal per family (find, pick, place, goto, terminate), sent together, as a planner
              that asks each family's server does
  naive       51 goals of one skill each, one after the other

A round trip runs from sending the goal to holding its result (goal acceptance plus result request).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.processes import NodeProcess, stop_all

STARTUP_TIMEOUT_S = 30.0
RESULT_TIMEOUT_S = 10.0
# Goals that warm up discovery, the state subscription and Python's caches; not counted.
WARMUP_GOALS = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--goals", type=int, default=200, help="timed goals of the batched and per-family runs")
    parser.add_argument("--naive-rounds", type=int, default=20, help="timed rounds of 51 one-skill goals")
    parser.add_argument("--server", default="/affordance/pick", help="server that receives the batched goal")
    parser.add_argument(
        "--domain-id", type=int, default=None, help="ROS_DOMAIN_ID for the run (default: random 150-230)"
    )
    add_json_argument(parser, "the numbers")


def run(args: argparse.Namespace) -> int:
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor

    from llm_planner_interfaces.action import EvaluateAffordance
    from llm_planner_ros.domain import domain_skills
    from llm_planner_ros.ros.action_client import RaceFreeActionClient
    from llm_planner_ros.ros.background_spin import BackgroundSpin
    from llm_planner_ros.ros.messages import skill_to_msg

    skills = domain_skills()
    domain_id = args.domain_id if args.domain_id is not None else random.randint(150, 230)
    messages = [skill_to_msg(s) for s in skills]
    families = sorted({s.family for s in skills})
    by_family = {f: [m for s, m in zip(skills, messages, strict=False) if s.family == f] for f in families}

    with _nodes(domain_id) as nodes:
        context = Context()
        rclpy.init(context=context, domain_id=domain_id)
        node = rclpy.create_node("bench_affordance_client", context=context)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        spinner = BackgroundSpin(executor, context).start()
        try:
            clients = {
                name: RaceFreeActionClient(node, EvaluateAffordance, name)
                for name in {args.server, *(f"/affordance/{f}" for f in families)}
            }
            for name, client in clients.items():
                if not client.wait_for_server(timeout_sec=STARTUP_TIMEOUT_S):
                    print(f"error: {name} not up after {STARTUP_TIMEOUT_S:.0f} s\n{nodes.logs()}", file=sys.stderr)
                    return 1

            def send(client: Any, batch: Sequence[Any]) -> Callable[[], None]:
                """Send one goal; the returned call waits for its result and checks it."""
                sent = client.send_goal_async(EvaluateAffordance.Goal(skills=list(batch)))

                def finish() -> None:
                    result = _wait(_wait(sent).get_result_async()).result
                    if not result.success or len(result.affordances) != len(batch):
                        raise RuntimeError(f"affordance goal failed: {result.message or 'wrong number of results'}")

                return finish

            def batched() -> None:
                send(clients[args.server], messages)()

            def per_family() -> None:
                for finish in [send(clients[f"/affordance/{f}"], by_family[f]) for f in families]:
                    finish()

            def naive() -> None:
                for message in messages:
                    send(clients[args.server], [message])()

            for _ in range(WARMUP_GOALS):
                batched()
            report = {
                "benchmark": "affordance",
                "skills_per_goal": len(messages),
                "batched": _timed(batched, args.goals),
                "per_family": {**_timed(per_family, args.goals), "goals_per_round": len(families)},
                "naive": {**_timed(naive, args.naive_rounds), "goals_per_round": len(messages)},
                "machine": {
                    "cpus": os.cpu_count(),
                    "python": platform.python_version(),
                    "rmw": rclpy.get_rmw_implementation_identifier(),
                },
            }
        except (RuntimeError, TimeoutError) as error:
            print(f"error: {error}\n{nodes.logs()}", file=sys.stderr)
            return 1
        finally:
            spinner.stop()
            executor.shutdown(timeout_sec=2.0)
            node.destroy_node()
            rclpy.shutdown(context=context)

    report["p50_ms"] = report["batched"]["p50_ms"]
    report["p95_ms"] = report["batched"]["p95_ms"]
    report["naive_over_batched_p50"] = round(report["naive"]["p50_ms"] / report["p50_ms"], 1)
    _print(report)
    write_json(args.json, report, print)
    return 0


def _timed(call: Callable[[], Any], rounds: int) -> dict[str, Any]:
    durations = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        durations.append((time.perf_counter() - start) * 1000.0)
    return {"rounds": rounds, "p50_ms": round(statistics.median(durations), 3), "p95_ms": round(_p95(durations), 3)}


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def _wait(future: Any) -> Any:
    """The result of an rclpy future completed by the spinning executor (event-driven, no polling)."""
    done = threading.Event()
    future.add_done_callback(lambda _future: done.set())
    if not (future.done() or done.wait(RESULT_TIMEOUT_S)):
        raise TimeoutError(f"no answer from the affordance server within {RESULT_TIMEOUT_S:.0f} s")
    return future.result()


def _print(report: dict[str, Any]) -> None:
    print(f"EvaluateAffordance round trips, {report['skills_per_goal']} kitchen skills, loopback:")
    for name, label in (
        ("batched", "1 goal x 51 skills"),
        ("per_family", "5 family goals, concurrent"),
        ("naive", "51 goals x 1 skill, sequential"),
    ):
        row = report[name]
        print(
            f"  {name:<11} {label:<32} p50 {row['p50_ms']:8.2f} ms   p95 {row['p95_ms']:8.2f} ms   "
            f"({row['rounds']} rounds)"
        )
    print(f"  naive / batched (p50): {report['naive_over_batched_p50']}x")


class _Nodes:
    """The benchmark's node processes; ``logs()`` for error reports."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name} ---\n{p.read_text(errors='replace')}" for p in sorted(self.log_dir.glob("*.log"))
        )


@contextmanager
def _nodes(domain_id: int) -> Iterator[_Nodes]:
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain_id), "PYTHONUNBUFFERED": "1"}
    with tempfile.TemporaryDirectory(prefix="bench-affordance-") as tmp:
        log_dir = Path(tmp)
        processes: list[NodeProcess] = []
        try:
            for entry, params in (("sim_world", ["time_scale:=0.0"]), ("affordance_server", [])):
                argv = [_entry_point(entry), "--ros-args", *(a for p in params for a in ("-p", p))]
                processes.append(NodeProcess(argv, env, log_dir / f"{entry}.log").start())
            yield _Nodes(log_dir)
        finally:
            stop_all(processes)


def _entry_point(name: str) -> str:
    candidate = Path(sys.executable).parent / name
    found = str(candidate) if candidate.exists() else shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"{name} is not installed: run `make setup`")
    return found

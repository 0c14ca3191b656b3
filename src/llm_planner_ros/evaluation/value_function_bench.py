"""``llm-planner bench value-functions``: learned value functions against the analytic affordance.

On the held-out test split of the collector's physics rollouts (``llm_planner_ros.value_functions.training.split_of``;
never trained or tuned on), per learned family: ROC-AUC and Brier score of the learned model and of
today's analytic model on the same perceived observations (rollouts observed through the head camera
and perception's pipeline apart, as ``<family>_perceived``), a reliability diagram (PNG), and
``gate``: had the robot attempted only the test skills scored >= 0.5, the share of the failing attempts
avoided and of the succeeding ones lost (a decision-level view, not a planning run). The time of
one batched evaluation of 50 kitchen skills (p50/p95 over ``--repeats`` batches): wall-clock time, and
the thread's CPU time (``cpu_*``), which leaves out the waits of a loaded machine's scheduler.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, json_file, write_json
from llm_planner_ros.paths import default_domain

DEFAULT_ROLLOUTS = (
    "data/value_functions/rollouts_seed0.jsonl.gz",
    "data/value_functions/rollouts_seed1.jsonl.gz",
    "data/value_functions/rollouts_drawer_seed2.jsonl.gz",
    "data/value_functions/rollouts_pick_perceived_seed3.jsonl.gz",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rollouts", nargs="+", default=list(DEFAULT_ROLLOUTS), help="collector files (.jsonl or .jsonl.gz)"
    )
    parser.add_argument("--weights", default=str(default_domain() / "value_functions.npz"), help="weight file")
    parser.add_argument("--plot", type=Path, default=Path("out/value_functions_reliability.png"))
    parser.add_argument("--batch", type=int, default=50, help="skills per timed batch")
    parser.add_argument("--repeats", type=int, default=300, help="timed batches")
    parser.add_argument("--seed", type=int, default=0)
    add_json_argument(parser, "the numbers")


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.affordance.model import AffordanceModel
    from llm_planner_ros.domain.definition import domain_skills, load_domain_files
    from llm_planner_ros.paths import repo_path
    from llm_planner_ros.value_functions.analytic import skill_of, world_of
    from llm_planner_ros.value_functions.collector import PERCEPTION, SIMULATED, load_rollouts
    from llm_planner_ros.value_functions.features import LEARNED_FAMILIES
    from llm_planner_ros.value_functions.learned import LearnedAffordance
    from llm_planner_ros.value_functions.metrics import brier, plot_reliability, reliability, roc_auc
    from llm_planner_ros.value_functions.training import served_observation, split_of

    kitchen = load_domain_files()
    learned = LearnedAffordance(repo_path(args.weights), kitchen)
    analytic = AffordanceModel()
    rollouts = [r for path in args.rollouts if repo_path(path).exists() for r in load_rollouts(repo_path(path))]
    test = [r for r in rollouts if split_of(r) == "test"]
    report: dict[str, Any] = {}
    curves: dict[str, dict[str, list[tuple[float, float, int]]]] = {}
    # Rollouts observed through the camera (``<family>_perceived``) are scored apart: they are what the
    # physics graph's robot sees, and the simulated ones are not.
    groups = [(family, family, SIMULATED) for family in LEARNED_FAMILIES] + [
        (f"{family}_perceived", family, PERCEPTION)
        for family in LEARNED_FAMILIES
        if any(r.family == family and r.observed_by == PERCEPTION for r in rollouts)
    ]
    for key, family, observed_by in groups:
        rows = [r for r in test if r.family == family and r.observed_by == observed_by]
        outcomes = [r.success for r in rows]
        skills = [skill_of(family, r.argument, kitchen) for r in rows]
        ours = [learned.evaluate([skill], served_observation(r))[0] for skill, r in zip(skills, rows, strict=True)]
        theirs = [
            analytic.affordance(skill, world_of(r.observation, kitchen)) for skill, r in zip(skills, rows, strict=True)
        ]
        report[key] = {
            "roc_auc": _round(roc_auc(outcomes, ours)),
            "brier": _round(brier(outcomes, ours)) if rows else None,
            "analytic_roc_auc": _round(roc_auc(outcomes, theirs)),
            "analytic_brier": _round(brier(outcomes, theirs)) if rows else None,
            "test_rollouts": len(rows),
            "success_rate": _round(sum(outcomes) / len(rows)) if rows else None,
            "rollouts_total": sum(r.family == family and r.observed_by == observed_by for r in rollouts),
            "gate": {"learned": _gate(outcomes, ours), "analytic": _gate(outcomes, theirs)},
        }
        curves[key] = {"learned": reliability(outcomes, ours), "analytic": reliability(outcomes, theirs)}
    plot_reliability(args.plot, curves)
    report["batch_latency_ms"] = _latency(
        learned, analytic, [r.observation for r in test], kitchen, domain_skills(), args
    )
    report["weights"] = str(args.weights)
    report["reliability_plot"] = str(args.plot)
    if args.json is None or json_file(args.json) is not None:
        for key, _, _ in groups:
            print(f"{key}: {report[key]}")
        print(f"batch of {args.batch}: {report['batch_latency_ms']}")
    write_json(args.json, report, print)
    return 0


def _latency(
    learned: Any, analytic: Any, observations: list[Any], kitchen: Any, skills: Any, args: Any
) -> dict[str, Any]:
    from llm_planner_ros.value_functions.analytic import world_of

    if not observations:
        print("no test rollouts: nothing to time", file=sys.stderr)
        return {}
    rng = random.Random(args.seed)
    ours, theirs, cpu = [], [], []
    for repeat in range(args.repeats + 10):  # the first 10 warm caches up and are not counted
        observation = rng.choice(observations)
        batch = rng.choices(skills, k=args.batch)
        start, start_cpu = time.perf_counter(), time.thread_time()
        learned.evaluate(batch, observation)
        middle, middle_cpu = time.perf_counter(), time.thread_time()
        analytic.evaluate(batch, world_of(observation, kitchen))
        end = time.perf_counter()
        if repeat >= 10:
            ours.append((middle - start) * 1000)
            cpu.append((middle_cpu - start_cpu) * 1000)
            theirs.append((end - middle) * 1000)
    return {
        "batch": args.batch,
        "p50": _round(statistics.median(ours)),
        "p95": _round(statistics.quantiles(ours, n=20)[-1]),
        "cpu_p50": _round(statistics.median(cpu)),
        "cpu_p95": _round(statistics.quantiles(cpu, n=20)[-1]),
        "analytic_p50": _round(statistics.median(theirs)),
        "analytic_p95": _round(statistics.quantiles(theirs, n=20)[-1]),
    }


def _gate(outcomes: list[bool], scores: list[float], threshold: float = 0.5) -> dict[str, float | None]:
    failures = [s for ok, s in zip(outcomes, scores, strict=True) if not ok]
    successes = [s for ok, s in zip(outcomes, scores, strict=True) if ok]
    return {
        "failures_avoided": _round(sum(s < threshold for s in failures) / len(failures)) if failures else None,
        "successes_lost": _round(sum(s < threshold for s in successes) / len(successes)) if successes else None,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)

"""``llm-planner bench value-reasons``: SayCan with analytic against learned affordances, where physics
decides each skill's outcome.

For each ``--affordance`` model, the configured SayCan planner (config/planners.yaml; ``--temperature``
sets ``llm_temperature``, ``--option KEY=VALUE`` any other saycan option) plans every episode of the
file in this process on the physics kitchen (``planning.physics_environment``: scripted skills, the
simulator's truth as state; the learned model reads exact perception of it). Reported per model and
episode: plan success (ended with ``done`` and the goal holds on the physics state), the skills chosen,
the failed skill attempts, and the steps where the affordance overturned the language model's first
choice. Progress: one line per episode; the JSON is rewritten after each.

    llm-planner bench value-reasons --episodes domains/saycan_kitchen/value_reasons.yaml --json out.json
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.options import finite_float
from llm_planner_ros.paths import default_domain

DEFAULT_EPISODES = str(default_domain() / "value_reasons.yaml")
MODELS = ("analytic", "learned")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--episodes", default=DEFAULT_EPISODES, help="episode file")
    parser.add_argument("--ids", help="comma-separated episode ids to run (default: all)")
    parser.add_argument("--affordance", nargs="+", choices=MODELS, default=list(MODELS), help="models to compare")
    parser.add_argument("--weights", default=str(default_domain() / "value_functions.npz"), help="learned weight file")
    parser.add_argument(
        "--temperature", type=finite_float, default=None, help="saycan llm_temperature (default: configured)"
    )
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="override a saycan option (YAML value)"
    )
    parser.add_argument("--llm", action="append", default=[], metavar="KEY=VALUE", help="language model setting")
    add_json_argument(parser, "the numbers")


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.domain.definition import load_domain_files
    from llm_planner_ros.domain.episodes import load_episodes
    from llm_planner_ros.llm.factory import load_embedder, load_language_model
    from llm_planner_ros.options import parse_key_values
    from llm_planner_ros.paths import repo_path
    from llm_planner_ros.physics_sim import PhysicsKitchen
    from llm_planner_ros.planning.physics_environment import PhysicsEnvironment
    from llm_planner_ros.planning.plan_loop import EndReason, run_plan
    from llm_planner_ros.planning.registry import (
        PlannerResources,
        build_planner,
        load_planner_options,
        override_options,
    )
    from llm_planner_ros.value_functions.learned import LearnedAffordance

    kitchen = load_domain_files()
    episodes = list(load_episodes(args.episodes, kitchen))
    if args.ids:
        wanted = set(args.ids.split(","))
        episodes = [e for e in episodes if e.id in wanted]
    options = load_planner_options()
    requested = parse_key_values(args.option, "--option")
    override_options(options, "saycan", requested)
    overrides = {key: options["saycan"][key] for key in requested}  # what the report says was changed
    if args.temperature is not None:
        overrides["llm_temperature"] = options["saycan"]["llm_temperature"] = args.temperature
    model = load_language_model(parse_key_values(args.llm, "--llm"))
    planner = build_planner("saycan", PlannerResources(model, kitchen, lambda: load_embedder({}), options))
    learned = LearnedAffordance(repo_path(args.weights), kitchen) if "learned" in args.affordance else None
    report: dict[str, Any] = {
        "episodes_file": args.episodes,
        "saycan_overrides": overrides,
        "weights": args.weights,
        "by_affordance": {},
    }
    sim = PhysicsKitchen.from_files(image_size=(64, 48))
    try:
        for name in args.affordance:
            env = PhysicsEnvironment(sim, kitchen, learned if name == "learned" else None)
            runs: list[dict[str, Any]] = []
            report["by_affordance"][name] = {"runs": runs}
            for episode in episodes:
                started = time.perf_counter()
                sim.load(episode.initial, episode.id)
                result = run_plan(planner, episode.instruction, env, episode.max_steps)
                success = result.reason == EndReason.DONE and episode.goal_holds(env.world())
                runs.append(_episode_entry(episode.id, success, result, time.perf_counter() - started))
                print(f"{name} {episode.id}: {json.dumps(runs[-1])}", flush=True)
                report["by_affordance"][name]["summary"] = _summary(runs)
                write_json(args.json, report, partial=True)
            print(f"{name}: {json.dumps(report['by_affordance'][name]['summary'])}", flush=True)
    finally:
        sim.close()
    write_json(args.json, report)
    return 0


def _episode_entry(episode_id: str, success: bool, result: Any, seconds: float) -> dict[str, Any]:
    from llm_planner_ros.planning.decision import StepStatus

    return {
        "id": episode_id,
        "plan_success": success,
        "end_reason": result.reason.value,
        "skills": [step.skill.text for step in result.steps],
        "failed_attempts": sum(step.status == StepStatus.FAILED for step in result.steps),
        "overturned": sum(step.overturned for step in result.steps),
        "s": round(seconds, 1),
    }


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "episodes": len(runs),
        "plan_success": sum(r["plan_success"] for r in runs),
        "failed_attempts": sum(r["failed_attempts"] for r in runs),
        "overturned": sum(r["overturned"] for r in runs),
        "steps": sum(len(r["skills"]) for r in runs),
    }

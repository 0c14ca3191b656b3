"""``llm-planner bench saycan-temperature``: does the affordance change SayCan's decisions, per temperature.

For each ``--temperature`` T, the configured SayCan planner (config/planners.yaml, ``llm_temperature``
set to T) plans every episode of the suite in process (symbolic kitchen, skills never failing).
Reported per T: plan success, steps, and the steps where the affordance overturned the language
model's first choice, split by that choice's affordance (0: SayCan's caps, impossible skills; above 0:
a graded affordance decided). With ``--all-skills`` every admissible skill is scored, so the first
choice is the model's over all skills; without it (the configured pruning, same decisions, several
times faster) it is the first among the skills pruning scored, so the counts are lower bounds.
``--option KEY=VALUE`` overrides a saycan option for every T (e.g. ``terminate_affordance=1.0``).
Progress: one line per episode; the JSON is rewritten after each episode.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.options import finite_float
from llm_planner_ros.paths import default_domain

DEFAULT_EPISODES = str(default_domain() / "dev.yaml")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--episodes", default=DEFAULT_EPISODES, help="episode file")
    parser.add_argument("--temperature", type=finite_float, nargs="+", default=[1.0], help="llm_temperature values")
    parser.add_argument("--ids", help="comma-separated episode ids to run (default: all)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="override a saycan option (YAML value)"
    )
    parser.add_argument("--all-skills", action="store_true", help="score every skill (no pruning): exact counts")
    parser.add_argument("--llm", action="append", default=[], metavar="KEY=VALUE", help="language model setting")
    add_json_argument(parser, "the numbers")


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.domain.definition import load_domain_files
    from llm_planner_ros.domain.episodes import load_episodes
    from llm_planner_ros.evaluation.kitchen_benchmark import plan_in_process
    from llm_planner_ros.evaluation.metrics import plan_metrics
    from llm_planner_ros.llm.factory import load_embedder, load_language_model
    from llm_planner_ros.options import parse_key_values
    from llm_planner_ros.planning.registry import (
        PlannerResources,
        build_planner,
        load_planner_options,
        override_options,
    )

    kitchen = load_domain_files()
    episodes = list(load_episodes(args.episodes, kitchen))
    if args.ids:
        wanted = set(args.ids.split(","))
        episodes = [e for e in episodes if e.id in wanted]
    requested = parse_key_values(args.option, "--option")
    override_options(load_planner_options(), "saycan", requested)  # refused before the model loads
    model = load_language_model(parse_key_values(args.llm, "--llm"))
    report: dict[str, Any] = {
        "options": args.option,
        "episodes_file": args.episodes,
        "episodes": len(episodes),
        "by_temperature": {},
    }
    for temperature in args.temperature:
        options = load_planner_options()
        override_options(options, "saycan", requested)
        options["saycan"]["llm_temperature"] = temperature
        if args.all_skills:
            options["saycan"].update(prune=False, top_k=100_000)
        planner = build_planner("saycan", PlannerResources(model, kitchen, lambda: load_embedder({}), options))
        tally = {"plan_success": 0, "steps": 0, "overturned_at_zero": 0, "overturned_above_zero": 0}
        failed: list[str] = []
        started = time.perf_counter()
        for episode in episodes:
            result, world = plan_in_process(planner, episode, kitchen)
            if plan_metrics(result, episode, world).plan_success:
                tally["plan_success"] += 1
            else:
                failed.append(episode.id)
            for step in result.steps:
                first = step.llm_first_choice
                if first is None:
                    continue
                tally["steps"] += 1
                if step.overturned:
                    tally["overturned_at_zero" if first.affordance == 0.0 else "overturned_above_zero"] += 1
            done = tally["plan_success"] + len(failed)
            print(f"T={temperature:g} {episode.id}: {done}/{len(episodes)}, {tally}", flush=True)
            report["by_temperature"][f"{temperature:g}"] = _entry(tally, failed, done, time.perf_counter() - started)
            write_json(args.json, report, partial=True)
        entry = report["by_temperature"][f"{temperature:g}"]
        print(f"T={temperature:g}: {json.dumps({k: v for k, v in entry.items() if k != 'failed'})}", flush=True)
    write_json(args.json, report, print)
    return 0


def _entry(tally: dict[str, int], failed: list[str], done: int, seconds: float) -> dict[str, Any]:
    overturned = tally["overturned_at_zero"] + tally["overturned_above_zero"]
    return {
        **tally,
        "episodes_done": done,
        "plan_success_rate": round(tally["plan_success"] / done, 4),
        "overturn_rate": round(overturned / max(tally["steps"], 1), 4),
        "failed": failed,
        "s_per_episode": round(seconds / done, 2),
    }

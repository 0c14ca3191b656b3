r"""Fits SayCan's ``llm_temperature`` on generated tasks (never the dev or evaluation episodes).

Tasks come from the project's task generator (``saycan_bank.generate_examples``, a seed other than the
bank's, the bank's and the given episode files' instructions excluded, so none is one the SayCan adapter
trained on). The configured SayCan planner (config/planners.yaml, its prompt and scene line) walks each
task's oracle plan: at every step it scores all admissible skills with the language model alone, and
``llm_planner_ros.domain.oracle.optimal_next_skills`` marks the right ones. ``fit_temperature`` then chooses the
T under which softmax(log p / T) is most likely to pick a right skill.

    nice -n 5 llm-planner train saycan-temperature --tasks 120 --seed 17 \
        --exclude domains/saycan_kitchen/dev.yaml --json out/saycan_llm_temperature.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.conditions import condition_from_yaml
from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.oracle import optimal_next_skills
from llm_planner_ros.domain.skill import TERMINATE
from llm_planner_ros.planning.decision import StepRecord, StepStatus
from llm_planner_ros.planning.saycan.bank import BANK_FILE, PlanExample, load_bank
from llm_planner_ros.planning.saycan.llm_temperature import (
    StepSample,
    fit_temperature,
    mean_log_likelihood,
    overturn_affordance,
)
from llm_planner_ros.planning.saycan.planner import SayCanPlanner
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.training.saycan_bank import excluded_instructions, generate_examples

# Score every skill (no pruning, no affordance) and keep every score in the decision's table.
SAY_ONLY = {"ablation": "no_affordance", "prune": False, "top_k": 100_000, "llm_temperature": 1.0}


def step_samples(planner: SayCanPlanner, example: PlanExample, kitchen: Domain) -> Iterator[StepSample]:
    """The planner's Say scores at each step of the example's oracle plan, with the right skills marked.

    ``planner`` must score every skill into its table (``SAY_ONLY`` options)."""
    env = SimulatedEnvironment(kitchen.world(example.initial))
    goal = condition_from_yaml(example.goal, kitchen.config, f"{example.id} goal")
    planner.reset(example.instruction)
    history: list[StepRecord] = []
    for index, text in enumerate(example.steps):
        right = {skill.text for skill in optimal_next_skills(env.world, goal)} | {text}
        decision = planner.next_step(env, history)
        scores = {candidate.skill.text: candidate.llm for candidate in decision.candidates}
        skills = [skill.text for skill in env.admissible_skills()]
        yield StepSample(tuple(scores[s] for s in skills), tuple(s in right for s in skills))
        skill = env.world.skill(text)
        if skill.family == TERMINATE:
            return
        outcome = env.execute(skill)
        record = StepRecord(index, skill, (), StepStatus.SUCCEEDED if outcome.success else StepStatus.FAILED)
        planner.observe(record)
        history.append(record)


def summary(samples: Sequence[StepSample], temperature: float) -> dict[str, Any]:
    """The fit and what it means for decisions: how often Say's first choice is right, how far the
    second choice trails, and the affordance of the first choice below which a fully feasible second
    choice wins (median gap) at T = 1 and at the fitted T."""
    gaps = [sorted(s.log_probs, reverse=True)[0] - sorted(s.log_probs, reverse=True)[1] for s in samples]
    first_right = [s.right[max(range(len(s.log_probs)), key=s.log_probs.__getitem__)] for s in samples]
    gap = statistics.median(gaps)
    return {
        "steps": len(samples),
        "skills_per_step": round(statistics.mean(len(s.log_probs) for s in samples), 1),
        "first_choice_right": round(sum(first_right) / len(samples), 4),
        "gap_nats": {"p10": round(statistics.quantiles(gaps, n=10)[0], 2), "median": round(gap, 2)},
        "temperature": round(temperature, 3),
        "mean_log_likelihood": {
            "t1": round(mean_log_likelihood(samples, 1.0), 4),
            "fitted": round(mean_log_likelihood(samples, temperature), 4),
        },
        "overturn_below_affordance_at_median_gap": {
            "t1": overturn_affordance(gap, 1.0),
            "fitted": round(overturn_affordance(gap, temperature), 4),
        },
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train saycan-temperature``."""
    parser.add_argument("--tasks", type=int, default=120, help="generated tasks to walk (default 120)")
    parser.add_argument("--seed", type=int, default=17, help="generator seed (the bank's is 0)")
    parser.add_argument(
        "--exclude", type=Path, action="append", default=[], help="episode files whose instructions to skip"
    )
    parser.add_argument("--llm", action="append", default=[], metavar="KEY=VALUE", help="language model setting")
    parser.add_argument("--json", type=Path, help="write the fit and its summary here")


def run(args: argparse.Namespace) -> int:
    """Fit the temperature (see the module docstring)."""
    from llm_planner_ros.llm.factory import load_embedder, load_language_model
    from llm_planner_ros.options import parse_key_values
    from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options

    kitchen = load_domain_files()
    exclude = [e.instruction for e in load_bank(BANK_FILE)]
    exclude += [text for path in args.exclude for text in excluded_instructions(path, kitchen)]
    options = load_planner_options()
    options["saycan"] = {**options.get("saycan", {}), **SAY_ONLY}
    model = load_language_model(parse_key_values(args.llm, "--llm"))
    planner = build_planner("saycan", PlannerResources(model, kitchen, lambda: load_embedder({}), options))
    assert isinstance(planner, SayCanPlanner)
    samples: list[StepSample] = []
    started = time.perf_counter()
    for number, example in enumerate(generate_examples(kitchen, args.tasks, args.seed, exclude), 1):
        samples.extend(step_samples(planner, example, kitchen))
        # Every task: the fit so far, so a stopped run still says where T is heading.
        print(
            f"saycan_temperature: {number}/{args.tasks} tasks, {len(samples)} steps, "
            f"T so far {fit_temperature(samples):.2f}, {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    temperature = fit_temperature(samples)
    result = {
        "command": args.command_line,
        "tasks": args.tasks,
        "seed": args.seed,
        "wall_s": round(time.perf_counter() - started, 1),
        **summary(samples, temperature),
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    return 0

r"""``llm-planner bench virtualhome``: the project's planners on VirtualHome action sequencing, scored by the
Embodied Agent Interface's own scorer (eai-eval 1.0.5; arXiv 2410.07166).

    llm-planner bench virtualhome --planner saycan|saycanpay|progprompt|zero_shot|llm_planner \
        [--tasks 12_2,181_1] [--limit N] [--every K] [--json PATH [--resume]] [--markdown PATH] \
        [--llm KEY=VALUE] [--option KEY=VALUE] [--max-steps 30] [--dev [--dev-goals all|part]]

Each task (342, in the benchmark's order) is planned and executed through the shared plan loop in its
scene (``VirtualHomeEnvironment``: eai-eval's simulator), from the same request for every method (the
task's name and its goals in words). The skills the plan dispatched, in order, are the answer handed to
the scorer in its JSON format; the scorer runs them again in its own simulator and reports task success,
execution success and its error types. Its number is reported as the published rows were computed, and
beside it the success rate with plans equal to the gold program counted (the scorer never checks those;
``eai_virtualhome``). A task the bench cannot set up or plan is failed with the reason (an empty answer,
which the scorer counts as a parsing error) and the run goes on. The scorer cannot summarize every set of
tasks (``eai_virtualhome.summarizable``: the first 50 of the benchmark's order have no action goal it
scores): such a run is said so before the model loads, with the fewest tasks it would need, and is
planned all the same; its rows are written, its summary says why it has no score, and it exits with 1.

The language model defaults to the embedded SmolLM2 with the method's VirtualHome adapter where one is
shipped (``virtualhome_planners.default_llm``: SayCan's and ProgPrompt's), else without adapter
(``--llm adapter=none``; any ``--llm`` replaces the default): the kitchen's adapters learned kitchen
plans. Examples come from
VirtualHome programs that are not evaluated tasks (``data/virtualhome/examples.jsonl``). ``--json`` is
rewritten after every task; ``--resume`` keeps the tasks a stopped run with the same planner finished.

``--dev`` plans the development tasks instead (``examples.development_split``: every fourth example
program, each a task with the goals read off its own final scene) with only the other examples to
retrieve, and scores them by whether all their goals hold (``goals_hold``; the scorer knows only its own
tasks, and counts at most one edge goal). ``--dev-goals part`` asks each for a random part of its goals
(``examples.goal_subset``, seeded by the task), as a person asks for less than a program did. Options,
prompts and adapters are chosen on these, never on the benchmark's tasks.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, json_file, progress_bar, write_json

PUBLISHED = (("o1-preview", 71.1), ("GPT-4o", 61.6), ("Llama-3-8B", 21.6))
PUBLISHED_SOURCE = "Embodied Agent Interface (arXiv 2410.07166), VirtualHome action sequencing, task success rate"
DEFAULT_MAX_STEPS = 30
BENCHMARK, DEVELOPMENT = "benchmark", "development"
DEVELOPMENT_PART = "development (part of the goals)"
ALL_GOALS, PART_OF_THE_GOALS = "all", "part"
GOAL_SETS = (ALL_GOALS, PART_OF_THE_GOALS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from llm_planner_ros.planning.virtualhome_planners import METHODS

    parser.add_argument("--planner", required=True, choices=METHODS, help="the planning method")
    parser.add_argument("--tasks", default="", help="comma-separated task ids (e.g. 12_2,181_1); default all")
    parser.add_argument("--limit", type=int, default=0, help="only the first N tasks (0: all)")
    parser.add_argument("--every", type=int, default=1, help="only every K-th task (a subset spread over all)")
    parser.add_argument("--resume", action="store_true", help="keep the tasks the --json file already has")
    parser.add_argument("--markdown", type=Path, default=None, help="write the result table as Markdown here")
    parser.add_argument("--examples", type=Path, default=None, help="prompt examples (default: the packaged ones)")
    parser.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS, help="step budget of one task")
    parser.add_argument(
        "--llm", action="append", default=[], metavar="KEY=VALUE", help="language model setting (repeatable)"
    )
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a planner option (repeatable)"
    )
    parser.add_argument(
        "--dev",
        action="store_true",
        help="plan the development tasks (every 4th example program, scored by its own goals) instead of the "
        "benchmark's; the planners retrieve from the other examples only",
    )
    parser.add_argument(
        "--dev-goals",
        choices=GOAL_SETS,
        default=ALL_GOALS,
        help="with --dev: ask for every goal of a development task (all), or for a random part of them, "
        "the same part in every run (part; examples.goal_subset)",
    )
    add_json_argument(parser, "the summary and every task")


def plan_task(method: Any, task: Any, max_steps: int) -> dict[str, Any]:
    """Plan and execute one task; its row (plan, answer actions, how the plan ended, own goal check)."""
    from llm_planner_ros.domain.skill import TERMINATE
    from llm_planner_ros.planning.decision import StepStatus
    from llm_planner_ros.planning.plan_loop import run_plan
    from llm_planner_ros.planning.virtualhome_environment import VirtualHomeEnvironment

    started = time.perf_counter()
    env = VirtualHomeEnvironment.for_task(task)
    method.bind(env)
    instruction = env.instruction()
    result = run_plan(method.planner, instruction, env, max_steps)
    dispatched = [
        step.skill
        for step in result.steps
        if step.skill.family != TERMINATE and step.status in (StepStatus.SUCCEEDED, StepStatus.FAILED)
    ]
    return {
        "id": task.identifier,
        "name": task.name,
        "instruction": instruction,
        "plan": [skill.text for skill in dispatched],
        "answer": [env.vocabulary.action(skill).script() for skill in dispatched],
        "failed_steps": sum(step.status == StepStatus.FAILED for step in result.steps),
        "end": f"{result.reason.value}: {result.message}",
        "goals_reached": env.goals_reached,
        "all_goals_hold": env.goals_hold,
        "seconds": round(time.perf_counter() - started, 2),
    }


def unplanned(task_id: str, name: str, reason: str) -> dict[str, Any]:
    """The row of a task the bench could not set up or plan: failed, with the reason, nothing answered."""
    row: dict[str, Any] = {"id": task_id, "name": name, "instruction": "", "plan": [], "answer": []}
    failed = {"failed_steps": 0, "end": f"error: {reason}", "goals_reached": False, "all_goals_hold": False}
    return {**row, **failed, "seconds": 0.0}


def summarize(rows: Sequence[Mapping[str, Any]], tasks_by_id: Mapping[str, Any]) -> dict[str, Any]:
    """The scorer's verdict on the rows' answers, with the bench's own numbers beside it."""
    from llm_planner_ros.evaluation.eai_virtualhome import score_run
    from llm_planner_ros.virtualhome_domain.tasks import parse_script

    plans = {row["id"]: [parse_script(line) for line in row["answer"]] for row in rows}
    score = score_run(plans, tasks_by_id)
    scored = set(score.scored)
    return {
        "tasks": len(rows),
        "scored": len(score.scored),
        "task_success": score.success_rate,
        "task_success_with_gold_equal": round(score.success_with_gold_equal, 2),
        "execution_success": score.execution_rate,
        "gold_equal": len(score.gold_equal),
        "errors": score.error_rates(),
        "crashed": list(score.crashed),
        "own_goal_check": round(
            100.0 * sum(r["goals_reached"] for r in rows if r["id"] in scored) / max(len(scored), 1), 2
        ),
        "seconds_per_task": round(sum(r["seconds"] for r in rows) / max(len(rows), 1), 2),
        "per_task_error": {row["id"]: score.task_error(row["id"]) for row in rows},
    }


def summarize_development(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The development tasks' numbers: every goal of the task holds at the end (``goals_hold``: the scorer
    counts at most one edge goal) and plans whose every step ran, in % of the tasks."""
    count = max(len(rows), 1)
    executed = [row for row in rows if row["failed_steps"] == 0 and not row["end"].startswith("error")]
    return {
        "tasks": len(rows),
        "goal_success": round(100.0 * sum(row["all_goals_hold"] for row in rows) / count, 2),
        "execution_success": round(100.0 * len(executed) / count, 2),
        "seconds_per_task": round(sum(row["seconds"] for row in rows) / count, 2),
    }


def development_markdown(planner: str, model: str, summary: Mapping[str, Any]) -> str:
    """The development run's table (no published rows: these are not the benchmark's tasks)."""
    return (
        "| model (method) | development tasks | all goals hold % | every step ran % |\n|---|---|---|---|\n"
        f"| {model} ({planner}) | {summary['tasks']} | {summary['goal_success']:.1f} "
        f"| {summary['execution_success']:.1f} |\n"
    )


def markdown(planner: str, model: str, summary: Mapping[str, Any]) -> str:
    """The result table: this run's row, then the published rows."""
    errors = summary["errors"]
    lines = [
        "| model (method) | task success % | with gold-equal plans % | execution success % | tasks scored |",
        "|---|---|---|---|---|",
        f"| {model} ({planner}) | {summary['task_success']:.1f} | {summary['task_success_with_gold_equal']:.1f} "
        f"| {summary['execution_success']:.1f} | {summary['scored']} |",
        *(f"| {name} (published) | {rate:.1f} | | | |" for name, rate in PUBLISHED),
        "",
        "Error types (% of scored tasks): " + ", ".join(f"{k} {v:.1f}" for k, v in errors.items()),
        f"Published rows: {PUBLISHED_SOURCE}.",
    ]
    return "\n".join(lines) + "\n"


def scorer_needs(selection: Sequence[str], tasks_by_id: Mapping[str, Any]) -> str | None:
    """Why eai-eval's scorer cannot summarize the run's tasks (``tasks_by_id``: the first of ``selection``,
    the tasks asked for before --limit), with the fewest of ``selection`` it can; None where it can."""
    from llm_planner_ros.evaluation.eai_virtualhome import fewest_summarizable, summarizable

    if summarizable(tasks_by_id.values()):
        return None
    fewest = fewest_summarizable(selection, tasks_by_id)
    fix = (
        f"it needs at least the first {fewest} of the tasks asked for (--limit {fewest})"
        if fewest is not None
        else "add tasks to --tasks whose gold programs reach node, edge and action goals"
    )
    return (
        f"eai-eval's scorer cannot summarize these {len(tasks_by_id)} tasks (it divides by the number of tasks it "
        f"scores and by their node, edge and action goals, and these lack some): {fix}. The rows are written; "
        "the run gets no score"
    )


def _scored(
    console: Any,
    planner: str,
    model: str,
    rows: Sequence[Mapping[str, Any]],
    tasks_by_id: Mapping[str, Any],
    unscorable: str | None,
) -> tuple[dict[str, Any], str]:
    """(summary, table) of a benchmark run; where the scorer cannot summarize it, a summary that says why
    (``scorer``) and that reason as the table."""
    from llm_planner_ros.evaluation.eai_virtualhome import ScorerCannotSummarize

    if unscorable is None:
        console.print("scoring with eai-eval's evaluate_results ...")
        try:
            summary = summarize(rows, tasks_by_id)
            return summary, markdown(planner, model, summary)
        except ScorerCannotSummarize as error:  # plans that crash the scorer are left out: too few may remain
            unscorable = f"{error}. The rows are written; the run gets no score"
    return {"tasks": len(rows), "scored": 0, "scorer": unscorable}, unscorable + "\n"


def _resumed(path: Path | None, planner: str, tasks_from: str) -> dict[str, dict[str, Any]]:
    """The rows of a previous run of ``planner`` on the same tasks in the --json file, by task id."""
    if path is None or not path.is_file():
        return {}
    report = json.loads(path.read_text())
    if report.get("planner") != planner:
        raise SystemExit(f"--resume: {path} holds a run of {report.get('planner')!r}, not {planner!r}")
    if report.get("tasks_from", BENCHMARK) != tasks_from:
        raise SystemExit(
            f"--resume: {path} holds a run on the {report.get('tasks_from')} tasks, not the {tasks_from} ones"
        )
    return {row["id"]: row for row in report.get("rows", [])}


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from llm_planner_ros.llm.counting_model import CountingModel
    from llm_planner_ros.llm.factory import load_embedder, load_language_model
    from llm_planner_ros.options import parse_key_values
    from llm_planner_ros.planning.registry import load_planner_options, override_options
    from llm_planner_ros.planning.virtualhome_planners import (
        build_virtualhome_planner,
        default_llm,
        virtualhome_options,
    )
    from llm_planner_ros.virtualhome_domain.examples import (
        EXAMPLES_FILE,
        development_split,
        goal_subset,
        load_examples,
        program_task,
    )
    from llm_planner_ros.virtualhome_domain.tasks import task_names, tasks

    if args.resume and json_file(args.json) is None:
        raise SystemExit("--resume needs --json PATH: the file of the run to go on with")
    # Checked against the method's options as VirtualHome sets them (the packaged ones, then its `domains:
    # virtualhome:` section); only what --option names is handed on, the rest stays VirtualHome's.
    options = {args.planner: {**load_planner_options()[args.planner], **virtualhome_options(args.planner)}}
    overrides = parse_key_values(args.option, "--option")
    override_options(options, args.planner, overrides)
    chosen = {key: options[args.planner][key] for key in overrides}
    examples = load_examples(args.examples or EXAMPLES_FILE)
    if args.dev_goals != ALL_GOALS and not args.dev:
        raise SystemExit(f"--dev-goals {args.dev_goals} needs --dev: the benchmark's tasks have their own goals")
    tasks_from = BENCHMARK if not args.dev else DEVELOPMENT if args.dev_goals == ALL_GOALS else DEVELOPMENT_PART
    if args.dev:
        examples, development = development_split(examples)
        names = {example.id: example.name for example in development}
    else:
        names = task_names()
    wanted = [t for t in args.tasks.split(",") if t] or list(names)
    unknown = [t for t in wanted if t not in names]
    if unknown:
        what = "development task (--dev)" if args.dev else "action-sequencing task"
        like = next(iter(names)) if args.dev else "27_2"
        raise SystemExit(f"--tasks: no VirtualHome {what} {', '.join(unknown)}; ids are like {like}")
    if args.every < 1:
        raise SystemExit(f"--every must be at least 1, got {args.every}")
    selection = wanted[:: args.every]
    wanted = selection[: args.limit or None]
    done = _resumed(json_file(args.json), args.planner, tasks_from) if args.resume else {}
    console = Console()
    console.print(f"reading {len(wanted)} {tasks_from} tasks from eai-eval ...")
    if args.dev:
        tasks_by_id = {identifier: program_task(identifier) for identifier in wanted}
        if args.dev_goals == PART_OF_THE_GOALS:
            tasks_by_id = {i: goal_subset(task, random.Random(f"dev/{i}")) for i, task in tasks_by_id.items()}
    else:
        tasks_by_id = {task.identifier: task for task in tasks(wanted)}
    # Said before the model loads, and again in the summary: the rows of such a run are kept, unscored.
    unscorable = None if args.dev else scorer_needs(selection, tasks_by_id)
    if unscorable is not None:
        console.print(f"[yellow]{escape(unscorable)}")
    llm_config = parse_key_values(args.llm) if args.llm else default_llm(args.planner)
    console.print(f"loading the language model ({llm_config})")
    model = CountingModel(load_language_model(llm_config))
    method = build_virtualhome_planner(args.planner, model, load_embedder({}), examples, chosen)
    rows: list[dict[str, Any]] = []

    def report(summary: Mapping[str, Any] | None = None) -> dict[str, Any]:
        examples_file = str(args.examples or EXAMPLES_FILE)
        base = {"planner": args.planner, "model": model.name, "tasks_from": tasks_from, "examples": examples_file}
        return {**base, "summary": summary, "rows": rows}

    with progress_bar(console, f"{args.planner} on VirtualHome", len(wanted)) as bar:
        for task_id in wanted:
            bar.show(f"{args.planner}: {task_id} {names[task_id]}")
            if task_id in done:
                rows.append(done[task_id])
            else:
                model.reset()
                try:
                    row = plan_task(method, tasks_by_id[task_id], args.max_steps)
                except Exception as error:  # one task that cannot be set up or planned fails, the run goes on
                    row = unplanned(task_id, names[task_id], f"{type(error).__name__}: {error}")
                row["llm_calls"] = model.usage.calls
                rows.append(row)
                bar.say(
                    f"  {task_id} {names[task_id]}: {len(row['plan'])} steps, {row['end'][:80]}"
                    f"{' (goals reached)' if row['goals_reached'] else ''}"
                )
            write_json(args.json, report(), partial=True)
            bar.advance()
    if args.dev:
        summary = summarize_development(rows)
        table = development_markdown(args.planner, model.name, summary)
    else:
        summary, table = _scored(console, args.planner, model.name, rows, tasks_by_id, unscorable)
    write_json(args.json, report(summary), say=console.print)
    console.print(escape(table))
    if args.markdown is not None:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(table)
    return 0 if summary.get("scorer") is None else 1

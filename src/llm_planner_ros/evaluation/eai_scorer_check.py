r"""``llm-planner bench eai-scorer``: the Embodied Agent Interface's VirtualHome scorer on known plans.

    llm-planner bench eai-scorer [--limit N] [--seed 0] [--json PATH]

Before any planner is measured by a scorer nobody on this project wrote, this shows what that scorer
makes of plans whose quality is known, on every action-sequencing task (``eai_virtualhome``):

- ``gold``: each task's own gold program;
- ``drop one step``: the gold program without one step chosen at random (not the first or last);
- ``reversed``: the gold program backwards;
- ``one walk``: a single WALK to the first object the task may name.

For each: the scorer's task success and execution success rates (as its published rows were computed),
the success rate with a plan equal to the gold program counted as a success (the scorer never checks
such a plan's goals), its error-type rates, and the tasks whose plan made the scorer fail (left out of
its summary, listed). Progress per kind of plan; the scorer takes about a minute per 300 tasks on 2 cores,
and about three more when it fails on some plan and each plan is scored alone to find which.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, progress_bar, write_json
from llm_planner_ros.evaluation.eai_virtualhome import RunScore
from llm_planner_ros.virtualhome_domain.tasks import Action, Task


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=0, help="only the first N tasks (0: all 342)")
    parser.add_argument("--seed", type=int, default=0, help="which step 'drop one step' drops")
    add_json_argument(parser)


def broken_plans(seed: int) -> dict[str, Callable[[Task], Sequence[Action]]]:
    """The kinds of plan the check scores, by name."""
    rng = random.Random(seed)

    def drop_one(task: Task) -> Sequence[Action]:
        if len(task.gold) <= 2:
            return task.gold[:1]
        index = rng.randrange(1, len(task.gold) - 1)
        return (*task.gold[:index], *task.gold[index + 1 :])

    return {
        "gold": lambda task: task.gold,
        "drop one step": drop_one,
        "reversed": lambda task: tuple(reversed(task.gold)),
        "one walk": lambda task: (Action("WALK", (task.objects[0],)),),
    }


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from llm_planner_ros.evaluation.eai_virtualhome import score_run
    from llm_planner_ros.virtualhome_domain.tasks import EaiMissing, tasks

    console = Console()
    started = time.perf_counter()
    try:
        every = tasks()
    except EaiMissing as error:
        console.print(f"[red]{error}[/red]")
        return 2
    chosen = every[: args.limit] if args.limit else every
    by_id = {task.identifier: task for task in every}
    console.print(f"read {len(chosen)} of {len(every)} tasks in {time.perf_counter() - started:.0f} s")
    rows: list[dict[str, Any]] = []
    kinds = broken_plans(args.seed)
    with progress_bar(console, "kinds of plan", len(kinds)) as progress:
        for name, make in kinds.items():
            progress.show(f"scoring {name}")
            began = time.perf_counter()
            score = score_run({task.identifier: make(task) for task in chosen}, by_id)
            rows.append(_row(name, score, time.perf_counter() - began))
            progress.advance()
    table = Table(title=f"eai-eval's VirtualHome scorer on known plans ({len(chosen)} tasks)")
    columns = ("plans", "scored", "task SR", "SR, gold-equal counted", "exec SR", "errors", "scorer failed on")
    for column in columns:
        table.add_column(column, justify="left" if column in ("plans", "errors") else "right")
    for row in rows:
        errors = ", ".join(f"{key} {value:.1f}" for key, value in row["error_rates"].items() if value)
        table.add_row(
            row["plans"],
            str(row["scored"]),
            f"{row['task_success_rate']:.1f}%",
            f"{row['success_with_gold_equal']:.1f}%",
            f"{row['execution_success_rate']:.1f}%",
            errors or "-",
            str(len(row["scorer_failed_on"])),
        )
    console.print(table)
    write_json(args.json, {"tasks": len(chosen), "seed": args.seed, "rows": rows}, console.print)
    return 0


def _row(name: str, score: RunScore, seconds: float) -> dict[str, Any]:
    return {
        "plans": name,
        "scored": len(score.scored),
        "task_success_rate": score.success_rate,
        "success_with_gold_equal": round(score.success_with_gold_equal, 4),
        "execution_success_rate": score.execution_rate,
        "error_rates": score.error_rates(),
        "gold_equal": len(score.gold_equal),
        "scorer_failed_on": list(score.crashed),
        "scorer_failure": score.crash,
        "seconds": round(seconds, 1),
    }

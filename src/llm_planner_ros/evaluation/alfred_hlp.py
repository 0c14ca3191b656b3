"""``llm-planner bench alfred-hlp``: static high-level-plan accuracy of LLM-Planner on ALFRED.

For each task of a refined-commands file (``refined_valid_seen_commands.json`` of the "Revisiting
ALFRED" release, docs/benchmarks.md, or a held-out split in the same format) the static LLM-Planner
(``PlanGenerator``: K nearest examples of the LLM-Planner training set, ALFRED's high-level actions,
one greedy generation) writes a plan from the instruction of the chosen variant; a task counts as
correct when the normalized plan equals the normalized gold ``action_sequence`` exactly (LLM-Planner,
arXiv 2212.04088, section 5.2, "HLP ACC", static).
The training examples are shown in the same normalized vocabulary (llm_planner_ros.planning.llm_planner.alfred_plans).
The data default to the repository's copy in ``benchmarks/alfred_hlp/`` (its PROVENANCE.md).

``--grammar`` constrains the plan line (planning.llm_planner.alfred_grammar): ``none`` is the paper's free
generation; ``alfred`` allows ALFRED's actions on any of ALFRED's 108 object types (``--objects``), which
uses nothing of the task; ``episode`` allows only the objects of the task's gold plan, an oracle object
list (what a perfect detector that sees exactly the task's objects would give), an upper bound.

Prints accuracy, LLM calls per task and wall time (overall and per task type); ``--json`` writes them
with every task's instruction, gold, prediction and raw generation, ``accuracy`` at the top level.

``--start-bound`` loads no model: it reports the upper bound of evaluation.alfred_location_bound (each
gold plan with its start locations guessed from the training set, ``--examples``), the same table and
JSON with the guessed plan as the prediction.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, progress_bar, write_json
from llm_planner_ros.options import finite_float
from llm_planner_ros.planning.llm_planner.alfred_plans import (
    AlfredStep,
    json_list,
    load_examples,
    parse_plan_text,
    render_plan,
)

if TYPE_CHECKING:
    from llm_planner_ros.planning.llm_planner.planner import PlanGenerator

DATA_DIR = Path("benchmarks/alfred_hlp")
DEFAULT_DATA = DATA_DIR / "refined_valid_seen_commands.json"
DEFAULT_EXAMPLES = DATA_DIR / "llm_planner_knn_set.json"
DEFAULT_OBJECTS = DATA_DIR / "alfred_objects.txt"
GRAMMARS = ("none", "alfred", "episode")

# Variant name -> field of the refined-commands file holding that instruction.
VARIANTS = {
    "refined": "refined",
    "original": "original",  # a list of crowd-sourced goals; the first annotation is used
    "paraphrase1": "paraphras1_command",
    "paraphrase2": "paraphras2_command",
    "contextual": "contextual_command",
    "korean": "korean_command",
}


@dataclass(frozen=True)
class AlfredTask:
    """One evaluation task: its id and type, the instruction of the chosen variant, the gold plan."""

    task_id: str
    task_type: str
    instruction: str
    gold: list[AlfredStep]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="refined-commands JSON (tasks with gold plans)")
    parser.add_argument(
        "--examples", type=Path, default=DEFAULT_EXAMPLES, help="LLM-Planner training set JSON (retrieval pool)"
    )
    parser.add_argument(
        "--grammar",
        choices=GRAMMARS,
        default="none",
        help="constrain the plan line: none (free text), alfred (every ALFRED object type), "
        "episode (the objects of the task's gold plan: an oracle)",
    )
    parser.add_argument(
        "--objects", type=Path, default=DEFAULT_OBJECTS, help="ALFRED object types, one a line (--grammar alfred)"
    )
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="refined", help="which instruction to plan from")
    parser.add_argument("--k", type=int, default=9, help="in-context examples retrieved per task (paper: 9)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N tasks (0: all)")
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=112,
        help="budget of one generated plan (the longest training plan is 106 SmolLM2 tokens)",
    )
    parser.add_argument("--logit-bias", type=finite_float, default=0.1, help="bias on action-name tokens (0: off)")
    parser.add_argument(
        "--llm",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="language-model setting (llm_planner_ros.llm.factory.LLMConfig), repeatable: backend=openai, "
        "model=..., device=cuda, backend=replay recording=FILE (default: backend=hf, the embedded SmolLM2)",
    )
    parser.add_argument(
        "--start-bound",
        action="store_true",
        help="no model: the accuracy bound when start locations are guessed from the training set",
    )
    add_json_argument(parser, "the results")


def load_tasks(path: Path, variant: str) -> list[AlfredTask]:
    """The tasks of a refined-commands file; ValueError names the entry and the missing field."""
    field = VARIANTS[variant]
    tasks = []
    for index, entry in enumerate(json_list(path)):
        missing = [key for key in ("task_id", "action_sequence", field) if key not in entry]
        if missing:
            raise ValueError(f"{path}: entry {index} lacks {', '.join(missing)} (is it a refined-commands file?)")
        instruction = entry[field][0] if isinstance(entry[field], list) else entry[field]
        if not isinstance(instruction, str) or not instruction.strip():
            raise ValueError(f"{path}: entry {index} ({entry['task_id']}) has no {variant} instruction")
        gold = parse_plan_text(entry["action_sequence"])
        tasks.append(AlfredTask(entry["task_id"], entry.get("task_type", ""), instruction.strip(), gold))
    return tasks


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from llm_planner_ros.llm.base import LLMError

    console = Console(stderr=True)
    try:
        report = _start_bound(args) if args.start_bound else _evaluate(args, console)
    except (ValueError, LLMError) as error:
        console.print(f"[red]alfred-hlp: {error}[/red]")
        return 2
    _print_summary(report, args.data.name)
    write_json(args.json, report, console.print)
    return 0


def _evaluate(args: argparse.Namespace, console: Any) -> dict[str, Any]:
    """Load everything, plan every task, and return the report (summary fields plus per-task results)."""
    from llm_planner_ros.llm.counting_model import CountingModel
    from llm_planner_ros.llm.factory import load_embedder, load_language_model, method_llm_config
    from llm_planner_ros.options import parse_key_values
    from llm_planner_ros.paths import repo_path
    from llm_planner_ros.planning.knn_retriever import KnnRetriever
    from llm_planner_ros.planning.llm_planner.alfred_grammar import load_object_types
    from llm_planner_ros.planning.llm_planner.alfred_plans import ACTIONS
    from llm_planner_ros.planning.llm_planner.planner import GenerationOptions, PlanGenerator
    from llm_planner_ros.planning.llm_planner.prompt import LlmPlannerPrompt

    args.data, args.examples = repo_path(args.data), repo_path(args.examples)
    tasks = load_tasks(args.data, args.variant)
    tasks = tasks[: args.limit] if args.limit > 0 else tasks
    examples = load_examples(args.examples)
    object_types = load_object_types(repo_path(args.objects)) if args.grammar == "alfred" else []
    options = GenerationOptions(examples=args.k, max_tokens=args.max_tokens, logit_bias=args.logit_bias)
    # The embedded model gets the adapter trained on LLM-Planner's ALFRED training set (docs/llm.md).
    llm_config = method_llm_config({"backend": "hf", **parse_key_values(args.llm)}, "alfred_hlp")
    loading = time.perf_counter()
    model = CountingModel(load_language_model(llm_config, report=console.print))
    retriever = KnnRetriever(examples, lambda example: example.task, load_embedder({}))
    generator = PlanGenerator(model, retriever, LlmPlannerPrompt(), options)

    header = {
        "benchmark": "alfred-hlp",
        "variant": args.variant,
        "data": str(args.data),
        "examples": str(args.examples),
        "k": args.k,
        "max_tokens": args.max_tokens,
        "logit_bias": args.logit_bias,
        "grammar": args.grammar,
        "llm": llm_config,
        "model": model.name,
        "load_seconds": round(time.perf_counter() - loading, 3),
    }
    results: list[dict[str, Any]] = []
    started = time.perf_counter()

    def report(finished: bool) -> dict[str, Any]:
        summary = _summary(results, model.usage.calls, time.perf_counter() - started)
        return {**header, "finished": finished, **summary, "results": results}

    with progress_bar(console, f"alfred-hlp {args.variant}", len(tasks)) as progress:
        for task in tasks:
            results.append(_plan_task(task, generator, ACTIONS, _grammar_for(task, args.grammar, object_types)))
            # Long runs on shared machines get cut: keep what is done so far.
            write_json(args.json, report(finished=False), partial=True)
            progress.advance()
    return report(finished=True)


def _start_bound(args: argparse.Namespace) -> dict[str, Any]:
    """The report of ``--start-bound`` (module docstring): every task, no model."""
    from llm_planner_ros.evaluation.alfred_location_bound import StartPrior, with_guessed_starts
    from llm_planner_ros.paths import repo_path

    args.data, args.examples = repo_path(args.data), repo_path(args.examples)
    tasks = load_tasks(args.data, args.variant)
    tasks = tasks[: args.limit] if args.limit > 0 else tasks
    prior = StartPrior.of_examples(load_examples(args.examples))
    results = []
    for task in tasks:
        guessed = with_guessed_starts(task.gold, prior)
        results.append(
            {
                "task_id": task.task_id,
                "task_type": task.task_type,
                "instruction": task.instruction,
                "gold": render_plan(task.gold),
                "predicted": render_plan(guessed),
                "correct": guessed == task.gold,
            }
        )
    header = {
        "benchmark": "alfred-hlp",
        "variant": args.variant,
        "data": str(args.data),
        "examples": str(args.examples),
    }
    return {**header, "grammar": "none", "model": "start-location bound", "load_seconds": 0.0, "finished": True,
            **_summary(results, 0, 0.0), "results": results}  # fmt: skip


def _grammar_for(task: AlfredTask, mode: str, object_types: Sequence[str]) -> str | None:
    """The plan grammar of ``mode`` for ``task`` (module docstring), None for free generation."""
    from llm_planner_ros.planning.llm_planner.alfred_grammar import alfred_plan_grammar

    if mode == "none":
        return None
    if mode == "alfred":
        return alfred_plan_grammar(object_types)
    return alfred_plan_grammar(name for step in task.gold for name in step.arguments)


def _plan_task(
    task: AlfredTask, generator: PlanGenerator, actions: Sequence[str], grammar: str | None = None
) -> dict[str, Any]:
    """One task's result: gold, prediction, raw generation, correctness, seconds (and the error, if any)."""
    from llm_planner_ros.llm.base import LLMError

    started = time.perf_counter()
    result: dict[str, Any] = {
        "task_id": task.task_id,
        "task_type": task.task_type,
        "instruction": task.instruction,
        "gold": render_plan(task.gold),
    }
    try:
        generated = generator.generate(task.instruction, actions, grammar=grammar)
    except LLMError as error:  # one bad request (say, a prompt over the context window) fails one task
        result.update(predicted="", generated="", correct=False, error=str(error))
    else:
        predicted = parse_plan_text(generated.text)
        result.update(predicted=render_plan(predicted), generated=generated.text, correct=predicted == task.gold)
    result["seconds"] = round(time.perf_counter() - started, 3)
    return result


def _print_summary(report: dict[str, Any], data_name: str) -> None:
    from rich.console import Console
    from rich.table import Table

    title = f"ALFRED-HLP static plan accuracy ({report['variant']}, grammar {report['grammar']}, {data_name}, "
    table = Table(title=f"{title}{report['model']})")
    for column in ("task type", "tasks", "correct", "accuracy"):
        table.add_column(column, justify="left" if column == "task type" else "right")
    for task_type, row in report["by_task_type"].items():
        table.add_row(task_type, str(row["tasks"]), str(row["correct"]), f"{row['accuracy']:.1%}")
    table.add_row("all", str(report["tasks"]), str(report["correct"]), f"{report['accuracy']:.1%}", style="bold")
    console = Console()
    console.print(table)
    console.print(
        f"LLM calls per task: {report['llm_calls_per_task']:.2f}; wall time {report['seconds']:.1f} s "
        f"({report['seconds_per_task']:.2f} s per task; model loading {report['load_seconds']:.1f} s); "
        f"failed requests: {report['errors']}"
    )


def _summary(results: Sequence[dict[str, Any]], calls: int, seconds: float) -> dict[str, Any]:
    total = len(results)
    correct = sum(r["correct"] for r in results)
    per_type_total = Counter(r["task_type"] for r in results)
    per_type_correct = Counter(r["task_type"] for r in results if r["correct"])
    by_type = {
        task_type: {"tasks": n, "correct": per_type_correct[task_type], "accuracy": per_type_correct[task_type] / n}
        for task_type, n in sorted(per_type_total.items())
    }
    return {
        "tasks": total,
        "correct": correct,
        "errors": sum("error" in r for r in results),
        "accuracy": correct / total if total else 0.0,
        "llm_calls_per_task": calls / total if total else 0.0,
        "seconds": round(seconds, 3),
        "seconds_per_task": round(seconds / total, 3) if total else 0.0,
        "by_task_type": by_type,
    }

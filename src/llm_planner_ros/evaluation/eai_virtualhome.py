"""VirtualHome action sequencing as the Embodied Agent Interface scores it (``eai-eval`` 1.0.5, MIT licence;
"Embodied Agent Interface: Benchmarking LLMs for Embodied Decision Making", arXiv 2410.07166).

The benchmark's tasks, scene graphs, symbolic simulator and scorer all come from the installed
``eai-eval`` wheel (``make setup`` installs it without its other evaluations' dependencies); nothing of
it is copied here. ``virtualhome_domain.tasks`` reads its tasks; this module writes plans in its JSON
answer format (``answer_text``) and runs its own scorer, ``evaluate_results``, on a run's plans
(``score_run``).

The scorer's quirk: a plan exactly equal to the task's gold program is counted as executable and never
checked against the goals, so it never counts as a success (``evaluate_results.py``). ``RunScore``
keeps the scorer's summary as the published rows were computed, and beside it the success rate with
that case counted as a success. Its JSON reader also drops an action without objects (``"SLEEP": []``),
so no plan can carry one. The scorer skips a task whose own gold program misses its goals
(``Task.gold_reaches_goals``, the scorer's own check), so rates are over the tasks it scores; and it
cannot summarize a set of tasks without one it scores, or whose scored tasks have no node, edge or
action goal between them (it divides by their count): ``summarizable`` tells beforehand,
``ScorerCannotSummarize`` when it happened.
"""

from __future__ import annotations

import json
import tempfile
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.virtualhome_domain.tasks import SCENE_ID, Action, Task, package_paths, quiet, tasks

RESPONSES = ("virtualhome", "action_sequencing")
# The scorer's error types of one plan, by the names its summary gives their rates.
ERROR_NAMES = {
    "parsing error": "parsing",
    "hallucination error": "hallucination",
    "parameter error": "predicate_argument_number",
    "wrong_temporal_order": "wrong_order",
    "missing_step": "missing_step",
    "affordance_error": "affordance_error",
    "additional_step": "additional_step",
}


@dataclass(frozen=True)
class RunScore:
    """The scorer's verdict on a run. ``summary``: its own summary (rates in percent, as published);
    ``errors``: its record of each plan but those equal to the gold program (``executable``,
    ``error_type``); ``scored``: the tasks it scored; ``gold_equal``: the scored tasks whose plan equals
    the gold program; ``success_with_gold_equal``: the success rate with those counted as successes;
    ``crashed``: tasks whose plan made the scorer fail (``crash``: its error), left out of ``summary``."""

    summary: Mapping[str, Any]
    errors: Mapping[str, Mapping[str, Any]]
    scored: tuple[str, ...]
    gold_equal: tuple[str, ...]
    crashed: tuple[str, ...] = ()
    crash: str = ""

    @property
    def success_rate(self) -> float:
        return float(self.summary["goal_evaluation"]["task_success_rate"])

    @property
    def execution_rate(self) -> float:
        return float(self.summary["trajectory_evaluation"]["execution_success_rate"])

    @property
    def success_with_gold_equal(self) -> float:
        return self.success_rate + 100.0 * len(self.gold_equal) / max(len(self.scored), 1)

    def error_rates(self) -> dict[str, float]:
        """The scorer's rate of each error type (grammar and runtime), in percent of the scored tasks."""
        trajectory = self.summary["trajectory_evaluation"]
        return {**trajectory["grammar_error"], **trajectory["runtime_error"]}

    def task_error(self, identifier: str) -> str | None:
        """The scorer's error type of one task's plan (``ERROR_NAMES``), None when it was executable."""
        info = self.errors.get(identifier)
        if info is None or info["executable"]:
            return None
        return ERROR_NAMES.get(str(info["error_type"]), str(info["error_type"]))


class ScorerCannotSummarize(RuntimeError):
    """The scorer divided by zero: the run has no task it scores, or none of those has a node, an edge or
    an action goal (``summarizable``)."""


# The scorer's summary divides by the number of tasks it scores and by their goals of each of these kinds.
SUMMARY_GOALS = ("node_goals", "edge_goals", "action_goals")
TASKS_READ_AT_ONCE = 16  # reading a task runs its gold program (about 0.1 s): read no more than needed


def summarizable(run: Iterable[Task]) -> bool:
    """Whether the scorer can summarize a run of these tasks: it scores at least one of them (its gold
    program reaches its goals), and those it scores have node, edge and action goals between them."""
    scored = [task for task in run if task.gold_reaches_goals]
    return bool(scored) and all(any(getattr(task, kind) for task in scored) for kind in SUMMARY_GOALS)


def fewest_summarizable(identifiers: Sequence[str], read: Mapping[str, Task]) -> int | None:
    """The fewest of ``identifiers``, from the first on, that the scorer can summarize (None: not even all
    of them). Tasks missing from ``read`` are read as far as needed."""
    known = dict(read)
    for end in range(1, len(identifiers) + 1):
        if identifiers[end - 1] not in known:
            more = [i for i in identifiers[end - 1 : end - 1 + TASKS_READ_AT_ONCE] if i not in known]
            known.update((task.identifier, task) for task in tasks(more))
        if summarizable(known[i] for i in identifiers[:end]):
            return end
    return None


def answer_text(actions: Sequence[Action]) -> str:
    """A plan in the benchmark's answer format: one JSON object whose keys are the actions in order (keys
    repeat; the scorer reads them in order) and whose values list each object's name and id."""
    pairs = (
        f"{json.dumps(a.name)}: {json.dumps([x for name, index in a.objects for x in (name, str(index))])}"
        for a in actions
    )
    return "{" + ", ".join(pairs) + "}"


def _evaluate(answers: Mapping[str, str], work: Path, model: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """eai-eval's ``evaluate_results`` on ``answers`` (identifier -> answer text): (summary, error info)."""
    from virtualhome_eval.evaluation.action_sequencing.scripts.evaluate_results import evaluate_results

    resources, dataset, evaluation = package_paths()
    responses = work / "responses"
    folder = responses.joinpath(*RESPONSES)
    folder.mkdir(parents=True, exist_ok=True)
    outputs = [{"identifier": key, "llm_output": text} for key, text in answers.items()]
    (folder / f"{model}_outputs.json").write_text(json.dumps(outputs))
    args = types.SimpleNamespace(
        dataset="virtualhome",
        llm_response_path=str(responses),
        resource_dir=str(resources),
        dataset_dir=str(dataset),
        output_dir=str(work / "scored"),
        scene_id=SCENE_ID,
        evaluation_dir=str(evaluation),
        num_workers=1,
    )
    with quiet():
        summary, errors = evaluate_results(args)[model]
    return summary, errors


def score_run(plans: Mapping[str, Sequence[Action] | str], tasks_by_id: Mapping[str, Task]) -> RunScore:
    """The scorer on a run: identifier -> the plan (actions, or an answer text as a model wrote it).

    The scorer stops the whole run on some plans (an assertion on an error type its own checker did not
    classify); then each plan is scored beside a reference task to find those, they are reported as
    crashed (failed, with the scorer's error) and the run is scored without them."""
    answers = {key: plan if isinstance(plan, str) else answer_text(plan) for key, plan in plans.items()}
    crashed: tuple[str, ...] = ()
    crash = ""
    try:
        summary, errors = _evaluate_run(answers)
    except ScorerCannotSummarize:
        raise
    except Exception as error:  # the scorer's own failure on some plan: find which, then go on without it
        crash = f"{type(error).__name__}: {error}"
        crashed = tuple(key for key in answers if _crashes(key, answers[key], tasks_by_id))
        summary, errors = _evaluate_run({key: text for key, text in answers.items() if key not in crashed})
    scored = tuple(key for key in answers if tasks_by_id[key].gold_reaches_goals and key not in crashed)
    # The scorer records every scored plan in its error info except one equal to the gold program.
    return RunScore(summary, errors, scored, tuple(key for key in scored if key not in errors), crashed, crash)


def _evaluate_run(answers: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="eai-") as folder:
        try:
            return _evaluate(answers, Path(folder), "run")
        except ZeroDivisionError as error:
            raise ScorerCannotSummarize(
                "eai-eval's scorer cannot summarize these tasks: it scores none of them, or those it scores have "
                "no node, edge or action goal between them (it divides by their number); score more tasks at once"
            ) from error


def _crashes(key: str, answer: str, tasks_by_id: Mapping[str, Task]) -> bool:
    """Whether the scorer fails on ``answer`` alone, scored beside the gold program of a task with node,
    edge and action goals (so that the scorer has something to divide by)."""
    reference = next(
        task
        for task in tasks_by_id.values()
        if task.identifier != key and task.gold_reaches_goals and task.edge_goals and task.action_goals
    )
    try:
        _evaluate_run({key: answer, reference.identifier: answer_text(reference.gold)})
    except ScorerCannotSummarize:
        return False
    except Exception:
        return True
    return False

r"""Build the VirtualHome prompt examples from eai-eval's programs that are not evaluated tasks.

    llm-planner train virtualhome-examples --out data/virtualhome/examples.jsonl

Each such program (``virtualhome_domain.examples.program_ids``) becomes one example: its request written by
the same ``render_instruction`` as an evaluated task's, from the goals read off its final scene, and its
steps its actions as skill texts, ending in ``done``. A program is kept only when every step runs in the
simulator from its initial scene; actions without objects (``STANDUP``, ``SLEEP``) are left out of the
steps, since the benchmark's answer format cannot carry them.

The fairness check runs with the build and is printed: no example shares an identifier, a request or a
plan with an evaluated task (one that does is dropped and counted); how many share a task name is
reported (VirtualHome reuses task names such as "Turn on light" across different programs).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.paths import repo_path
from llm_planner_ros.planning.virtualhome_environment import VirtualHomeEnvironment
from llm_planner_ros.virtualhome_domain.examples import (
    EXAMPLES_FILE,
    VirtualHomeExample,
    program_ids,
    program_task,
)
from llm_planner_ros.virtualhome_domain.tasks import Task, tasks


def build_example(identifier: str) -> VirtualHomeExample | str:
    """The example of one program, or why it is left out."""
    return task_example(program_task(identifier))


def task_example(task: Task, until_goals_hold: bool = False) -> VirtualHomeExample | str:
    """``task`` as an example: its request, and its gold program as steps (cut after the first step at which
    all its goals hold, with ``until_goals_hold``: a goal-subset task, ``goal_subset``), or why it cannot be
    one."""
    env = VirtualHomeEnvironment.for_task(task)
    initial = env.describe_state()
    steps = []
    for action in task.gold:
        if not action.objects:
            continue  # the answer format cannot carry an action without objects (STANDUP, SLEEP)
        text = env.vocabulary.text(action)
        if text is None:
            return f"{action.script()} has no skill"
        outcome = env.execute(next(s for s in env.vocabulary.skills if s.text == text))
        if not outcome.success:
            return f"{action.script()} does not run: {outcome.message}"
        steps.append(text)
        if until_goals_hold and env.goals_hold:
            break
    else:
        if until_goals_hold:
            return "its goals never all hold"
    if not steps:
        return "no step with objects"
    return VirtualHomeExample(
        task.identifier, task.name, env.instruction(), (*steps, "done"), tuple(env.observed_objects()), initial
    )


@dataclass(frozen=True)
class Evaluated:
    """What an evaluated task must not share with an example: id, request, plan (skill texts); and its name."""

    id: str
    name: str
    request: str
    plan: tuple[str, ...]


def evaluated(chosen: Iterable[Task]) -> list[Evaluated]:
    """The evaluated tasks as the fairness check compares them (the plan: the gold program as skill texts,
    script lines where an action has no skill)."""
    found = []
    for task in chosen:
        env = VirtualHomeEnvironment.for_task(task)
        plan = tuple(env.vocabulary.text(a) or a.script() for a in task.gold if a.objects)
        found.append(Evaluated(task.identifier, task.name, env.instruction(), plan))
    return found


def fairness_check(
    examples: Iterable[VirtualHomeExample], against: Sequence[Evaluated]
) -> tuple[list[VirtualHomeExample], dict[str, int]]:
    """Drop examples that share an identifier, a request or a plan with an evaluated task; the counts
    (``same_name_kept``: kept examples whose task name an evaluated task has)."""
    ids, requests = {e.id for e in against}, {e.request for e in against}
    plans, names = {e.plan for e in against}, {e.name for e in against}
    kept, counts = [], {"same_id": 0, "same_request": 0, "same_plan": 0, "same_name_kept": 0}
    for example in examples:
        if example.id in ids:
            reason = "same_id"
        elif example.instruction in requests:
            reason = "same_request"
        elif example.steps[:-1] in plans:
            reason = "same_plan"
        else:
            counts["same_name_kept"] += example.name in names
            kept.append(example)
            continue
        counts[reason] += 1
    return kept, counts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train virtualhome-examples``."""
    parser.add_argument("--out", type=Path, default=EXAMPLES_FILE, help="the examples file to write")


def run(args: argparse.Namespace) -> int:
    """Build the examples and write the ones the fairness check keeps (see the module docstring)."""
    identifiers = program_ids()
    built: list[VirtualHomeExample] = []
    for number, identifier in enumerate(identifiers, start=1):
        result = build_example(identifier)
        if isinstance(result, str):
            print(f"  {number}/{len(identifiers)} {identifier}: left out ({result})", flush=True)
        else:
            built.append(result)
            print(f"  {number}/{len(identifiers)} {identifier}: {len(result.steps) - 1} steps", flush=True)
    print("fairness check against the 342 evaluated tasks ...", flush=True)
    kept, counts = fairness_check(built, evaluated(tasks()))
    out = repo_path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(example.to_json() + "\n" for example in kept))
    print(
        f"{len(kept)} examples from {len(identifiers)} programs that are not evaluated tasks -> {out}; dropped: "
        f"{counts['same_id']} same id, {counts['same_request']} same request, {counts['same_plan']} same plan; "
        f"{counts['same_name_kept']} kept share a task name with an evaluated task"
    )
    return 0

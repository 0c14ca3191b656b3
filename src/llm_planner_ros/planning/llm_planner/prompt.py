"""LLM-Planner's prompt (LLM-Planner, arXiv 2212.04088, section 4.2, figure 2 and table 3) and its training examples.

The prompt is, in order: an explanation of the task, the allowed high-level actions, the K retrieved
in-context examples, then the test task with the subgoals completed so far and the objects perceived so
far, ending with "Next plan:". Every example and the test task share one layout:

    Task description: Take the apple over to the table.
    Completed plans: find an apple, pick up the apple       (only when some are)
    Visible objects are apple, tea, water bottle              (only when some are known)
    Next plan: go to the table, put down the apple, done

A plan is one line of steps joined by ", ", so a newline ends the generation.

For a model trained on this format (the embedded model's adapter, ``planning.llm_planner.training``) the
planner can show no examples (K=0) and give the test task a scene line (``saycan.scene.describe_scene``,
its ``scene_context`` option) before the visible objects, which alone do not say where the robot is, what
it holds, or where each object lies:

    Task description: Take the apple over to the table.
    Scene: robot at the far counter, holding nothing. close counter: apple. ...
    Visible objects are apple, tea
    Next plan:
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.yaml_text import load_yaml

DEFAULT_INTRODUCTION = (
    "Create a high-level plan for completing a household task using the allowed actions and visible objects."
)
STEP_DELIMITER = ", "
PLAN_STOP = "\n"


@dataclass(frozen=True)
class PlanExample:
    """One training example: a task, its high-level plan (steps in order), the objects visible in its scene."""

    task: str
    steps: tuple[str, ...]
    objects: tuple[str, ...] = ()


@dataclass(frozen=True)
class LlmPlannerPrompt:
    """Renders the prompt of one (re-)planning call; ``introduction`` is the task explanation."""

    introduction: str = DEFAULT_INTRODUCTION

    def render(
        self,
        task: str,
        actions: Sequence[str],
        examples: Sequence[PlanExample],
        completed: Sequence[str] = (),
        objects: Sequence[str] = (),
        scene: str = "",
    ) -> str:
        """The full prompt; ``examples`` appear in the given order (the planner puts the nearest last,
        next to the test task, where a small model attends most); ``scene`` (one line, empty = none)
        goes into the test task's block."""
        header = f"{self.introduction}\nAllowed actions are {STEP_DELIMITER.join(actions)}."
        blocks = [header, *(_block(e.task, (), e.objects, e.steps) for e in examples)]
        blocks.append(_block(task, completed, objects, None, scene))
        return "\n\n".join(blocks)


def split_plan(text: str) -> list[str]:
    """The steps of a generated plan line (``, `` separated; stray periods and blanks dropped)."""
    steps = (step.strip().strip(".").strip() for step in text.split(PLAN_STOP)[0].split(STEP_DELIMITER.strip()))
    return [step for step in steps if step]


def load_plan_examples(path: str | Path) -> tuple[LlmPlannerPrompt, list[PlanExample]]:
    """The prompt introduction and the examples of an examples file (domains/saycan_kitchen/examples/llm_planner.yaml).

    Raises ValueError naming the file and the entry when the layout is wrong."""
    data = load_yaml(Path(path).read_text(), str(path)) or {}
    entries = data.get("examples") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: expected a non-empty `examples:` list of {{task, plan, objects}} entries")
    examples = [_example(entry, f"{path}: examples[{index}]") for index, entry in enumerate(entries)]
    introduction = data.get("introduction", DEFAULT_INTRODUCTION)
    if not isinstance(introduction, str) or not introduction.strip():
        raise ValueError(f"{path}: `introduction` must be a non-empty string (or left out for the paper's)")
    return LlmPlannerPrompt(introduction.strip()), examples


def _example(entry: Any, where: str) -> PlanExample:
    if not isinstance(entry, dict) or not isinstance(entry.get("task"), str) or not _strings(entry.get("plan")):
        raise ValueError(f"{where}: needs `task` (text) and `plan` (a non-empty list of skill texts)")
    objects = entry.get("objects", [])
    if not isinstance(objects, list) or not all(isinstance(o, str) for o in objects):
        raise ValueError(f"{where}: `objects` must be a list of object labels")
    unknown = sorted(set(entry) - {"task", "plan", "objects"})
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: task, plan, objects")
    return PlanExample(entry["task"].strip(), tuple(entry["plan"]), tuple(objects))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v.strip() for v in value)


def _block(
    task: str, completed: Sequence[str], objects: Sequence[str], plan: Sequence[str] | None, scene: str = ""
) -> str:
    lines = [f"Task description: {task}"]
    if completed:
        lines.append(f"Completed plans: {STEP_DELIMITER.join(completed)}")
    if scene.strip():
        lines.append(" ".join(scene.split()))
    if objects:
        lines.append(f"Visible objects are {STEP_DELIMITER.join(objects)}")
    lines.append("Next plan:" if plan is None else f"Next plan: {STEP_DELIMITER.join(plan)}")
    return "\n".join(lines)

"""Zero-shot planning's prompt (Huang et al., arXiv 2201.07207, section 3): the demonstration set, read
from domains/saycan_kitchen/examples/zero_shot.yaml, and the prompt of one step after the nearest demonstration."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.yaml_text import load_yaml

STEP_STOP = "\n"


@dataclass(frozen=True)
class Demonstration:
    """One example of the demonstration set: a task and its plan in skill texts."""

    task: str
    steps: tuple[str, ...]


def step_prompt(example: Demonstration, instruction: str, done: Sequence[str], scene: str = "") -> str:
    """The prompt of the step after ``done``: the demonstration, the instruction (with the ``scene``
    line under it when one is given) and the steps done so far, ending with the next step's ``Step N:``
    (the model writes " <skill>" and a newline)."""
    demonstration = _task_block(example.task, example.steps)
    return f"{demonstration}\n\n{_task_block(instruction, done, scene)}\nStep {len(done) + 1}:"


def _task_block(task: str, steps: Sequence[str], scene: str = "") -> str:
    lines = [f"Task: {task}", *([" ".join(scene.split())] if scene.strip() else [])]
    lines += [f"Step {index}: {step}" for index, step in enumerate(steps, start=1)]
    return "\n".join(lines)


def load_demonstrations(path: str | Path) -> list[Demonstration]:
    """The demonstration set of a file like a domain's examples/zero_shot.yaml; ValueError names a bad entry."""
    data = load_yaml(Path(path).read_text(), str(path)) or {}
    entries = data.get("demonstrations") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: expected a non-empty `demonstrations:` list of {{task, steps}} entries")
    demonstrations = []
    for index, entry in enumerate(entries):
        steps = entry.get("steps") if isinstance(entry, dict) else None
        if (
            not isinstance(entry, dict)
            or set(entry) != {"task", "steps"}
            or not isinstance(entry["task"], str)
            or not isinstance(steps, list)
            or not steps
            or not all(isinstance(s, str) and s.strip() for s in steps)
        ):
            raise ValueError(f"{path}: demonstrations[{index}] needs exactly `task` (text) and `steps` (skill texts)")
        demonstrations.append(Demonstration(entry["task"].strip(), tuple(steps)))
    return demonstrations

"""VirtualHome prompt examples: the file format, and what the examples are read from.

eai-eval ships 518 VirtualHome programs of scene 1 (``executable_programs``, with each program's initial
and final scene graphs); 342 are the action-sequencing tasks the benchmark scores. The other 176 are never
scored (``program_ids``), and only they become examples (``llm_planner_ros.training.virtualhome_examples``
builds the file): a program's request is its task name with goals read off its own final scene
(``program_goals``: states and relations of its objects that the program changed, and the actions it ran
that leave no trace in the scene, such as looking at or touching), its steps its actions as skill texts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from llm_planner_ros.paths import repo_path
from llm_planner_ros.virtualhome_domain.tasks import (
    SCENE_ID,
    Task,
    package_paths,
    parse_script,
    planner_for,
    task_names,
)

EXAMPLES_FILE = Path("data/virtualhome/examples.jsonl")
# Every DEV_EVERY-th example of the file is the development set: never retrieved, never trained on.
DEV_EVERY = 4
# Goals read off a program's final scene, as the benchmark's goals are written.
GOAL_STATES = {"ON", "OFF", "OPEN", "CLOSED", "PLUGGED_IN", "SITTING", "LYING"}
GOAL_RELATIONS = {"ON", "INSIDE", "HOLDS_RH", "HOLDS_LH", "FACING"}
# Actions that change nothing in the scene graph: a task asks for them as action goals.
TRACELESS = ("LOOKAT", "WATCH", "READ", "TOUCH", "DRINK", "TYPE", "WASH", "RINSE", "SCRUB", "WIPE", "PUSH", "PULL")


@dataclass(frozen=True)
class VirtualHomeExample:
    """One program as a prompt example: its file id, task name, request, steps (skill texts, ending in
    ``done``), the names of the objects its vocabulary had, and its initial state as the environment
    describes it (SayCanPay's prompt shows it)."""

    id: str
    name: str
    instruction: str
    steps: tuple[str, ...]
    objects: tuple[str, ...]
    initial: str

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "steps": list(self.steps), "objects": list(self.objects)})

    @classmethod
    def from_json(cls, line: str) -> VirtualHomeExample:
        data = json.loads(line)
        return cls(**{**data, "steps": tuple(data["steps"]), "objects": tuple(data["objects"])})


def load_examples(path: str | Path = EXAMPLES_FILE) -> list[VirtualHomeExample]:
    """The examples of ``path``; FileNotFoundError says how to build them, ValueError names a line that is
    not an example."""
    resolved = repo_path(path)
    build = f"`llm-planner train virtualhome-examples --out {path}`"
    if not resolved.is_file():
        raise FileNotFoundError(f"no VirtualHome examples at {resolved}: build them with {build}")
    examples = []
    for number, line in enumerate(resolved.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            examples.append(VirtualHomeExample.from_json(line))
        except (ValueError, TypeError, KeyError) as error:
            raise ValueError(
                f"{resolved}:{number}: not a VirtualHome example ({error}); rebuild with {build}"
            ) from None
    return examples


def development_split(
    examples: Sequence[VirtualHomeExample],
) -> tuple[list[VirtualHomeExample], list[VirtualHomeExample]]:
    """(train, development): every ``DEV_EVERY``-th example in the file's order is a development task (its
    program planned from its request and scored by its own goals, ``program_task``), the rest the examples
    the planners retrieve and the adapter trains on. Nothing evaluated is in either, so a method may be
    tuned on the development tasks."""
    train = [example for number, example in enumerate(examples, start=1) if number % DEV_EVERY]
    development = [example for number, example in enumerate(examples, start=1) if not number % DEV_EVERY]
    return train, development


def program_task(identifier: str) -> Task:
    """A program that is not an evaluated task, as a task of its own : its goals read off its
    final scene (``program_goals``), its actions the gold plan. Examples are built from such tasks, and
    development tasks are planned and scored as them."""
    simulator, gold = planner_for(identifier)
    actions = tuple(parse_script(line) for line in gold)
    nodes, edges, action_goals = program_goals(simulator, actions)
    objects = tuple(sorted({(name, index) for action in actions for name, index in action.objects}))
    return Task(
        identifier, program_name(identifier), objects, tuple(nodes), tuple(edges), tuple(action_goals), actions, True
    )


def goal_subset(task: Task, rng: random.Random) -> Task:
    """``task`` asking for part of its goals: a non-empty subset of its node, edge and action goals, of a
    size drawn uniformly, then its members uniformly; ``task`` itself when it has no goals.

    A program's own request lists every state it changed; a person asks for less ("Pick up the phone":
    you hold the phone), and a plan for that is done as soon as it holds. Relabelled in hindsight, a
    program's goal subset with the program cut where the subset first holds
    (``training.virtualhome_examples.task_example``) is such a pair: the SayCan adapter trains on them
    (``training.saycan_adapter --goal-subsets``) and the development tasks can ask for them
    (``bench virtualhome --dev --dev-goals part``)."""
    goals = [*(("node", g) for g in task.node_goals), *(("edge", g) for g in task.edge_goals)]
    goals += [("action", g) for g in task.action_goals]
    if not goals:
        return task
    chosen = [goals[i] for i in sorted(rng.sample(range(len(goals)), rng.randint(1, len(goals))))]
    return replace(
        task,
        node_goals=tuple(goal for kind, goal in chosen if kind == "node"),
        edge_goals=tuple(goal for kind, goal in chosen if kind == "edge"),
        action_goals=tuple(goal for kind, goal in chosen if kind == "action"),
    )


def program_ids() -> list[str]:
    """The identifiers of eai-eval's scene-1 programs that are not action-sequencing tasks."""
    _, dataset, _ = package_paths()
    folder = dataset / "programs_processed_precond_nograb_morepreconds" / "executable_programs"
    files = (folder / f"TrimmedTestScene{SCENE_ID}_graph").rglob("file*.txt")
    evaluated = set(task_names())
    return sorted({path.stem.removeprefix("file") for path in files} - evaluated)


Goals = tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]


def program_goals(simulator: Any, actions: Sequence[Any]) -> Goals:
    """Node, edge and action goals of a program, read off its initial and final scenes and its actions."""
    initial = simulator.init_state.to_dict()
    final = simulator.final_state_dict
    ids = {index for action in actions for _, index in action.objects} | {int(simulator.acting_char_id)}
    before = {node["id"]: set(node["states"]) for node in initial["nodes"]}
    nodes = [
        {"id": node["id"], "class_name": node["class_name"], "state": state}
        for node in final["nodes"]
        if node["id"] in ids
        for state in sorted(set(node["states"]) - before.get(node["id"], set()))
        if state in GOAL_STATES
    ]
    old = {(e["from_id"], e["relation_type"], e["to_id"]) for e in initial["edges"]}
    edges = [
        dict(edge)
        for edge in final["edges"]
        if edge["relation_type"] in GOAL_RELATIONS
        and edge["from_id"] in ids
        and edge["to_id"] in ids
        and (edge["from_id"], edge["relation_type"], edge["to_id"]) not in old
    ]
    done = {action.name for action in actions}
    return nodes, edges, [name for name in TRACELESS if name in done]


def program_name(identifier: str) -> str:
    """A program's task name: the first line of its program file."""
    _, dataset, _ = package_paths()
    folder = dataset / "programs_processed_precond_nograb_morepreconds" / "executable_programs"
    (path,) = (folder / f"TrimmedTestScene{SCENE_ID}_graph").rglob(f"file{identifier}.txt")
    return path.read_text().splitlines()[0].strip()

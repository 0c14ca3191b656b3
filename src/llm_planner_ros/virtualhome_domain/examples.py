r"""Prompt examples for VirtualHome from its own programs that are not evaluated tasks.

    python -m llm_planner_ros.virtualhome_domain.examples --out data/virtualhome/examples.jsonl

eai-eval ships 518 VirtualHome programs of scene 1 (``executable_programs``, with each program's initial
and final scene graphs); 342 are the action-sequencing tasks the benchmark scores. The other 176 are
never scored, and only they become examples: each program's request is written by the same
``render_instruction`` as an evaluated task's, from goals read off the program's own final scene (states
and relations of its objects that the program changed, and the actions it ran that leave no trace in the
scene, such as looking at or touching), and its steps are its actions as skill texts, ending in ``done``.
A program is kept only when every step runs in the simulator from its initial scene.

The fairness check runs with the build and is printed: no example shares an identifier, a request or a
plan with an evaluated task (one that does is dropped and counted); how many share a task name is
reported (VirtualHome reuses task names such as "Turn on light" across different programs).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.kitchen_domain.paths import repo_path

EXAMPLES_FILE = Path("data/virtualhome/examples.jsonl")
# Goals read off a program's final scene, as the benchmark's goals are written.
GOAL_STATES = {"ON", "OFF", "OPEN", "CLOSED", "PLUGGED_IN", "SITTING", "LYING"}
GOAL_RELATIONS = {"ON", "INSIDE", "HOLDS_RH", "HOLDS_LH", "FACING"}
# Actions that change nothing in the scene graph: a task asks for them as action goals.
TRACELESS = ("LOOKAT", "WATCH", "READ", "TOUCH", "DRINK", "TYPE", "WASH", "RINSE", "SCRUB", "WIPE", "PUSH", "PULL")


@dataclass(frozen=True)
class VirtualHomeExample:
    """One program as a prompt example: its file id, task name, request, steps (skill texts, ending in
    ``done``) and the names of the objects its vocabulary had."""

    id: str
    name: str
    instruction: str
    steps: tuple[str, ...]
    objects: tuple[str, ...]

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "steps": list(self.steps), "objects": list(self.objects)})

    @classmethod
    def from_json(cls, line: str) -> VirtualHomeExample:
        data = json.loads(line)
        return cls(**{**data, "steps": tuple(data["steps"]), "objects": tuple(data["objects"])})


def load_examples(path: str | Path = EXAMPLES_FILE) -> list[VirtualHomeExample]:
    """The examples of ``path``; FileNotFoundError says how to build them."""
    resolved = repo_path(path)
    if not resolved.is_file():
        raise FileNotFoundError(
            f"no VirtualHome examples at {resolved}: build them with "
            f"`python -m llm_planner_ros.virtualhome_domain.examples --out {path}`"
        )
    return [VirtualHomeExample.from_json(line) for line in resolved.read_text().splitlines() if line.strip()]


def program_ids() -> list[str]:
    """The identifiers of eai-eval's scene-1 programs that are not action-sequencing tasks."""
    from llm_planner_ros.evaluation.eai_virtualhome import SCENE_ID, package_paths, task_names

    _, dataset, _ = package_paths()
    folder = dataset / "programs_processed_precond_nograb_morepreconds" / "executable_programs"
    files = (folder / f"TrimmedTestScene{SCENE_ID}_graph").rglob("file*.txt")
    evaluated = set(task_names())
    return sorted({path.stem.removeprefix("file") for path in files} - evaluated)


def program_goals(simulator: Any, actions: Sequence[Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
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


def build_example(identifier: str) -> VirtualHomeExample | str:
    """The example of one program, or why it is left out."""
    from llm_planner_ros.evaluation.eai_virtualhome import Task, parse_script, planner_for
    from llm_planner_ros.planning.virtualhome_environment import VirtualHomeEnvironment

    simulator, gold = planner_for(identifier)
    actions = [parse_script(line) for line in gold]
    name = program_name(identifier)
    nodes, edges, action_goals = program_goals(simulator, actions)
    objects = sorted({(n, i) for a in actions for n, i in a.objects})
    task = Task(identifier, name, tuple(objects), tuple(nodes), tuple(edges), tuple(action_goals), tuple(actions), True)
    env = VirtualHomeEnvironment(task, simulator)
    steps = []
    for action in actions:
        if not action.objects:
            continue  # the answer format cannot carry an action without objects (STANDUP, SLEEP)
        text = env.vocabulary.text(action)
        if text is None:
            return f"{action.script()} has no skill"
        outcome = env.execute(next(s for s in env.vocabulary.skills if s.text == text))
        if not outcome.success:
            return f"{action.script()} does not run: {outcome.message}"
        steps.append(text)
    if not steps:
        return "no step with objects"
    return VirtualHomeExample(identifier, name, env.instruction(), (*steps, "done"), tuple(env.observed_objects()))


def program_name(identifier: str) -> str:
    """A program's task name: the first line of its program file."""
    from llm_planner_ros.evaluation.eai_virtualhome import SCENE_ID, package_paths

    _, dataset, _ = package_paths()
    folder = dataset / "programs_processed_precond_nograb_morepreconds" / "executable_programs"
    (path,) = (folder / f"TrimmedTestScene{SCENE_ID}_graph").rglob(f"file{identifier}.txt")
    return path.read_text().splitlines()[0].strip()


def fairness_check(examples: Iterable[VirtualHomeExample]) -> tuple[list[VirtualHomeExample], dict[str, int]]:
    """Drop examples that share an identifier, a request or a plan with an evaluated task; the counts."""
    from llm_planner_ros.evaluation.eai_virtualhome import tasks
    from llm_planner_ros.planning.virtualhome_environment import VirtualHomeEnvironment

    evaluated = tasks()
    requests, plans = set(), set()
    for task in evaluated:
        env = VirtualHomeEnvironment.for_task(task)
        requests.add(env.instruction())
        plans.add(tuple(text or a.script() for a in task.gold if a.objects for text in [env.vocabulary.text(a)]))
    names = {task.name for task in evaluated}
    ids = {task.identifier for task in evaluated}
    kept, counts = [], {"same_id": 0, "same_request": 0, "same_plan": 0, "same_name_kept": 0}
    for example in examples:
        reason = (
            "same_id"
            if example.id in ids
            else "same_request"
            if example.instruction in requests
            else "same_plan"
            if example.steps[:-1] in plans
            else ""
        )
        if reason:
            counts[reason] += 1
            continue
        counts["same_name_kept"] += example.name in names
        kept.append(example)
    return kept, counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=EXAMPLES_FILE, help="the examples file to write")
    args = parser.parse_args(argv)
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
    kept, counts = fairness_check(built)
    out = repo_path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(example.to_json() + "\n" for example in kept))
    print(
        f"{len(kept)} examples from {len(identifiers)} programs that are not evaluated tasks -> {out}; dropped: "
        f"{counts['same_id']} same id, {counts['same_request']} same request, {counts['same_plan']} same plan; "
        f"{counts['same_name_kept']} kept share a task name with an evaluated task"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

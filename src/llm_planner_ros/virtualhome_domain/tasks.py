"""The Embodied Agent Interface's VirtualHome action-sequencing tasks, read from the installed ``eai-eval``
(1.0.5, MIT licence; "Embodied Agent Interface: Benchmarking LLMs for Embodied Decision Making", arXiv
2410.07166).

The benchmark's tasks, scene graphs and symbolic simulator all come from the installed wheel (``make setup``
installs it without its other evaluations' dependencies); nothing of it is copied here. ``tasks()`` reads
the tasks with their goals and gold programs, ``planner_for`` builds eai-eval's simulator at a task's (or
any scene-1 program's) initial scene, and ``Action`` is one VirtualHome action as a script line.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

SCENE_ID = 1  # the action-sequencing tasks are all in VirtualHome's scene 1


class EaiMissing(RuntimeError):
    """The eai-eval package is not installed; the message says how to install it."""


@dataclass(frozen=True)
class Action:
    """One VirtualHome action with its objects as (class name, id) pairs: ``[WALK] <kitchen> (11)``."""

    name: str
    objects: tuple[tuple[str, int], ...] = ()

    def script(self) -> str:
        """The action as a VirtualHome script line, the form the simulator executes."""
        return " ".join([f"[{self.name}]", *(f"<{name}> ({index})" for name, index in self.objects)])


@dataclass(frozen=True)
class Task:
    """One action-sequencing task: its file id (``27_2``), task name ("Wash clothes"), the objects the
    scorer lets a plan name (class name, id), its symbolic goals (node and edge goals as the benchmark
    writes them, action goals as "A|B" alternatives), its gold program, and whether the scorer scores it
    (its gold program's final scene meets the node and edge goals: the scorer's own check)."""

    identifier: str
    name: str
    objects: tuple[tuple[str, int], ...]
    node_goals: tuple[Mapping[str, Any], ...]
    edge_goals: tuple[Mapping[str, Any], ...]
    action_goals: tuple[str, ...]
    gold: tuple[Action, ...]
    gold_reaches_goals: bool


def _package() -> Any:
    try:
        import virtualhome_eval
    except ImportError as error:
        raise EaiMissing(
            f"the Embodied Agent Interface's package is not installed ({error}): run `make setup`, which "
            "installs eai-eval 1.0.5 (docs/benchmarks.md, 'VirtualHome')"
        ) from error
    return virtualhome_eval


def package_paths() -> tuple[Path, Path, Path]:
    """The package's resources, dataset and evaluation folders."""
    root = Path(_package().__file__).parent
    return root / "resources", root / "dataset", root / "evaluation"


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """eai-eval logs every action at INFO and prints from its simulator: keep both off the terminal."""
    previous = logging.root.manager.disable
    logging.disable(logging.INFO)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        logging.disable(previous)


@lru_cache(maxsize=1)
def _meta() -> tuple[Any, Any, Any]:
    from virtualhome_eval.simulation.evolving_graph import utils

    return utils.load_name_equivalence(), utils.load_properties_data(), utils.load_object_placing()


def planner_for(identifier: str) -> tuple[Any, tuple[str, ...]]:
    """eai-eval's symbolic simulator (``MotionPlanner``) at the task's initial scene, and the gold program
    as the scorer compares it."""
    from virtualhome_eval.simulation.evolving_graph.eval_utils import construct_planner

    _, dataset, _ = package_paths()
    with quiet():
        planner, _, gold, _, _ = construct_planner(
            *_meta(),
            scenegraph_id=SCENE_ID,
            script_id=identifier,
            dataset_root=str(dataset / "programs_processed_precond_nograb_morepreconds"),
        )
    return planner, tuple(gold)


def task_names() -> dict[str, str]:
    """Each action-sequencing task's identifier and task name (the benchmark's ``id2task.json``)."""
    resources, _, _ = package_paths()
    return dict(json.loads((resources / "virtualhome" / "id2task.json").read_text()))


def tasks(identifiers: Sequence[str] | None = None) -> list[Task]:
    """The action-sequencing tasks of scene 1 (those of ``identifiers``, default all), in the benchmark's
    order (its ``id2task.json``); KeyError names an identifier that is no task."""
    resources, _, _ = package_paths()
    id2task = task_names()
    goals = json.loads((resources / "virtualhome" / "task_state_LTL_formula_accurate.json").read_text())
    scene = goals[f"scene_{SCENE_ID}"]
    unknown = sorted(set(identifiers or ()) - set(id2task))
    if unknown:
        raise KeyError(f"no VirtualHome action-sequencing task {', '.join(unknown)}: ids are like 27_2")
    chosen = [key for key in id2task if identifiers is None or key in identifiers]
    return [_task(key, id2task[key], scene[id2task[key]][key]["vh_goal"]) for key in chosen]


def _task(identifier: str, name: str, goal: Mapping[str, Any]) -> Task:
    from virtualhome_eval.simulation.evolving_graph.eval_utils import remove_duplicate_dicts, scene_evaluate_wID

    planner, gold = planner_for(identifier)
    nodes = tuple(remove_duplicate_dicts([g for g in goal["goal"] if "state" in g]))
    edges = tuple(remove_duplicate_dicts([g for g in goal["goal"] if "relation_type" in g]))
    with quiet():
        *_, relevant = planner.get_symbolic_goal_nl(list(nodes), list(edges), action_goals=list(goal["actions"]))
        *_, reaches, _, _, _ = scene_evaluate_wID(
            planner.final_state_dict, list(nodes), list(edges), planner.acting_char_id
        )
    objects = tuple(sorted((key.rsplit("_", 1)[0], int(index)) for key, index in relevant.items()))
    actions = tuple(sorted(set(goal["actions"])))
    return Task(identifier, name, objects, nodes, edges, actions, tuple(map(parse_script, gold)), bool(reaches))


def parse_script(line: str) -> Action:
    """An action from a script line ``[PUTBACK] <cup> (5) <sink> (7)``."""
    name, _, rest = line.strip().partition("]")
    parts = rest.replace("<", "|").replace(">", "|").split("|")
    names = [part.strip() for part in parts[1::2]]
    indices = [int(part.strip().strip("()").split(".")[-1]) for part in parts[2::2]]
    return Action(name.strip("["), tuple(zip(names, indices, strict=True)))

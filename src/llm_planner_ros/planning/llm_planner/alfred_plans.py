"""ALFRED high-level plans in one vocabulary, so that plans written in either source format compare exactly.

The two sources (docs/benchmarks.md, "ALFRED-HLP") write plans differently:

- LLM-Planner's training set (``gold_traj``): interaction-level subgoals as Python tuple strings,
  ``"('Navigation','DiningTable')"``, ``"('PutObject','Knife', 'DiningTable')"``; it opens and closes
  receptacles, toggles faucets and microwaves, and names sliced objects ``AppleSliced``;
- the refined ALFRED commands (``action_sequence``): ALFRED's PDDL-level plan,
  ``"1. GotoLocation(countertop), 2. PickupObject(ladle), ..., 7. Done."``, where one CleanObject,
  HeatObject or CoolObject stands for a put-toggle-pick-up sequence, and ``Done.`` may end it or not.

The canonical vocabulary is the PDDL-level one (``ACTIONS``): the interaction-level plans collapse into it
unambiguously, whereas expanding PDDL plans would need to know which receptacles open. Normalizing:

1. action names by alias (Navigation -> GotoLocation, ToggleObjectOn/Off -> ToggleObject, any case);
2. object names to lower case without spaces, ``...Sliced`` to the object itself, and ALFRED's two
   object/receptacle doubles to the receptacle (Sink -> sinkbasin, Bathtub -> bathtubbasin);
3. OpenObject and CloseObject dropped (PDDL plans leave them to the low-level controller);
4. "PutObject(x, sinkbasin), toggles of the faucet, PickupObject(x)" -> CleanObject(x); the same through
   the microwave -> HeatObject(x); "PutObject(x, fridge), PickupObject(x)" -> CoolObject(x);
5. the plan ends at the first Done (or NoOp): it and anything after it are dropped.

``parse_plan_text`` reads any of these spellings (and a model's free-form rendering of them), so the same
function normalizes gold plans and generated ones. ``load_examples`` reads the training set as plan
examples in this vocabulary, for the benchmark's retrieval pool and the ALFRED adapter's training.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.planning.llm_planner.prompt import PlanExample

GOTO = "GotoLocation"
PICKUP = "PickupObject"
PUT = "PutObject"
CLEAN = "CleanObject"
HEAT = "HeatObject"
COOL = "CoolObject"
SLICE = "SliceObject"
TOGGLE = "ToggleObject"
ACTIONS = (GOTO, PICKUP, PUT, CLEAN, HEAT, COOL, SLICE, TOGGLE)
"""The canonical high-level actions (ALFRED's PDDL-level vocabulary), as the planner's prompt lists them."""

_OPEN = "OpenObject"
_CLOSE = "CloseObject"
_END = "Done"
_ALIASES = {
    "gotolocation": GOTO,
    "navigation": GOTO,
    "pickupobject": PICKUP,
    "putobject": PUT,
    "cleanobject": CLEAN,
    "heatobject": HEAT,
    "coolobject": COOL,
    "sliceobject": SLICE,
    "toggleobject": TOGGLE,
    "toggleobjecton": TOGGLE,
    "toggleobjectoff": TOGGLE,
    "openobject": _OPEN,
    "closeobject": _CLOSE,
    "done": _END,
    "noop": _END,
}
_ARITY = {PUT: 2}  # every other action takes one object; Done takes none
_OBJECT_ALIASES = {"sink": "sinkbasin", "bathtub": "bathtubbasin"}
# Receptacle an object is put into, devices toggled while it is there -> what the round trip does to it.
_APPLIANCES = {
    ("sinkbasin", frozenset({"faucet"})): CLEAN,
    ("microwave", frozenset({"microwave"})): HEAT,
    ("fridge", frozenset()): COOL,
}
_ACTION_WORD = re.compile(r"\b(" + "|".join(sorted(_ALIASES, key=len, reverse=True)) + r")\b", re.IGNORECASE)
_STEP_NUMBER = re.compile(r"(?<![\w.])\d+\.(?!\d)")
_ARGUMENT_NOISE = re.compile(r"[()\[\]'\"`.:;]")


@dataclass(frozen=True)
class AlfredStep:
    """One high-level step: a canonical action and its object arguments (lower case, no spaces)."""

    action: str
    arguments: tuple[str, ...]

    def render(self) -> str:
        """The step as the planner's prompt writes it: ``PutObject ladle countertop``."""
        return " ".join((self.action, *self.arguments))


def normalize_object(name: str) -> str:
    """``'Dining Table'`` -> ``'diningtable'``, ``'AppleSliced'`` -> ``'apple'``, ``'Sink'`` -> ``'sinkbasin'``."""
    compact = re.sub(r"[\s_]+", "", name).lower()
    if compact.endswith("sliced") and len(compact) > len("sliced"):
        compact = compact[: -len("sliced")]
    return _OBJECT_ALIASES.get(compact, compact)


def parse_plan_text(text: str) -> list[AlfredStep]:
    """The canonical plan of any textual rendering: the refined ``action_sequence`` string, tuple strings,
    ``Navigation fridge, OpenObject fridge``, ``PickupObject, Apple`` or a numbered list.

    A step starts at each known action name; the words up to the next one are its arguments (split at
    commas, or at spaces for PutObject without commas; a one-object action joins its words, so
    ``dining table`` reads ``diningtable``). Text before the first action name is ignored.
    """
    matches = list(_ACTION_WORD.finditer(text))
    raw: list[tuple[str, tuple[str, ...]]] = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        action = _ALIASES[match.group(1).lower()]
        raw.append((action, _arguments(action, text[match.end() : end])))
    return normalize_steps(raw)


def parse_knn_trajectory(gold_traj: Sequence[Sequence[str]]) -> list[AlfredStep]:
    """The canonical plan of an LLM-Planner training example's ``gold_traj`` (one list of tuple strings
    per step-by-step instruction)."""
    return parse_plan_text(", ".join(action for step in gold_traj for action in step))


def normalize_steps(steps: Iterable[tuple[str, Sequence[str]]]) -> list[AlfredStep]:
    """Rules 1 to 5 of the module docstring over (action, arguments) pairs in any spelling.

    Raises ValueError for an action outside the ALFRED vocabularies (the message lists them)."""
    plan: list[AlfredStep] = []
    for action, arguments in steps:
        canonical = _ALIASES.get(action.lower())
        if canonical is None:
            known = ", ".join(sorted({*ACTIONS, "Navigation", "OpenObject", "CloseObject", "Done"}))
            raise ValueError(f"unknown ALFRED action {action!r}; known: {known}")
        if canonical == _END:
            break
        if canonical in (_OPEN, _CLOSE):
            continue
        plan.append(AlfredStep(canonical, tuple(normalize_object(a) for a in arguments if a.strip())))
    return _collapse_appliances(plan)


def render_plan(plan: Sequence[AlfredStep]) -> str:
    """A plan as the planner's prompt writes it: steps joined by ``, ``."""
    return ", ".join(step.render() for step in plan)


def _arguments(action: str, text: str) -> tuple[str, ...]:
    cleaned = _ARGUMENT_NOISE.sub(" ", _STEP_NUMBER.sub(" ", text))
    if action == _END:
        return ()
    parts = [part.strip() for part in cleaned.split(",") if part.strip()]
    if _ARITY.get(action, 1) == 1:
        return ("".join(parts),) if parts else ()
    if len(parts) == 1:
        parts = parts[0].split()
    return tuple(parts)


def _collapse_appliances(plan: list[AlfredStep]) -> list[AlfredStep]:
    """Rule 4: a put-(toggle)-pick-up round trip of one object through an appliance becomes one step;
    any other toggle stays a ToggleObject (a lamp)."""
    collapsed: list[AlfredStep] = []
    index = 0
    while index < len(plan):
        step = plan[index]
        if step.action == PUT and len(step.arguments) == 2:
            item, receptacle = step.arguments
            after = index + 1
            toggled: set[str] = set()
            while after < len(plan) and plan[after].action == TOGGLE:
                toggled.update(plan[after].arguments)
                after += 1
            effect = _APPLIANCES.get((receptacle, frozenset(toggled)))
            if effect is not None and after < len(plan) and plan[after] == AlfredStep(PICKUP, (item,)):
                collapsed.append(AlfredStep(effect, (item,)))
                index = after + 1
                continue
        collapsed.append(step)
        index += 1
    return collapsed


def load_examples(path: Path) -> list[PlanExample]:
    """LLM-Planner's ALFRED training set (``llm_planner_knn_set.json``) as plan examples: goal instruction
    -> normalized plan; ValueError names a malformed entry."""
    examples = []
    for index, entry in enumerate(json_list(path)):
        if not isinstance(entry, dict) or "task_instr" not in entry or "gold_traj" not in entry:
            raise ValueError(f"{path}: entry {index} lacks task_instr or gold_traj (is it llm_planner_knn_set.json?)")
        plan = parse_knn_trajectory(entry["gold_traj"])
        examples.append(PlanExample(entry["task_instr"].strip(), tuple(step.render() for step in plan)))
    return examples


def json_list(path: Path) -> list[Any]:
    """The non-empty JSON list of a data file; ValueError names the file and what is wrong."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: cannot read JSON ({error})") from error
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: expected a non-empty JSON list of tasks")
    return data

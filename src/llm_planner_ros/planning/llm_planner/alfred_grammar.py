"""The Lark grammar of an ALFRED high-level plan line, for grammar-constrained LLM-Planner generation.

LLM-Planner (arXiv 2212.04088, section 4.2) only biases the logits toward the allowed actions and
objects; the grammar makes the same restriction hard: after ``Next plan:`` the model can write nothing
but steps of ALFRED's high-level actions (``alfred_plans.ACTIONS``) on objects of a given list, in the
rendering of the prompt's examples (``GotoLocation countertop, PutObject ladle diningtable``), joined by
", " and ended by a newline. Which objects the list holds is the caller's choice (the benchmark offers
every ALFRED object type, or the objects of one episode).

Object names are normalized as plans are (``alfred_plans.normalize_object``: ``Sink`` -> ``sinkbasin``),
so every plan the grammar allows parses back to itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from llm_planner_ros.planning.grammars import GrammarError, choice, literal
from llm_planner_ros.planning.llm_planner.alfred_plans import ACTIONS, PUT, normalize_object


def alfred_plan_grammar(objects: Iterable[str]) -> str:
    r"""A plan line: " " step (", " step)* "\n", where a step is an action of ``ACTIONS`` and its
    arguments (two objects for PutObject, one otherwise) drawn from ``objects`` (any spelling).

    GrammarError when ``objects`` is empty: a grammar without an object would allow no step."""
    names = sorted({normalize_object(name) for name in objects if name.strip()})
    if not names:
        raise GrammarError("no objects to plan with: give the grammar at least one ALFRED object name")
    single = choice(f"{action} " for action in ACTIONS if action != PUT)
    rules = [
        f"start: {literal(' ')} step ({literal(', ')} step)* {literal(chr(10))}",
        f"step: ({single}) object | {literal(PUT + ' ')} object {literal(' ')} object",
        f"object: {choice(names)}",
    ]
    return "\n".join(rules) + "\n"


def load_object_types(path: Path) -> list[str]:
    """The object types of a file with one name per line (``benchmarks/alfred_hlp/alfred_objects.txt``);
    ValueError names the file when it cannot be read or lists nothing."""
    try:
        names = [line.strip() for line in Path(path).read_text().splitlines() if line.strip()]
    except OSError as error:
        raise ValueError(f"{path}: cannot read the ALFRED object list ({error})") from error
    if not names:
        raise ValueError(f"{path}: the ALFRED object list is empty (one object type per line expected)")
    return names

"""Named facts of a domain: what a world file declares beyond where the robot and the objects are.

A fact is a boolean (``door_open``) or a relation over one place or one object label
(``table_clean(table)``, ``charged(phone)``). A world holds the set of its facts that are true, each as
an *atom*: the name alone, or the name with its argument in parentheses. Skills read them in their
preconditions (``{fact: door_open}``), change them in their effects (``{set: door_open}``,
``{clear: "table_clean({location})"}``), and goals name them (``{fact: table_clean(table)}``).

World file (docs/domains.md)::

    facts:
      door_open: {}                                  # false unless a scene lists it
      lights_on: {initial: true}                     # true unless a scene's `facts` leaves it out
      table_clean: {over: location, initial: [desk]} # one fact per place; true at the desk
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llm_planner_ros.domain.validation import Checker, join

# What a relation ranges over: the domain's places, or its object labels.
ARGUMENT_KINDS = ("location", "object")

_ATOM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<argument>[^()]+)\))?$")


@dataclass(frozen=True)
class FactSpec:
    """One declared fact: its name, what its argument ranges over (None: a plain boolean), and the atoms
    of it that hold in a scene that does not list its facts."""

    name: str
    over: str | None = None
    initial: frozenset[str] = frozenset()


def atom(name: str, argument: str | None = None) -> str:
    """The atom of a fact: ``door_open``, ``table_clean(table)``."""
    return name if argument is None else f"{name}({argument})"


def split_atom(text: str) -> tuple[str, str | None] | None:
    """(name, argument) of an atom, or None when ``text`` is not written like one."""
    found = _ATOM.match(text.strip())
    if found is None:
        return None
    argument = found.group("argument")
    return found.group("name"), None if argument is None else argument.strip()


class FactNames:
    """The facts a domain declares and the arguments each may take; checks atoms written in its files."""

    def __init__(self, specs: Mapping[str, FactSpec], places: Sequence[str], labels: Sequence[str]) -> None:
        self.specs = dict(specs)
        self._arguments = {"location": tuple(places), "object": tuple(labels)}

    def check_atom(self, value: Any, check: Checker, where: str) -> str | None:
        """The atom ``value`` names (normalised), or None after recording why it is not one of this domain."""
        text = check.string(value, where)
        if text is None:
            return None
        parts = split_atom(text)
        if parts is None:
            check.add(
                where,
                f"{text!r} is not a fact: write a name (door_open) or a name and its argument (table_clean(desk))",
            )
            return None
        name, argument = parts
        spec = self.specs.get(name)
        if spec is None:
            known = ", ".join(self.specs) or "none (declare them under `facts:` in the world file)"
            check.add(where, f"unknown fact {name!r}; facts of this domain: {known}")
            return None
        if spec.over is None and argument is not None:
            check.add(where, f"fact {name!r} takes no argument; write {name}")
            return None
        if spec.over is not None:
            choices = self._arguments[spec.over]
            if argument is None:
                check.add(where, f"fact {name!r} is one per {spec.over}: write {name}(<{spec.over}>)")
                return None
            if argument not in choices:
                check.add(
                    where, f"fact {name!r} is over {spec.over}s, and {argument!r} is none of {', '.join(choices)}"
                )
                return None
        return atom(name, argument)

    def initial_atoms(self) -> frozenset[str]:
        return frozenset().union(*(spec.initial for spec in self.specs.values()))


def parse_fact_specs(
    value: Any, places: Sequence[str], labels: Sequence[str], check: Checker, where: str = "facts"
) -> dict[str, FactSpec] | None:
    """The ``facts`` section of a world file, or None after recording its problems."""
    entries = check.named_entries(value, where, "fact")
    if entries is None:
        return None
    specs: dict[str, FactSpec] = {}
    for name, body in entries.items():
        field = join(where, name)
        if split_atom(name) != (name, None):
            check.add(field, f"fact name {name!r} must be a plain identifier (letters, digits, _)")
            continue
        entry = check.mapping(body if body is not None else {}, field, optional=("over", "initial"))
        if entry is None:
            continue
        over = check.one_of(entry["over"], join(field, "over"), ARGUMENT_KINDS, "kind") if "over" in entry else None
        if "over" in entry and over is None:
            continue
        initial = _initial(entry.get("initial"), name, over, places, labels, check, join(field, "initial"))
        if initial is not None:
            specs[name] = FactSpec(name, over, initial)
    return specs if len(specs) == len(entries) else None


def _initial(
    value: Any,
    name: str,
    over: str | None,
    places: Sequence[str],
    labels: Sequence[str],
    check: Checker,
    where: str,
) -> frozenset[str] | None:
    if value is None:
        return frozenset()
    if over is None:
        true = check.boolean(value, where)
        return None if true is None else frozenset({name} if true else ())
    choices = places if over == "location" else labels
    items = check.list_of(value, where, allow_empty=True)
    if items is None:
        return None
    arguments = [check.one_of(item, join(where, i), tuple(choices), over) for i, item in enumerate(items)]
    if any(argument is None for argument in arguments):
        return None
    return frozenset(atom(name, str(argument)) for argument in arguments)

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
      lamp_on: {over: [desk, meeting room]}          # one fact for each of the places listed (or labels)

A skill's condition or change may name a relation over places at the robot's place, ``{here}``
(``{set: "table_clean({here})"}``): one skill for every place instead of one per place. It is read when
the skill runs, and the skill cannot run at a place the relation does not cover.
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
# The argument of a skill's atom that stands for the robot's place when the skill runs.
HERE = "{here}"


@dataclass(frozen=True)
class FactSpec:
    """One declared fact: its name, what its argument ranges over (None: a plain boolean; ``arguments``
    narrows it to the places or labels the world lists), and the atoms of it that hold in a scene that does
    not list its facts."""

    name: str
    over: str | None = None
    initial: frozenset[str] = frozenset()
    # The places (or labels) the relation holds over when the world lists them; None: every one of ``over``.
    arguments: tuple[str, ...] | None = None


def atom(name: str, argument: str | None = None) -> str:
    """The atom of a fact: ``door_open``, ``table_clean(table)``."""
    return name if argument is None else f"{name}({argument})"


def at_place(text: str, place: str) -> str:
    """The atom ``text`` names when the robot is at ``place``: ``table_clean({here})`` -> ``table_clean(desk)``."""
    return text.replace(HERE, place)


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

    def check_atom(self, value: Any, check: Checker, where: str, here: bool = False) -> str | None:
        """The atom ``value`` names (normalised), or None after recording why it is not one of this domain.
        ``here``: a relation over places may take ``HERE`` for its argument (a skill's atom)."""
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
        if argument == HERE and spec.over is not None and (not here or spec.over != "location"):
            check.add(
                where,
                f"{HERE} stands for the robot's place in a skill's condition or change, of a relation over places "
                f"only: write {name}(<{spec.over}>)",
            )
            return None
        if spec.over is not None and argument != HERE:
            choices = spec.arguments or self._arguments[spec.over]
            if argument is None:
                check.add(where, f"fact {name!r} is one per {spec.over}: write {name}(<{spec.over}>)")
                return None
            if argument not in choices:
                kinds = "the listed " if spec.arguments else ""
                check.add(
                    where,
                    f"fact {name!r} is over {kinds}{spec.over}s, and {argument!r} is none of {', '.join(choices)}",
                )
                return None
        return atom(name, argument)

    def covers(self, text: str, place: str) -> bool:
        """Whether the skill's atom ``text`` names a fact of this domain at ``place`` (``HERE`` read there):
        a relation over listed places covers only those."""
        parts = split_atom(at_place(text, place))
        spec = self.specs.get(parts[0]) if parts is not None else None
        return spec is not None and (spec.arguments is None or parts[1] in spec.arguments)  # type: ignore[index]

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
        over, arguments = (
            _over(entry["over"], places, labels, check, join(field, "over")) if "over" in entry else (None, None)
        )
        if "over" in entry and over is None:
            continue
        choices = arguments or (places if over == "location" else labels)
        initial = _initial(entry.get("initial"), name, over, choices, check, join(field, "initial"))
        if initial is not None:
            specs[name] = FactSpec(name, over, initial, arguments)
    return specs if len(specs) == len(entries) else None


def _over(
    value: Any, places: Sequence[str], labels: Sequence[str], check: Checker, where: str
) -> tuple[str | None, tuple[str, ...] | None]:
    """What a relation ranges over: a kind (``location``, ``object``), or a list of the domain's places (or
    of its labels), which narrows it to those; (None, None) after recording a problem."""
    if not isinstance(value, list):
        return check.one_of(value, where, ARGUMENT_KINDS, "kind"), None
    items = check.list_of(value, where)
    if not items:
        return None, None
    names = [check.string(item, join(where, i)) for i, item in enumerate(items)]
    if any(name is None for name in names):
        return None, None
    for kind, known in (("location", places), ("object", labels)):
        if all(name in known for name in names):
            return kind, tuple(dict.fromkeys(names))  # type: ignore[arg-type]
    unknown = [name for name in names if name not in places and name not in labels]
    check.add(
        where,
        f"lists {', '.join(map(repr, unknown))}, which is no place or object label of this domain"
        if unknown
        else "lists places and object labels together: a fact ranges over places or over labels",
    )
    return None, None


def _initial(
    value: Any, name: str, over: str | None, choices: Sequence[str], check: Checker, where: str
) -> frozenset[str] | None:
    if value is None:
        return frozenset()
    if over is None:
        true = check.boolean(value, where)
        return None if true is None else frozenset({name} if true else ())
    items = check.list_of(value, where, allow_empty=True)
    if items is None:
        return None
    arguments = [check.one_of(item, join(where, i), tuple(choices), over) for i, item in enumerate(items)]
    if any(argument is None for argument in arguments):
        return None
    return frozenset(atom(name, str(argument)) for argument in arguments)

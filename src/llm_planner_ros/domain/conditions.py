"""Goal conditions of episode files, their parser, and their evaluation on a world.

A condition is one of (docs/episodes.md)::

    {all: [<condition>, ...]}   {any: [<condition>, ...]}   {not: <condition>}
    {at: {label: coke, location: user}}            # label may be a list: any of those labels
    {count: {labels: [coke, pepsi], location: user, min: 2, distinct: false}}
    {holding: coke}    {holding: null}    {robot_at: table}    {visited: [close counter, table]}
    {fact: door_open}  {fact: table_clean(table)}  # a fact the world file declares holds

"Placed" objects are those not in the gripper. ``min`` defaults to 1 and ``distinct`` to false; a
single name may stand where a list is expected (``labels: coke``, ``holding: [coke, pepsi]``), and a
category of the world file where a label is (``label: drink``: any of its labels).

Goal-condition recall (GCR) needs the goal's parts: ``goal_checks`` flattens nested ``all`` and
reports every other sub-condition (an ``any``, a ``not``, or a leaf) as one part with whether it holds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from llm_planner_ros.domain.categories import category_labels
from llm_planner_ros.domain.config import DomainConfig
from llm_planner_ros.domain.facts import at_place
from llm_planner_ros.domain.scene import ObjectInstance
from llm_planner_ros.domain.validation import Checker, ValidationError, join

CONDITION_KINDS = ("all", "any", "not", "at", "count", "holding", "robot_at", "visited", "fact")


class World(Protocol):
    """What a condition reads of a world state (``world.World``). A protocol, because skills carry
    conditions as preconditions and a world applies skills: naming ``World`` itself here would close an
    import cycle."""

    @property
    def robot_at(self) -> str: ...

    @property
    def holding(self) -> ObjectInstance | None: ...

    @property
    def visited(self) -> tuple[str, ...]: ...

    @property
    def facts(self) -> frozenset[str]: ...

    def placed_at(self, place: str) -> tuple[ObjectInstance, ...]: ...


class ConditionError(ValidationError):
    """A condition (given at run time, not from a file) that does not match the format."""


class Condition(ABC):
    """A predicate over a world state. ``str()`` gives a compact form for reports, e.g. ``at(coke, user)``."""

    @abstractmethod
    def holds(self, world: World) -> bool: ...

    def unmet(self, world: World) -> str | None:
        """None when the condition holds, else why not (a skill's precondition reports it)."""
        return None if self.holds(world) else f"{self} does not hold"

    def places(self) -> frozenset[str]:
        """Place names the condition mentions (used to check a drawer goal has a drawer scene)."""
        return frozenset()

    def parts(self) -> tuple[Condition, ...]:
        """The conjuncts of this condition for goal-condition recall (itself, unless it is an ``all``)."""
        return (self,)


@dataclass(frozen=True)
class All(Condition):
    """Holds when every child condition holds (true for none)."""

    children: tuple[Condition, ...]

    def holds(self, world: World) -> bool:
        return all(child.holds(world) for child in self.children)

    def places(self) -> frozenset[str]:
        return frozenset().union(*(child.places() for child in self.children))

    def parts(self) -> tuple[Condition, ...]:
        return tuple(part for child in self.children for part in child.parts())

    def __str__(self) -> str:
        return f"all({', '.join(map(str, self.children))})"


@dataclass(frozen=True)
class AnyOf(Condition):
    """Holds when at least one child condition holds."""

    children: tuple[Condition, ...]

    def holds(self, world: World) -> bool:
        return any(child.holds(world) for child in self.children)

    def places(self) -> frozenset[str]:
        return frozenset().union(*(child.places() for child in self.children))

    def __str__(self) -> str:
        return f"any({', '.join(map(str, self.children))})"


@dataclass(frozen=True)
class Not(Condition):
    """Holds when its child condition does not."""

    child: Condition

    def holds(self, world: World) -> bool:
        return not self.child.holds(world)

    def unmet(self, world: World) -> str | None:
        if self.holds(world):
            return None
        if isinstance(self.child, Fact):
            return f"{at_place(self.child.atom, world.robot_at)} is already true"
        return f"{self.child} holds"

    def places(self) -> frozenset[str]:
        return self.child.places()

    def __str__(self) -> str:
        return f"not({self.child})"


@dataclass(frozen=True)
class At(Condition):
    """Some placed instance of one of ``labels`` is at ``location``."""

    labels: tuple[str, ...]
    location: str

    def holds(self, world: World) -> bool:
        return any(obj.label in self.labels for obj in world.placed_at(self.location))

    def places(self) -> frozenset[str]:
        return frozenset({self.location})

    def __str__(self) -> str:
        return f"at({'|'.join(self.labels)}, {self.location})"


@dataclass(frozen=True)
class Count(Condition):
    """At least ``minimum`` placed instances with a label in ``labels`` are at ``location``;
    with ``distinct`` they must carry that many different labels."""

    labels: tuple[str, ...]
    location: str
    minimum: int = 1
    distinct: bool = False

    def holds(self, world: World) -> bool:
        found = [obj.label for obj in world.placed_at(self.location) if obj.label in self.labels]
        return len(set(found) if self.distinct else found) >= self.minimum

    def places(self) -> frozenset[str]:
        return frozenset({self.location})

    def __str__(self) -> str:
        distinct = ", distinct" if self.distinct else ""
        return f"count({'|'.join(self.labels)} at {self.location} >= {self.minimum}{distinct})"


@dataclass(frozen=True)
class Holding(Condition):
    """The gripper holds an instance of one of ``labels``; with ``labels`` None, the gripper is empty."""

    labels: tuple[str, ...] | None

    def holds(self, world: World) -> bool:
        held = world.holding
        if self.labels is None:
            return held is None
        return held is not None and held.label in self.labels

    def __str__(self) -> str:
        return f"holding({'nothing' if self.labels is None else '|'.join(self.labels)})"


@dataclass(frozen=True)
class RobotAt(Condition):
    """Holds when the robot is at ``location``."""

    location: str

    def holds(self, world: World) -> bool:
        return world.robot_at == self.location

    def places(self) -> frozenset[str]:
        return frozenset({self.location})

    def __str__(self) -> str:
        return f"robot_at({self.location})"


@dataclass(frozen=True)
class Visited(Condition):
    """The robot has been at every one of ``locations`` (its start place counts)."""

    locations: tuple[str, ...]

    def holds(self, world: World) -> bool:
        return set(self.locations) <= set(world.visited)

    def places(self) -> frozenset[str]:
        return frozenset(self.locations)

    def __str__(self) -> str:
        return f"visited({', '.join(self.locations)})"


@dataclass(frozen=True)
class Fact(Condition):
    """A declared fact holds: ``atom`` is its name, with its argument for a relation (``table_clean(table)``;
    a skill's ``table_clean({here})`` reads the robot's place)."""

    atom: str

    def holds(self, world: World) -> bool:
        return at_place(self.atom, world.robot_at) in world.facts

    def unmet(self, world: World) -> str | None:
        return None if self.holds(world) else f"{at_place(self.atom, world.robot_at)} is false"

    def __str__(self) -> str:
        return f"fact({self.atom})"


@dataclass(frozen=True)
class ConditionCheck:
    """One part of a goal and whether it holds in the evaluated world."""

    condition: Condition
    holds: bool

    @property
    def text(self) -> str:
        return str(self.condition)


def goal_checks(goal: Condition, world: World) -> list[ConditionCheck]:
    """Every part of the goal (nested ``all`` flattened) with whether it holds: the GCR numerator's terms."""
    return [ConditionCheck(part, part.holds(world)) for part in goal.parts()]


def goal_condition_recall(goal: Condition, world: World) -> float:
    """Fraction of the goal's parts that hold in ``world`` (1.0 exactly when every part holds, as it does
    for a goal of no parts)."""
    checks = goal_checks(goal, world)
    return sum(check.holds for check in checks) / len(checks) if checks else 1.0


def condition_from_yaml(data: Any, config: DomainConfig, source: str = "condition") -> Condition:
    """Parse a condition given at run time; ConditionError lists every problem."""
    check = Checker()
    condition = parse_condition(data, config, check, "")
    check.raise_if_any(source, ConditionError)
    assert condition is not None
    return condition


def parse_condition(
    data: Any, config: DomainConfig, check: Checker, where: str, here: bool = False
) -> Condition | None:
    """The condition of a YAML value, or None after recording its problems with ``check``. ``here``: a
    fact may name the robot's place (``facts.HERE``), as a skill's precondition may."""
    if not isinstance(data, Mapping) or len(data) != 1:
        kinds = ", ".join(CONDITION_KINDS)
        check.reject(data, where, f"a condition is a mapping with exactly one of the keys {kinds}; got {data!r:.80}")
        return None
    ((kind, body),) = data.items()
    field = join(where, str(kind))
    if kind in ("all", "any"):
        items = check.list_of(body, field)
        if items is None:
            return None
        children = [parse_condition(item, config, check, join(field, i), here) for i, item in enumerate(items)]
        if any(child is None for child in children):
            return None
        return (All if kind == "all" else AnyOf)(tuple(children))  # type: ignore[arg-type]
    if kind == "not":
        child = parse_condition(body, config, check, field, here)
        return None if child is None else Not(child)
    parser = _LEAF_PARSERS.get(kind)
    if parser is None:
        check.add(field, f"unknown condition {kind!r}; conditions are {', '.join(CONDITION_KINDS)}")
        return None
    return parser(body, _Names(config, here), check, field)


class _Names:
    """The names a condition may use: labels (or a category: any of its labels), robot places, object
    places (drawer contents too), facts."""

    def __init__(self, config: DomainConfig, here: bool = False) -> None:
        self.facts = config.fact_names()
        self.here = here
        self.categories = config.categories
        self.labels = (*config.labels, *config.categories)
        self.label_kind = "label or category" if config.categories else "label"
        self.robot_places = config.places(with_drawer=True)
        drawer_contents = (config.drawer.contents_at,) if config.drawer is not None else ()
        self.object_places = (*self.robot_places, *drawer_contents)


def _labels(value: Any, field: str, names: _Names, check: Checker) -> tuple[str, ...] | None:
    """The labels a goal names: a label or a category (its labels), or a list of them."""
    found = check.one_or_more_of(value, field, names.labels, names.label_kind)
    return None if found is None else category_labels(names.categories, found)


def _parse_at(body: Any, names: _Names, check: Checker, field: str) -> Condition | None:
    entry = check.mapping(body, field, required=("label", "location"))
    if entry is None:
        return None
    labels = _labels(entry["label"], join(field, "label"), names, check)
    location = check.one_of(entry["location"], join(field, "location"), names.object_places, "location")
    return None if labels is None or location is None else At(labels, location)


def _parse_count(body: Any, names: _Names, check: Checker, field: str) -> Condition | None:
    entry = check.mapping(body, field, required=("labels", "location"), optional=("min", "distinct"))
    if entry is None:
        return None
    labels = _labels(entry["labels"], join(field, "labels"), names, check)
    location = check.one_of(entry["location"], join(field, "location"), names.object_places, "location")
    minimum = check.positive_int(entry.get("min", 1), join(field, "min"))
    distinct = check.boolean(entry.get("distinct", False), join(field, "distinct"))
    if labels is None or location is None or minimum is None or distinct is None:
        return None
    if distinct and minimum > len(set(labels)):
        check.add(join(field, "min"), f"{minimum} distinct labels can never be found among {len(set(labels))} labels")
        return None
    return Count(labels, location, minimum, distinct)


def _parse_holding(body: Any, names: _Names, check: Checker, field: str) -> Condition | None:
    if body is None:
        return Holding(None)
    labels = _labels(body, field, names, check)
    return None if labels is None else Holding(labels)


def _parse_robot_at(body: Any, names: _Names, check: Checker, field: str) -> Condition | None:
    location = check.one_of(body, field, names.robot_places, "location")
    return None if location is None else RobotAt(location)


def _parse_visited(body: Any, names: _Names, check: Checker, field: str) -> Condition | None:
    locations = check.one_or_more_of(body, field, names.robot_places, "location")
    return None if locations is None else Visited(locations)


def _parse_fact(body: Any, names: _Names, check: Checker, field: str) -> Condition | None:
    atom = names.facts.check_atom(body, check, field, names.here)
    return None if atom is None else Fact(atom)


_LEAF_PARSERS = {
    "at": _parse_at,
    "count": _parse_count,
    "holding": _parse_holding,
    "robot_at": _parse_robot_at,
    "visited": _parse_visited,
    "fact": _parse_fact,
}

"""The static facts of a kitchen world (domains/saycan_kitchen/world.yaml): places, positions, object labels."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.categories import ARTICLES, Category, parse_categories, text_list
from llm_planner_ros.domain.facts import FactNames, FactSpec, parse_fact_specs
from llm_planner_ros.domain.validation import Checker, ValidationError, join, read_yaml
from llm_planner_ros.paths import default_domain_file, repo_path

WORLD_FILE = "world.yaml"

# The `at` of an object in the gripper, in episode files and in /scene/objects.
HELD = "robot"


class ConfigError(ValidationError):
    """A configuration file (world or skills) that does not match its format."""


@dataclass(frozen=True)
class Position:
    """A point on the map (metres, in the world's ``frame_id``)."""

    x: float
    y: float

    def distance_to(self, other: Position) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)


@dataclass(frozen=True)
class DrawerConfig:
    """The drawer extension: where the robot stands to use the drawer, and the `at` of its contents."""

    location: str
    position: Position
    contents_at: str


@dataclass(frozen=True)
class DomainConfig:
    """Names and positions of a kitchen world; shared, never changed, by every world state built on it.

    ``locations`` are the places of every scene; the drawer's location exists only in scenes that have
    the drawer (``drawer`` is None when the world has no drawer extension at all). ``facts`` are the
    named facts the world declares (llm_planner_ros.domain.facts; none in the SayCan kitchen).
    ``synonyms`` maps an object label or a location to the other words people use for it ("cup" for a
    mug): what perception also looks for and what generated requests sometimes say; plans and skills
    always use the name itself. ``categories`` are the kinds of object people ask for instead of a label
    ("something to drink"; llm_planner_ros.domain.categories).
    """

    world: str
    frame_id: str
    locations: Mapping[str, Position]
    articles: Mapping[str, str]
    drawer: DrawerConfig | None
    object_size: tuple[float, float, float]
    default_scene: Mapping[str, Any] = field(repr=False)
    source: str = ""
    facts: Mapping[str, FactSpec] = field(default_factory=dict)
    synonyms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    categories: Mapping[str, Category] = field(default_factory=dict)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.articles)

    def names(self, name: str) -> tuple[str, ...]:
        """An object label or a location, then its synonyms: every word people may use for it."""
        return (name, *self.synonyms.get(name, ()))

    def places(self, with_drawer: bool) -> tuple[str, ...]:
        """Where the robot can stand: the locations, plus the drawer's location in drawer scenes."""
        if with_drawer and self.drawer is not None:
            return (*self.locations, self.drawer.location)
        return tuple(self.locations)

    def fact_names(self) -> FactNames:
        """The declared facts, with the places and labels their arguments range over."""
        return FactNames(self.facts, self.places(with_drawer=True), self.labels)

    def position(self, place: str) -> Position:
        if place in self.locations:
            return self.locations[place]
        if self.drawer is not None and place in (self.drawer.location, self.drawer.contents_at):
            return self.drawer.position
        raise KeyError(f"unknown place {place!r}; known: {', '.join(self.places(with_drawer=True))}")


def load_domain_config(path: str | Path | None = None) -> DomainConfig:
    """Read and validate a world file (default: the default domain's, ``paths.DEFAULT_DOMAIN``); ConfigError
    lists its problems."""
    source = repo_path(path) if path else default_domain_file(WORLD_FILE)
    text, data = read_yaml(
        source, ConfigError, "give the path of a world file (docs/domains.md: a domain folder's world.yaml)"
    )
    check = Checker()
    config = _parse(data, check, str(source))
    check.raise_if_any(str(source), ConfigError, text)
    assert config is not None
    return config


def readable_domain_config(path: str | Path) -> DomainConfig | None:
    """The world file as far as it can be used despite its problems (an unknown key, a bad synonym), to
    check the domain's other files against it; None when its places or objects cannot be read."""
    _, data = read_yaml(repo_path(path), ConfigError, "give the path of a world file")
    return _parse(data, Checker(), str(path), lenient=True)


def _parse(data: Any, check: Checker, source: str, lenient: bool = False) -> DomainConfig | None:
    top = check.mapping(
        data,
        "",
        required=("world", "locations", "objects", "default_scene"),
        optional=("frame_id", "drawer", "object_size", "facts", "categories"),
    )
    if top is None:
        return None
    check.plain_texts(data)
    synonyms: dict[str, tuple[str, ...]] = {}
    membership: dict[str, tuple[str, ...]] = {}
    locations = _positions(top["locations"], "locations", check, synonyms)
    articles = _articles(top["objects"], check, synonyms, membership)
    drawer = _drawer(top["drawer"], check) if "drawer" in top else None
    size = _size(top.get("object_size", {"x": 0.07, "y": 0.07, "z": 0.12}), check)
    world = check.string(top["world"], "world")
    frame_id = check.string(top.get("frame_id", "map"), "frame_id")
    if drawer is not None and locations is not None and drawer.location in locations:
        check.add("drawer.location", f"{drawer.location!r} is already a location; the drawer's must be its own")
    if HELD in (locations or {}):
        check.add(join("locations", HELD), f"{HELD!r} is reserved for objects in the gripper")
    facts: dict[str, FactSpec] | None = {}
    if "facts" in top and locations is not None and articles is not None:
        places = [*locations, *((drawer.location,) if drawer is not None else ())]
        facts = parse_fact_specs(top["facts"], places, tuple(articles), check)
    categories: dict[str, Category] = {}
    if locations is not None and articles is not None:
        _check_synonyms(synonyms, locations, check, articles)
        taken = {
            **{word: f"a synonym of {name!r}" for name, words in synonyms.items() for word in words},
            **{name: f"the location {name!r}" for name in locations},
            **{name: f"the object label {name!r}" for name in articles},
        }
        categories = parse_categories(top.get("categories"), membership, taken, check)
    if None in (locations, articles, size, world, frame_id, facts) or (check.problems and not lenient):
        return None
    return DomainConfig(
        world=world,
        frame_id=frame_id,
        locations=locations,
        articles=articles,
        drawer=drawer,
        object_size=size,
        default_scene=top["default_scene"],
        source=source,
        facts=facts,
        synonyms=synonyms,
        categories=categories,
    )


def _positions(
    value: Any, where: str, check: Checker, synonyms: dict[str, tuple[str, ...]]
) -> dict[str, Position] | None:
    entries = check.named_entries(value, where, "location")
    if entries is None:
        return None
    positions = {name: _position(xy, join(where, name), check, synonyms, name) for name, xy in entries.items()}
    if any(position is None for position in positions.values()):
        return None
    return positions  # type: ignore[return-value]


def _position(
    value: Any, where: str, check: Checker, synonyms: dict[str, tuple[str, ...]] | None = None, name: str = ""
) -> Position | None:
    """A point ``{x, y}``; a location's (``synonyms`` given) may add its ``synonyms``."""
    xy = check.mapping(value, where, required=("x", "y"), optional=("synonyms",) if synonyms is not None else ())
    if xy is None:
        return None
    if synonyms is not None and "synonyms" in xy:
        _add_synonyms(xy["synonyms"], join(where, "synonyms"), name, check, synonyms)
    x, y = check.number(xy["x"], join(where, "x")), check.number(xy["y"], join(where, "y"))
    return None if x is None or y is None else Position(x, y)


def _articles(
    value: Any, check: Checker, synonyms: dict[str, tuple[str, ...]], membership: dict[str, tuple[str, ...]]
) -> dict[str, str] | None:
    """Each label's article; its synonyms into ``synonyms``, the categories it lists into ``membership``."""
    labels = check.named_entries(value, "objects", "object label")
    if labels is None:
        return None
    articles: dict[str, str] = {}
    for label, spec in labels.items():
        where = join("objects", label)
        entry = check.mapping(spec, where, required=("article",), optional=("synonyms", "categories"))
        if entry is not None:
            if "synonyms" in entry:
                _add_synonyms(entry["synonyms"], join(where, "synonyms"), label, check, synonyms)
            if "categories" in entry:
                membership[label] = text_list(entry["categories"], join(where, "categories"), check) or ()
            article = check.one_of(entry["article"], join(where, "article"), ARTICLES, "article")
            if article is not None:
                articles[label] = article
    return articles if len(articles) == len(labels) else None


def _add_synonyms(value: Any, where: str, name: str, check: Checker, synonyms: dict[str, tuple[str, ...]]) -> None:
    words = text_list(value, where, check)
    if words is not None:
        synonyms[name] = words


def _check_synonyms(
    synonyms: Mapping[str, tuple[str, ...]], locations: Mapping[str, Any], check: Checker, labels: Mapping[str, Any]
) -> None:
    """A synonym must name one thing only: not a label or location, not another one's synonym."""
    owner: dict[str, str] = {}
    for name, words in synonyms.items():
        where = join(join("locations" if name in locations else "objects", name), "synonyms")
        for index, word in enumerate(words):
            if word in locations or word in labels:
                check.add(join(where, index), f"{word!r} is itself an object label or location: remove it")
            elif owner.setdefault(word, name) != name:
                check.add(join(where, index), f"{word!r} is also a synonym of {owner[word]!r}: keep it on one of them")


def _drawer(value: Any, check: Checker) -> DrawerConfig | None:
    entry = check.mapping(value, "drawer", required=("location", "position", "contents_at"))
    if entry is None:
        return None
    location = check.string(entry["location"], "drawer.location")
    position = _position(entry["position"], "drawer.position", check)
    contents_at = check.string(entry["contents_at"], "drawer.contents_at")
    if location is None or position is None or contents_at is None:
        return None
    return DrawerConfig(location, position, contents_at)


def _size(value: Any, check: Checker) -> tuple[float, float, float] | None:
    entry = check.mapping(value, "object_size", required=("x", "y", "z"))
    if entry is None:
        return None
    extents = [check.number(entry[axis], join("object_size", axis)) for axis in ("x", "y", "z")]
    if any(extent is None for extent in extents):
        return None
    return (extents[0], extents[1], extents[2])  # type: ignore[return-value]

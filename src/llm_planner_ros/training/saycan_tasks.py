"""Synthetic kitchen tasks: a random scene, a request written from the lexicon, and the goal it means.

The SayCan example bank (``saycan_bank``) turns these into dialogs with the oracle's plans; the prompt
retrieves from that bank and the adapter trains on it. Requests come from the word lists of
data/saycan/lexicon.yaml (object and place names, request patterns per task kind, category words,
other languages); goals follow the kitchen's conventions (docs/episodes.md): "bring
me X" means an X put down at ``user``, "throw away X" an X put down at the ``trash can``.

    writer = TaskWriter(load_lexicon(), load_domain_files(), random.Random(0))
    task = writer.write("deliver")        # Task(kind, family, instruction, initial scene, goal) or None

``write`` returns None when the drawn scene cannot host the kind (e.g. no two objects on one place for
"move everything"); callers draw again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.scene import ObjectInstance, Scene
from llm_planner_ros.paths import repo_path

LEXICON_FILE = Path("data/saycan/lexicon.yaml")

USER = "user"
TRASH = "trash can"
# Places objects are set on and carried to; the trash can and the person hold only what was brought.
SURFACES = ("close counter", "far counter", "table")
OBJECT_PLACES = (*SURFACES, TRASH, USER)
OBJECT_PLACE_WEIGHTS = (0.3, 0.3, 0.28, 0.04, 0.08)

# Long-horizon styles that carry named objects: where each goes ("p", "q": two different surfaces).
_CARRIES: dict[str, tuple[str, ...]] = {
    "two_deliver": (USER, USER),
    "three_deliver": (USER, USER, USER),
    "two_trash": (TRASH, TRASH),
    "three_trash": (TRASH, TRASH, TRASH),
    "trash_deliver": (TRASH, USER),
    "two_move": ("p", "p"),
    "three_move": ("p", "p", "p"),
    "split_move": ("p", "q"),
}
_NUMBERS = {2: "two", 3: "three"}
# First words of requests that are statements or questions already (or start with an object or place)
_NOT_IMPERATIVE = frozenset({"i", "i'd", "i'll", "i'm", "can", "the", "a", "an", "my", "nothing", "all", "both"})


def load_lexicon(path: str | Path = LEXICON_FILE) -> dict[str, Any]:
    """The word lists (format: data/saycan/lexicon.yaml); ValueError names a missing section."""
    resolved = repo_path(path)
    data = yaml.safe_load(resolved.read_text(encoding="utf-8"))
    required = (
        "objects",
        "plurals",
        "places",
        "categories",
        "wrappers",
        "requests",
        "needs",
        "need_requests",
        "exclusions",
        "crowd",
        "long",
        "drawer",
        "languages",
    )
    missing = [key for key in required if not isinstance(data, dict) or key not in data]
    if missing:
        raise ValueError(f"{resolved}: missing section(s) {', '.join(missing)}; see the format at the top of the file")
    return data


@dataclass(frozen=True)
class Task:
    """One synthetic request: its kind (the writer that made it), its instruction family (the paper's
    seven plus drawer and multilingual), the scene it starts from and its goal (episode-file YAML)."""

    kind: str
    family: str
    instruction: str
    initial: Scene
    goal: dict[str, Any]
    mentions: tuple[str, ...] = ()  # labels the request names, where the plan's wording depends on them
    style: str = ""  # the lexicon pattern group of kinds that have several (long-horizon: "sort", "tour", ...)


@dataclass(frozen=True)
class _Request:
    """What a writer made: the instruction, its goal, and the labels it names where wording needs them."""

    text: str
    goal: dict[str, Any]
    mentions: tuple[str, ...] = ()
    style: str = ""


class _SceneBuilder:
    """A mutable scene being drawn: objects by id, robot place, drawer."""

    def __init__(self, rng: random.Random, labels: Sequence[str], drawer: bool) -> None:
        self.rng = rng
        self.labels = labels
        self.objects: dict[str, ObjectInstance] = {}
        self.robot_at = rng.choice(OBJECT_PLACES)
        self.drawer_open: bool | None = rng.random() < 0.3 if drawer else None
        for label in rng.sample(list(labels), rng.randint(2, 5)):
            self.add(label, self._random_place())
        if rng.random() < 0.15:
            self.add(rng.choice(list(self.objects.values())).label, self._random_place())

    def _random_place(self) -> str:
        return self.rng.choices(OBJECT_PLACES, OBJECT_PLACE_WEIGHTS)[0]

    def add(self, label: str, at: str) -> ObjectInstance:
        index = 1 + sum(obj.label == label for obj in self.objects.values())
        obj = ObjectInstance(f"{label.replace(' ', '_')}_{index}", label, at)
        self.objects[obj.id] = obj
        return obj

    def ensure(self, label: str, at: str | None = None) -> ObjectInstance:
        """An instance of ``label`` (added when absent), moved to ``at`` when given."""
        obj = next((o for o in self.objects.values() if o.label == label), None) or self.add(
            label, self._random_place()
        )
        if at is not None:
            obj = self.move(obj, at)
        return obj

    def move(self, obj: ObjectInstance, at: str) -> ObjectInstance:
        if at == HELD:
            for other in self.at(HELD):
                self.objects[other.id] = ObjectInstance(other.id, other.label, self.robot_at)
        moved = ObjectInstance(obj.id, obj.label, at)
        self.objects[obj.id] = moved
        return moved

    def at(self, place: str) -> list[ObjectInstance]:
        return [obj for obj in self.objects.values() if obj.at == place]

    def of(self, label: str) -> list[ObjectInstance]:
        return [obj for obj in self.objects.values() if obj.label == label]

    def hold_something_else(self, probability: float, avoid: Sequence[str] = ()) -> None:
        """With ``probability``, put some object other than ``avoid`` labels in the gripper (embodiment)."""
        if self.rng.random() >= probability:
            return
        others = [obj for obj in self.objects.values() if obj.label not in avoid and obj.at != HELD]
        if others:
            self.move(self.rng.choice(others), HELD)

    def release_gripper(self) -> None:
        for obj in self.at(HELD):
            self.move(obj, self.robot_at)

    def scene(self) -> Scene:
        return Scene(self.robot_at, tuple(self.objects.values()), self.drawer_open)


class TaskWriter:
    """Writes tasks of each kind of ``kinds`` (name -> instruction family, writer) from the lexicon, on
    scenes drawn with ``rng``."""

    def __init__(self, lexicon: Mapping[str, Any], kitchen: Domain, rng: random.Random) -> None:
        self.lexicon = lexicon
        self.kitchen = kitchen
        self.rng = rng
        self.labels = kitchen.config.labels
        self.kinds: dict[str, tuple[str, Callable[[_SceneBuilder], _Request | None]]] = {
            "pick": ("nl_single_primitive", self._pick),
            "put_down": ("nl_single_primitive", self._put_down),
            "go": ("nl_single_primitive", self._go),
            "come": ("nl_single_primitive", self._come),
            "find": ("nl_single_primitive", self._find),
            "category": ("nl_nouns", self._category),
            "deliver": ("nl_verbs", self._deliver),
            "trash": ("nl_verbs", self._trash),
            "move": ("nl_verbs", self._move),
            "move_from": ("nl_verbs", self._move_from),
            "clear_off": ("nl_verbs", self._clear_off),
            "structured": ("structured_language", self._structured),
            "held": ("embodiment", self._held),
            "busy": ("embodiment", self._busy),
            "need": ("crowd_sourced", self._need),
            "crowd": ("crowd_sourced", self._crowd),
            "not_this": ("crowd_sourced", self._not_this),
            "exclude": ("crowd_sourced", self._exclude),
            "long": ("long_horizon", self._long),
            "drawer": ("drawer", self._drawer),
            "multilingual": ("multilingual", self._multilingual),
        }
        # long-horizon styles (the lexicon's `long` groups) -> writer of a scene and a pattern
        self.long_styles: dict[str, Callable[[_SceneBuilder, str], _Request | None]] = {
            **{style: partial(self._carry, pattern=pattern) for style, pattern in _CARRIES.items()},
            "move_all": self._move_all,
            "trash_all": self._trash_all,
            "sort": self._sort,
            "tour": partial(self._tour, come_back=True),
            "tour_only": partial(self._tour, come_back=False),
            "swap": self._swap,
            "count_distinct": self._count_distinct,
            "need_pair": self._need_pair,
            "sequence": self._sequence,
            "both_deliver": partial(self._both, destination=USER),
            "both_trash": partial(self._both, destination=TRASH),
            "both_move": lambda scene, template: self._both(scene, template, self._choice(SURFACES)),
        }

    def write(self, kind: str) -> Task | None:
        """A task of ``kind`` (one of ``self.kinds``), or None when this draw cannot host it."""
        family, writer = self.kinds[kind]
        scene = _SceneBuilder(self.rng, self.labels, drawer=kind == "drawer")
        written = writer(scene)
        if written is None:
            return None
        return Task(kind, family, written.text, scene.scene(), written.goal, written.mentions, written.style)

    # ----- words --------------------------------------------------------------------------------------
    def _choice(self, options: Sequence[str]) -> str:
        return self.rng.choice(list(options))

    def _name(self, label: str, article: str | None = None) -> str:
        """An object name with a determiner: "the coke", "a can of coke", "an apple"."""
        name = self._choice(self.lexicon["objects"][label])
        article = article or ("the" if self.rng.random() < 0.6 else "a")
        if article == "a" and name[0].lower() in "aeiou":
            article = "an"
        return f"{article} {name}"

    def _place(self, place: str) -> str:
        return self._choice(self.lexicon["places"][place])

    def _request(self, kind: str) -> str:
        return self._choice(self.lexicon["requests"][kind])

    def _wrap(self, request: str) -> str:
        """The request in a random politeness wrapper (imperatives only: "could you I'd like ..." is not
        English), capitalised, with end punctuation."""
        imperative = request.split(maxsplit=1)[0].lower() not in _NOT_IMPERATIVE
        text = self._choice(self.lexicon["wrappers"]).format(request) if imperative else request
        text = text[0].upper() + text[1:]
        return text if text[-1] in ".?!" else text + self._choice((".", ".", "", "!"))

    def _category(self, scene: _SceneBuilder) -> _Request | None:
        category = self._pick_category()
        self._ensure_one_of(scene, category["labels"], away_from=USER)
        scene.hold_something_else(0.15, avoid=category["labels"])
        destination = self.rng.choice((USER, USER, USER, TRASH, *SURFACES))
        phrase = self._choice(category["one"])
        if destination == USER:
            request = self._request("deliver").format(x=phrase)
        elif destination == TRASH:
            request = self._request("trash").format(x=phrase)
        else:
            request = self._request("move").format(x=phrase, p=self._place(destination))
        return _Request(self._wrap(request), _at(category["labels"], destination))

    def _pick_category(self) -> Mapping[str, Any]:
        return self.lexicon["categories"][self._choice(sorted(self.lexicon["categories"]))]

    def _ensure_one_of(self, scene: _SceneBuilder, labels: Sequence[str], away_from: str) -> None:
        """At least one member of ``labels`` lies somewhere other than ``away_from``, plus maybe more."""
        if not any(obj.label in labels and obj.at not in (away_from, HELD) for obj in scene.objects.values()):
            scene.add(self._choice(labels), self._choice([p for p in SURFACES if p != away_from]))
        if self.rng.random() < 0.4:
            scene.add(self._choice(labels), self._choice([p for p in SURFACES if p != away_from]))

    # ----- single primitives ----------------------------------------------------------------------------
    def _pick(self, scene: _SceneBuilder) -> _Request | None:
        label = self._choice(self.labels)
        here = scene.robot_at if scene.robot_at != USER or self.rng.random() < 0.5 else self._choice(SURFACES)
        scene.ensure(label, here if self.rng.random() < 0.8 else self._choice(SURFACES))
        scene.release_gripper()
        scene.hold_something_else(0.15, avoid=(label,))
        obj = scene.of(label)[0]
        if obj.at == scene.robot_at and self.rng.random() < 0.3:
            request = self._request("pick_here").format(x=self._name(label, "the"), a=self._place(obj.at))
        else:
            request = self._request("pick").format(x=self._name(label))
        return _Request(self._wrap(request), {"holding": label})

    def _put_down(self, scene: _SceneBuilder) -> _Request | None:
        if scene.robot_at == TRASH and self.rng.random() < 0.7:
            scene.robot_at = self._choice(SURFACES)
        label = self._choice(self.labels)
        scene.move(scene.ensure(label), HELD)
        return _Request(
            self._wrap(self._request("put_down").format(x=self._name(label, "the"))), _at([label], scene.robot_at)
        )

    def _go(self, scene: _SceneBuilder) -> _Request | None:
        place = self._choice([p for p in (*SURFACES, TRASH) if p != scene.robot_at])
        scene.hold_something_else(0.2)
        return _Request(self._wrap(self._request("go").format(p=self._place(place))), {"robot_at": place})

    def _come(self, scene: _SceneBuilder) -> _Request | None:
        if scene.robot_at == USER:
            scene.robot_at = self._choice(SURFACES)
        scene.hold_something_else(0.2)
        return _Request(self._wrap(self._request("come")), {"robot_at": USER})

    def _find(self, scene: _SceneBuilder) -> _Request | None:
        label = self._choice(self.labels)
        obj = scene.ensure(label, self._choice([p for p in SURFACES if p != scene.robot_at]))
        if len(scene.of(label)) > 1:
            return None  # "find" drives to the nearest instance; one instance keeps the goal unambiguous
        return _Request(self._wrap(self._request("find").format(x=self._name(label))), {"robot_at": obj.at}, (label,))

    # ----- verbs: one object to a place -------------------------------------------------------------------
    def _deliver(self, scene: _SceneBuilder) -> _Request | None:
        label = self._object_away_from(scene, USER)
        return _Request(self._wrap(self._request("deliver").format(x=self._name(label))), _at([label], USER))

    def _trash(self, scene: _SceneBuilder) -> _Request | None:
        label = self._object_away_from(scene, TRASH)
        return _Request(self._wrap(self._request("trash").format(x=self._name(label, "the"))), _at([label], TRASH))

    def _move(self, scene: _SceneBuilder) -> _Request | None:
        place = self._choice(SURFACES)
        label = self._object_away_from(scene, place)
        request = self._request("move").format(x=self._name(label), p=self._place(place))
        return _Request(self._wrap(request), _at([label], place))

    def _move_from(self, scene: _SceneBuilder) -> _Request | None:
        source, place = self.rng.sample(SURFACES, 2)
        label = self._choice(self.labels)
        scene.ensure(label, source)
        self._maybe_another(scene, label, source, place)
        scene.hold_something_else(0.1, avoid=(label,))
        request = self._request("move_from").format(
            x=self._name(label, "the"), a=self._place(source), p=self._place(place)
        )
        return _Request(self._wrap(request), _from_to(label, source, place, scene))

    def _clear_off(self, scene: _SceneBuilder) -> _Request | None:
        source = self._choice(SURFACES)
        label = self._choice(self.labels)
        scene.ensure(label, source)
        for other in scene.of(label):
            if other.at != source:
                scene.move(other, self._choice([p for p in SURFACES if p != source]))
        scene.release_gripper()
        request = self._request("clear_off").format(x=self._name(label, "the"), a=self._place(source))
        return _Request(self._wrap(request), {"all": [{"not": _at([label], source)}, {"holding": None}]})

    def _maybe_another(self, scene: _SceneBuilder, label: str, source: str, destination: str) -> None:
        """Sometimes a second ``label`` elsewhere (not at ``destination``), often where the robot stands: a
        request that says where its object lies ("the coke on the table") then means that one, not the
        nearest."""
        others = [p for p in SURFACES if p not in (source, destination)]
        if self.rng.random() < 0.35 and len(scene.of(label)) == 1 and others:
            scene.add(label, scene.robot_at if scene.robot_at in others else self._choice(others))

    def _object_away_from(self, scene: _SceneBuilder, destination: str) -> str:
        """A label with an instance not at ``destination`` (the robot may already hold it: embodiment)."""
        label = self._choice(self.labels)
        obj = scene.ensure(label)
        if obj.at == destination:
            scene.move(obj, self._choice([p for p in SURFACES if p != destination]))
        for other in scene.of(label):
            if other.at == destination:
                scene.move(other, self._choice([p for p in SURFACES if p != destination]))
        roll = self.rng.random()
        if roll < 0.12:
            scene.move(scene.of(label)[0], HELD)
        elif roll < 0.24:
            scene.hold_something_else(1.0, avoid=(label,))
        return label

    def _structured(self, scene: _SceneBuilder) -> _Request | None:
        goal_kind = self._choice(sorted(self.lexicon["requests"]["structured"]))
        template = self._choice(self.lexicon["requests"]["structured"][goal_kind])
        label = self._choice(self.labels)
        source = self._choice(SURFACES)
        scene.ensure(label, source)
        scene.release_gripper()
        scene.hold_something_else(0.2, avoid=(label,))
        destination = {"deliver": USER, "trash": TRASH}.get(goal_kind) or self._choice(
            [p for p in SURFACES if p != source]
        )
        if "{a}" in template:
            self._maybe_another(scene, label, source, destination)
        request = template.format(x=self._name(label, "the"), a=self._place(source), p=self._place(destination))
        if goal_kind == "pick_at":
            goal: dict[str, Any] = {"all": [{"holding": label}, {"robot_at": source}]}
        elif "{a}" in template:
            goal = _from_to(label, source, destination, scene)
        else:
            goal = _at([label], destination)
        return _Request(self._wrap(request), goal)

    # ----- embodiment, crowd-sourced ---------------------------------------------------------------------
    def _held(self, scene: _SceneBuilder) -> _Request | None:
        label = self._choice(self.labels)
        scene.move(scene.ensure(label), HELD)
        if scene.robot_at == USER:
            scene.robot_at = self._choice(SURFACES)
        request = self._request("held_deliver").format(x=self._name(label, "the"))
        return _Request(self._wrap(request), _at([label], USER))

    def _busy(self, scene: _SceneBuilder) -> _Request | None:
        """The gripper is full when the request comes: the object asked for (carry it on) or another one
        (put it down first)."""
        what = self._choice(("deliver", "trash", "move"))
        destination = {"deliver": USER, "trash": TRASH}.get(what) or self._choice(SURFACES)
        label = self._choice(self.labels)
        self._away(scene, label, destination)
        if self.rng.random() < 0.4:
            scene.move(scene.of(label)[0], HELD)
        else:
            if not [obj for obj in scene.objects.values() if obj.label != label]:
                scene.add(self._choice([other for other in self.labels if other != label]), scene.robot_at)
            scene.hold_something_else(1.0, avoid=(label,))
        request = self._request(what).format(x=self._name(label), p=self._place(destination))
        return _Request(self._wrap(request), _at([label], destination))

    def _need(self, scene: _SceneBuilder) -> _Request | None:
        need = self._choice(sorted(self.lexicon["needs"]))
        category = self.lexicon["categories"][need]
        self._ensure_one_of(scene, category["labels"], away_from=USER)
        scene.hold_something_else(0.1, avoid=category["labels"])
        statement = self._choice(self.lexicon["needs"][need])
        text = self._choice(self.lexicon["need_requests"]).format(n=statement, c=self._choice(category["one"]))
        return _Request(text[0].upper() + text[1:], _at(category["labels"], USER))

    def _crowd(self, scene: _SceneBuilder) -> _Request | None:
        style = self._choice(sorted(self.lexicon["crowd"]))
        if style == "not_this":
            return self._not_this(scene)
        if style == "exclude":
            return self._exclude(scene)
        label = self._choice(self.labels)
        name = self._choice(self.lexicon["objects"][label])
        template = self._choice(self.lexicon["crowd"][style])
        if style == "favourite":
            self._object_away_from_label(scene, label, USER)
            return _Request(_sentence(template.format(l=name)), _at([label], USER))
        if style == "finished":
            self._object_away_from_label(scene, label, TRASH)
            return _Request(_sentence(template.format(l=name)), _at([label], TRASH))
        source = self._choice((*SURFACES, USER))
        scene.ensure(label, source)
        if style == "finished_at":
            return _Request(
                _sentence(template.format(l=name, a=self._place(source))), _from_to(label, source, TRASH, scene)
            )
        place = self._choice([p for p in SURFACES if p != source])
        text = _sentence(template.format(l=name, a=self._place(source), p=self._place(place), x=self._name(label)))
        return _Request(text, _from_to(label, source, place, scene) if "{a}" in template else _at([label], place))

    def _object_away_from_label(self, scene: _SceneBuilder, label: str, destination: str) -> None:
        obj = scene.ensure(label)
        for other in scene.of(label):
            if other.at == destination:
                scene.move(other, self._choice(SURFACES))
        if obj.at == HELD and self.rng.random() < 0.5:
            scene.release_gripper()

    def _not_this(self, scene: _SceneBuilder) -> _Request | None:
        candidates = [c for c in self.lexicon["categories"].values() if len(c["labels"]) > 1]
        category = self._choice_mapping(candidates)
        excluded, *_rest = self.rng.sample(category["labels"], 2)
        allowed = [label for label in category["labels"] if label != excluded]
        near = scene.robot_at if scene.robot_at in SURFACES else self._choice(SURFACES)
        scene.ensure(excluded, near)  # the excluded one is the nearest: a planner that ignores "not" picks it
        scene.ensure(self._choice(allowed), self._choice([p for p in SURFACES if p != near]))
        scene.release_gripper()
        request = self._choice(self.lexicon["crowd"]["not_this"]).format(
            c=self._choice(category["one"]), x=self._name(excluded, "the")
        )
        goal = {"all": [_at(allowed, USER), {"not": _at([excluded], USER)}]}
        return _Request(self._wrap(request), goal)

    def _exclude(self, scene: _SceneBuilder) -> _Request | None:
        """A category asked for with a property ruled out ("something to drink without caffeine"); the
        nearest member has the property, so a planner that ignores the exclusion picks it."""
        exclusion = self.lexicon["exclusions"][self._choice(sorted(self.lexicon["exclusions"]))]
        excluded = set(exclusion["labels"])
        candidates = [
            c
            for c in self.lexicon["categories"].values()
            if excluded & set(c["labels"]) and set(c["labels"]) - excluded
        ]
        if not candidates:
            return None
        category = self._choice_mapping(candidates)
        allowed = [label for label in category["labels"] if label not in excluded]
        ruled_out = [label for label in category["labels"] if label in excluded]
        near = scene.robot_at if scene.robot_at in SURFACES else self._choice(SURFACES)
        scene.ensure(self._choice(ruled_out), near)
        scene.ensure(self._choice(allowed), self._choice([p for p in SURFACES if p != near]))
        for obj in scene.objects.values():
            if obj.at in (USER, HELD) and obj.label in category["labels"]:
                scene.move(obj, self._choice(SURFACES))
        template = self._choice(self.lexicon["crowd"]["exclude"])
        request = template.format(c=self._choice(category["one"]), e=self._choice(exclusion["say"]))
        goal = {"all": [_at(allowed, USER), {"not": _at(ruled_out, USER)}]}
        return _Request(self._wrap(request), goal)

    def _choice_mapping(self, options: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
        return options[self.rng.randrange(len(options))]

    # ----- long horizon ------------------------------------------------------------------------------------
    def _long(self, scene: _SceneBuilder) -> _Request | None:
        style = self._choice(sorted(self.lexicon["long"]))
        template = self._choice(self.lexicon["long"][style])
        scene.release_gripper()
        if style not in self.long_styles:
            known = ", ".join(sorted(self.long_styles))
            raise ValueError(f"lexicon long-horizon style {style!r} has no writer; known styles: {known}")
        written = self.long_styles[style](scene, template)
        return None if written is None else replace(written, style=style)

    def _both(self, scene: _SceneBuilder, template: str, destination: str) -> _Request:
        """Two instances of one label, named in the plural, to ``destination``."""
        label = self._choice(self.labels)
        self._two_of(scene, label, destination)
        request = template.format(xs=self._choice(self.lexicon["plurals"][label]), p=self._place(destination))
        return _Request(self._wrap(request), {"count": {"labels": [label], "location": destination, "min": 2}})

    def _carry(self, scene: _SceneBuilder, template: str, pattern: Sequence[str]) -> _Request:
        """Named objects, each to its destination of ``pattern`` (``p`` / ``q``: two different surfaces)."""
        p, q = self.rng.sample(SURFACES, 2)
        destinations = [{"p": p, "q": q}.get(d, d) for d in pattern]
        labels = self.rng.sample(list(self.labels), len(destinations))
        for label, destination in zip(labels, destinations, strict=True):
            self._away(scene, label, destination)
        names = [self._name(label) for label in labels]
        request = template.format(x=names[0], y=names[1], z=names[-1], p=self._place(p), q=self._place(q))
        return _Request(
            self._wrap(request), {"all": [_at([label], d) for label, d in zip(labels, destinations, strict=True)]}
        )

    def _two_of(self, scene: _SceneBuilder, label: str, destination: str) -> None:
        """Exactly two instances of ``label`` ("both" means two), on surfaces other than ``destination``."""
        for extra in scene.of(label)[2:]:
            del scene.objects[extra.id]
        for _ in range(2 - len(scene.of(label))):
            scene.add(label, self._choice(SURFACES))
        for obj in scene.of(label):
            scene.move(obj, self._choice([s for s in SURFACES if s != destination]))

    def _away(self, scene: _SceneBuilder, label: str, destination: str) -> None:
        """An instance of ``label`` on a surface other than ``destination``, and none already there (a
        request that names an object means one that still has to be carried)."""
        elsewhere = [s for s in SURFACES if s != destination]
        scene.ensure(label, self._choice(elsewhere))
        for other in scene.of(label):
            if other.at == destination:
                scene.move(other, self._choice(elsewhere))

    def _move_all(self, scene: _SceneBuilder, template: str) -> _Request:
        source, place = self.rng.sample(SURFACES, 2)
        for label in self.rng.sample(list(self.labels), self.rng.randint(2, 3)):
            scene.ensure(label, source)
        request = template.format(a=self._place(source), p=self._place(place))
        return _Request(self._wrap(request), _all_at(scene.at(source), place))

    def _trash_all(self, scene: _SceneBuilder, template: str) -> _Request | None:
        category = self._pick_category()
        members = list(category["labels"])
        source = self._choice(SURFACES)
        for label in self.rng.sample(members, min(len(members), self.rng.randint(2, 3))):
            scene.add(label, source)
        others = [label for label in self.labels if label not in members]
        keep = scene.add(self._choice(others), source)
        thrown = [obj for obj in scene.at(source) if obj.label in members]
        if len(thrown) < 2:
            return None
        request = template.format(cs=self._choice(category["all"]), a=self._place(source))
        return _Request(self._wrap(request), {"all": [*_all_at(thrown, TRASH)["all"], _at([keep.label], source)]})

    def _sort(self, scene: _SceneBuilder, template: str) -> _Request | None:
        """Two categories without common labels, each to its own surface: every member on a surface."""
        pair = self._two_disjoint_categories()
        if pair is None:
            return None
        one, two = pair
        p, q = self.rng.sample(SURFACES, 2)
        for category, place in ((one, p), (two, q)):
            for obj in scene.objects.values():
                if obj.label in category["labels"] and obj.at not in SURFACES:
                    scene.move(obj, self._choice(SURFACES))
            self._away(scene, self._choice(category["labels"]), place)
        moved = {
            place: [obj for obj in scene.objects.values() if obj.label in category["labels"]]
            for category, place in ((one, p), (two, q))
        }
        if sum(obj.at != place for place, objs in moved.items() for obj in objs) > 4:
            return None  # more than four objects to carry: plans past what the suite asks for
        request = template.format(
            cs=self._choice(one["all"]), cs2=self._choice(two["all"]), p=self._place(p), q=self._place(q)
        )
        goal = [part for place, objs in moved.items() for part in _all_at(objs, place)["all"]]
        return _Request(self._wrap(request), {"all": goal})

    def _two_disjoint_categories(self) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
        """Two categories drawn at random, or None when they share a label (a request for both would be
        ambiguous about which one an object serves)."""
        first, second = self.rng.sample(sorted(self.lexicon["categories"]), 2)
        one, two = self.lexicon["categories"][first], self.lexicon["categories"][second]
        return None if set(one["labels"]) & set(two["labels"]) else (one, two)

    def _tour(self, scene: _SceneBuilder, template: str, come_back: bool) -> _Request:
        keys = [key for key in "pqr" if f"{{{key}}}" in template]
        if come_back and scene.robot_at == USER:
            scene.robot_at = self._choice(SURFACES)
        places = self.rng.sample([p for p in (*SURFACES, TRASH) if p != scene.robot_at], len(keys))
        request = template.format(**{key: self._place(place) for key, place in zip(keys, places, strict=True)})
        goal: dict[str, Any] = {"visited": places}
        return _Request(self._wrap(request), {"all": [goal, {"robot_at": USER}]} if come_back else goal)

    def _swap(self, scene: _SceneBuilder, template: str) -> _Request | None:
        a, b = self.rng.sample(list(self.labels), 2)
        p, q = self.rng.sample(SURFACES, 2)
        if scene.of(a) or scene.of(b):
            return None
        scene.add(a, p)
        scene.add(b, q)
        request = template.format(x=self._name(a, "the"), y=self._name(b, "the"))
        return _Request(self._wrap(request), {"all": [_at([a], q), _at([b], p)]})

    def _count_distinct(self, scene: _SceneBuilder, template: str) -> _Request | None:
        candidates = [c for c in self.lexicon["categories"].values() if "kinds" in c and len(c["labels"]) >= 3]
        category = self._choice_mapping(candidates)
        count = self.rng.choice([n for n in (2, 3) if n < len(category["labels"])])
        place = self._choice(SURFACES) if "{p}" in template else USER
        for label in self.rng.sample(category["labels"], count + 1):
            scene.add(label, self._choice([s for s in SURFACES if s != place]))
        request = template.format(n=_NUMBERS[count], k=self._choice(category["kinds"]), p=self._place(place))
        goal = {"count": {"labels": category["labels"], "location": place, "min": count, "distinct": True}}
        return _Request(self._wrap(request), goal)

    def _need_pair(self, scene: _SceneBuilder, template: str) -> _Request | None:
        pair = self._two_disjoint_categories()
        if pair is None:
            return None
        one, two = pair
        self._ensure_one_of(scene, one["labels"], away_from=USER)
        self._ensure_one_of(scene, two["labels"], away_from=USER)
        request = template.format(c=self._choice(one["one"]), c2=self._choice(two["one"]))
        return _Request(self._wrap(request), {"all": [_at(one["labels"], USER), _at(two["labels"], USER)]})

    def _sequence(self, scene: _SceneBuilder, template: str) -> _Request | None:
        """Two single requests (deliver, throw away, move one object, or visit a place) one after the other."""
        parts: list[str] = []
        goals: list[dict[str, Any]] = []
        for label in self.rng.sample(list(self.labels), 2):
            what = self._choice(("deliver", "trash", "move", "visit"))
            if what == "visit":
                place = self._choice([p for p in (*SURFACES, TRASH) if p != scene.robot_at])
                parts.append(self._request("go").format(p=self._place(place)))
                goals.append({"visited": [place]})
                continue
            destination = {"deliver": USER, "trash": TRASH}.get(what) or self._choice(SURFACES)
            self._away(scene, label, destination)
            parts.append(self._request(what).format(x=self._name(label, "the"), p=self._place(destination)))
            goals.append(_at([label], destination))
        if goals[0] == goals[1]:
            return None
        return _Request(self._wrap(template.format(s1=parts[0], s2=parts[1])), {"all": goals})

    # ----- drawer, other languages --------------------------------------------------------------------------
    def _drawer(self, scene: _SceneBuilder) -> _Request | None:
        style = self._choice(sorted(self.lexicon["drawer"]))
        templates = self.lexicon["drawer"][style]
        a, b = self.rng.sample(list(self.labels), 2)
        if self.rng.random() < 0.2:
            scene.robot_at = "drawers"
        if style == "put_in":
            obj = scene.ensure(a, self._choice(SURFACES))
            if self.rng.random() < 0.25:
                scene.move(obj, HELD)
            return _Request(self._wrap(self._choice(templates).format(x=self._name(a, "the"))), _at([a], "drawer"))
        if style == "both_in":
            self._two_of(scene, a, "drawer")
            request = self._choice(templates).format(xs=self._choice(self.lexicon["plurals"][a]))
            return _Request(self._wrap(request), {"count": {"labels": [a], "location": "drawer", "min": 2}})
        if style == "two_in":
            scene.ensure(a, self._choice(SURFACES))
            scene.ensure(b, self._choice(SURFACES))
            request = self._choice(templates).format(x=self._name(a), y=self._name(b))
            return _Request(self._wrap(request), {"all": [_at([a], "drawer"), _at([b], "drawer")]})
        for obj in scene.of(a):
            scene.move(obj, self._choice(SURFACES))
        scene.ensure(a, "drawer")
        if style == "take_out_deliver":
            return _Request(self._wrap(self._choice(templates).format(x=self._name(a, "the"))), _at([a], USER))
        place = self._choice(SURFACES)
        request = self._choice(templates).format(x=self._name(a, "the"), p=self._place(place))
        return _Request(self._wrap(request), {"all": [_at([a], place), {"not": _at([a], "drawer")}]})

    def _multilingual(self, scene: _SceneBuilder) -> _Request | None:
        language = self.lexicon["languages"][self._choice(sorted(self.lexicon["languages"]))]
        style = self._choice(("deliver", "deliver", "trash", "move"))
        place = {"deliver": USER, "trash": TRASH}.get(style) or self._choice(sorted(language["places"]))
        label = self._object_away_from(scene, place)
        request = self._choice(language[style]).format(
            x=language["objects"][label], p=language["places"].get(place, "")
        )
        return _Request(request, _at([label], place))


def _at(labels: Sequence[str], location: str) -> dict[str, Any]:
    return {"at": {"label": list(labels) if len(labels) > 1 else labels[0], "location": location}}


def _from_to(label: str, source: str, destination: str, scene: _SceneBuilder) -> dict[str, Any]:
    """X at ``destination``; when another X lies elsewhere, also none left at ``source`` (that one was meant)."""
    if len(scene.of(label)) > 1:
        return {"all": [_at([label], destination), {"not": _at([label], source)}]}
    return _at([label], destination)


def _all_at(objects: Sequence[ObjectInstance], place: str) -> dict[str, Any]:
    """Every one of ``objects`` at ``place`` (labels that repeat become counts)."""
    counts: dict[str, int] = {}
    for obj in objects:
        counts[obj.label] = counts.get(obj.label, 0) + 1
    parts = [
        _at([label], place) if n == 1 else {"count": {"labels": [label], "location": place, "min": n}}
        for label, n in counts.items()
    ]
    return {"all": parts}


def _sentence(text: str) -> str:
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else text + "."

"""Requests any domain's own files can say, with the scenes they start from: the generated part of a
domain's example bank (``llm-planner domain build DIR --generate N``).

The kitchen's bank comes from a request writer made for the kitchen (``saycan_tasks`` and its lexicon).
Another domain has only its files, so its tasks are written from them alone: a random scene (the robot
at one of its places, some of its objects on places that can hold them, never one its ``layout.yaml``
leaves bare with ``kind: none``, maybe one in the gripper, each fact a skill can change true or false),
then a goal of one of these kinds, worded from a few plain templates:

- ``deliver``: an object to the person ("Bring me the mug."), ``move``: to a place ("Move the mug to
  the desk."), ``go``: the robot to a place, ``pick``: an object into the gripper;
- ``fact``: a fact a skill sets or clears, worded as that skill's own text ("Please open the door.") or
  as one of the ``requests`` its skills file gives it ("Call the elevator."); a change at the robot's
  place (``{here}``) once for each place it covers ("Wipe the table at the desk.");
- ``make``: an object a skill makes (a coffee), which no random scene holds, to the person ("Make me a
  coffee."), in a domain whose skills make objects;
- ``category``: one of a category's objects to the person, asked for by the category ("Bring me
  something to drink.") or by a need it answers ("I'm thirsty."), in a domain whose world file has
  categories (docs/domains.md);
- ``two``: two of the above in one request ("Open the door, then bring me the mug.").

Objects and places are named by their name or, one time in three, by one of the ``synonyms`` the world
file gives them ("cup" for the mug); the plan always uses the name. An object in the gripper is named as
such half the time ("the mug you are holding"). Paraphrases the files do not give are unknown here, so
the requests are plainer than people's; the training episodes a user writes (``train.yaml``) carry those.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.conditions import condition_from_yaml
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.facts import HERE, at_place
from llm_planner_ros.domain.layout import NO_FURNITURE, load_layout
from llm_planner_ros.domain.oracle import shortest_plan
from llm_planner_ros.domain.skill import Consume, FactChange, Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.scene import describe_scene

PERSON = "user"  # the place "bring it to you" goes to (docs/domains.md)
MAX_PLAN = 12  # longest plan kept, done included
KIND_WEIGHTS = {"deliver": 0.25, "move": 0.2, "go": 0.08, "pick": 0.07, "fact": 0.25, "two": 0.15}
# The shares of ``category`` and ``make`` tasks in a domain with categories, with skills that make objects
# (the other kinds' weights scale down; a domain with neither keeps its draws).
CATEGORY_WEIGHT = 0.15
MAKE_WEIGHT = 0.1
TEMPLATES = {
    "deliver": (
        "Bring me the {o}.",
        "Can you bring me the {o}?",
        "Could you get me the {o}?",
        "I need the {o}.",
        "Please fetch the {o} for me.",
        "Get me the {o}, please.",
        "Hand me the {o}.",
        "I'd like the {o}.",
        "Can I have the {o}?",
        "Would you bring the {o} over here?",
    ),
    "move": (
        "Put the {o} at the {p}.",
        "Move the {o} to the {p}.",
        "Take the {o} to the {p}.",
        "Leave the {o} at the {p}.",
        "Carry the {o} over to the {p}.",
        "Place the {o} on the {p}.",
        "Bring the {o} to the {p}.",
        "Put the {o} back at the {p}.",
        "Drop the {o} off at the {p}.",
    ),
    "go": ("Go to the {p}.", "Head over to the {p}.", "Please go to the {p}.", "Walk to the {p}.", "Move to the {p}."),
    "pick": ("Pick up the {o}.", "Grab the {o}.", "Take the {o} in your gripper.", "Pick the {o} up."),
    "fact": ("{S}.", "Please {s}.", "Could you {s}?", "Can you {s} for me?", "{S}, please."),
    "category": ("Bring me {c}.", "Can you get me {c}?", "I'd like {c}, please.", "Could you find me {c}?"),
    "need": ("{N}.", "{N}, can you help?", "{N}, bring me {c}.", "{N}. Could you get me {c}?"),
    "make": ("Make me {o}.", "Can you make me {o}?", "I'd like {o}, please.", "Bring me {o}.", "{S} for me, please."),
}
JOINS = ("{a} and {b}", "{a}, then {b}", "First {a}, then {b}", "{a}, and after that {b}")
HELD = ("{o} you are holding", "{o} you have")  # how a request may name the object in the gripper
SYNONYM_SHARE = 1 / 3  # requests naming an object or place that has synonyms by one of them


@dataclass(frozen=True)
class Task:
    """A request, the episode-file ``initial`` block it starts from and its goal (goal-language YAML)."""

    kind: str
    instruction: str
    initial: dict[str, Any]
    goal: dict[str, Any]


class TaskWriter:
    """Draws tasks of one domain with one random generator (the same seed gives the same tasks)."""

    def __init__(self, kitchen: Domain, rng: random.Random) -> None:
        self.kitchen = kitchen
        self.rng = rng
        places = kitchen.config.places(with_drawer=False)
        self.places = [p for p in places if p != PERSON]
        # Objects stand only where something can hold them: not on a place the layout leaves bare (a hall).
        furniture = load_layout(kitchen.config, standing_room=False).furniture
        self.surfaces = [p for p in self.places if furniture[p].kind != NO_FURNITURE]
        # What a skill makes is in no scene until made (a coffee): asked for, never put there.
        made = kitchen.library.created_labels()
        self.labels = [label for label in kitchen.config.labels if label not in made]
        rules = [rule for skill in kitchen.library.skills() if (rule := kitchen.library.find(skill.text)) is not None]
        # Each fact skill's text, its wordings (the text, then the requests its skills file gives it), and
        # the change; a change at the robot's place once for every place it covers ("... at the desk").
        self.fact_skills: list[tuple[str, tuple[str, ...], FactChange]] = []
        facts = kitchen.config.fact_names()
        for rule in rules:
            wordings = (rule.skill.text, *rule.requests)
            for effect in rule.effects:
                if isinstance(effect, FactChange) and HERE not in effect.atom:
                    self.fact_skills.append((rule.skill.text, wordings, effect))
                elif isinstance(effect, FactChange):
                    self.fact_skills.extend(
                        (rule.skill.text, tuple(f"{text} at the {place}" for text in wordings), at)
                        for place in self.places
                        if facts.covers(effect.atom, place)
                        for at in (FactChange(at_place(effect.atom, place), effect.value),)
                    )
        self.atoms = sorted({effect.atom for _, _, effect in self.fact_skills})
        # Each label a skill makes, with the rules that make it ("make a coffee").
        self.makes = {label: [rule for rule in rules if label in rule.creates] for label in sorted(made)}
        self.categories = list(kitchen.config.categories.values())
        extra = {"category": CATEGORY_WEIGHT if self.categories else 0.0, "make": MAKE_WEIGHT if made else 0.0}
        share = 1 - sum(extra.values())
        self.kind_weights = {
            **{kind: weight * share for kind, weight in KIND_WEIGHTS.items()},
            **{kind: weight for kind, weight in extra.items() if weight},
        }

    def scene(self) -> dict[str, Any]:
        """A random ``initial`` block: 2 to 5 objects, the gripper holding one of them one time in five."""
        labels = self.rng.sample(self.labels, k=self.rng.randint(min(2, len(self.labels)), min(5, len(self.labels))))
        objects = [
            {"id": f"{label.replace(' ', '_')}_1", "label": label, "at": self.rng.choice(self.surfaces)}
            for label in labels
        ]
        holding = None
        if self.rng.random() < 0.2:
            held = self.rng.choice(objects)
            held["at"], holding = "robot", held["id"]
        initial: dict[str, Any] = {
            "robot": {"at": self.rng.choice(self.places), "holding": holding},
            "objects": objects,
        }
        if self.kitchen.config.facts:
            initial["facts"] = [atom for atom in self.atoms if self.rng.random() < 0.5]
        return initial

    def part(self, kind: str, initial: dict[str, Any], plain: bool = False) -> tuple[str, dict[str, Any]] | None:
        """One request and its goal of ``kind`` in the scene ``initial``; None when the scene offers none.
        ``plain``: the first, imperative template of the kind (a part of a two-part request)."""
        objects = initial["objects"]

        def pick(choices: Any) -> Any:
            return choices[0] if plain and choices and isinstance(choices[0], str) else self.rng.choice(choices)

        if kind == "deliver" and objects:
            obj = self.rng.choice(objects)
            text = pick(TEMPLATES["deliver"]).format(o=self.name(obj))
            return text, {"at": {"label": obj["label"], "location": PERSON}}
        # A domain of one table (an arm's) has nowhere else to move an object or to go.
        if kind == "move" and objects:
            obj = self.rng.choice(objects)
            elsewhere = [p for p in self.surfaces if p != obj["at"]]
            if not elsewhere:
                return None
            place = self.rng.choice(elsewhere)
            text = pick(TEMPLATES["move"]).format(o=self.name(obj), p=self.say(place))
            return text, {"at": {"label": obj["label"], "location": place}}
        if kind == "go":
            elsewhere = [p for p in self.places if p != initial["robot"]["at"]]
            if not elsewhere:
                return None
            place = self.rng.choice(elsewhere)
            return pick(TEMPLATES["go"]).format(p=self.say(place)), {"robot_at": place}
        if kind == "pick" and objects:
            label = self.rng.choice(objects)["label"]
            return pick(TEMPLATES["pick"]).format(o=self.say(label)), {"holding": label}
        if kind == "category" and self.categories:
            return self._category(initial, pick)
        if kind == "make" and self.makes:
            label = self.rng.choice(sorted(self.makes))
            maker = self.rng.choice(self.makes[label])
            made = self.rng.choice((maker.skill.text, *maker.requests))
            asked = f"{self.kitchen.config.articles[label]} {self.say(label)}"
            text = pick(TEMPLATES["make"]).format(o=asked, S=made[0].upper() + made[1:])
            self._bring_what_it_needs(maker.skill.text, initial)
            return text, {"at": {"label": label, "location": PERSON}}
        if kind == "fact" and self.fact_skills:
            holds = set(initial.get("facts", ()))
            changes = [entry for entry in self.fact_skills if (entry[2].atom in holds) != entry[2].value]
            if not changes:
                return None
            skill_text, texts, effect = self.rng.choice(changes)
            self._bring_what_it_needs(skill_text, initial)
            text = self.rng.choice(texts)
            request = pick(TEMPLATES["fact"]).format(S=text[0].upper() + text[1:], s=text)
            return request, {"fact": effect.atom} if effect.value else {"not": {"fact": effect.atom}}
        return None

    def _category(self, initial: dict[str, Any], pick: Any) -> tuple[str, dict[str, Any]]:
        """A request for one of a random category's objects, by the category or a need; the scene gets one
        of its objects where it has none."""
        category = self.rng.choice(self.categories)
        # A category whose objects are all made (a coffee) is served by making one.
        placeable = [label for label in category.labels if label in self.labels]
        if not any(obj["label"] in category.labels for obj in initial["objects"]):
            if placeable:
                self._add_object(self.rng.choice(placeable), initial)
            else:
                self._bring_what_it_needs(self.makes[category.labels[0]][0].skill.text, initial)
        asked = self.rng.choice((category.asked, *category.synonyms))
        if category.needs and self.rng.random() < 0.5:
            text = pick(TEMPLATES["need"]).format(N=self.rng.choice(category.needs), c=asked)
        else:
            text = pick(TEMPLATES["category"]).format(c=asked)
        return text, {"at": {"label": category.name, "location": PERSON}}

    def name(self, obj: dict[str, Any]) -> str:
        """How a request names the scene object ``obj``: as ``say`` does, or, one time in two when the
        gripper holds it, as the object the robot holds ("the mug you are holding")."""
        label = self.say(obj["label"])
        return self.rng.choice(HELD).format(o=label) if obj["at"] == "robot" and self.rng.random() < 0.5 else label

    def say(self, name: str) -> str:
        """How a request names the object or place ``name``: itself, or SYNONYM_SHARE of the time one of
        its synonyms."""
        synonyms = self.kitchen.config.names(name)[1:]
        return self.rng.choice(synonyms) if synonyms and self.rng.random() < SYNONYM_SHARE else name

    def _bring_what_it_needs(self, text: str, initial: dict[str, Any]) -> None:
        """Put each object a written precondition of skill ``text`` names ({holding: sponge}), or that it
        uses up, into the scene where it lacks one, on a random place: without it the task has no plan, and
        proving that costs the oracle a search of every state within MAX_PLAN skills."""
        rule = self.kitchen.library.find(text)
        needs = (*rule.preconditions, *(e for e in rule.effects if isinstance(e, Consume))) if rule else ()
        named = " ".join(str(c) for c in needs if not isinstance(c, str))
        # Longest label first, its words then taken: "coffee pod" names no coffee.
        wanted = set()
        for label in sorted(self.labels, key=len, reverse=True):
            pattern = rf"\b{re.escape(label)}\b"
            if re.search(pattern, named):
                wanted.add(label)
                named = re.sub(pattern, " ", named)
        present = {obj["label"] for obj in initial["objects"]}
        for label in self.labels:
            if label in wanted and label not in present:
                self._add_object(label, initial)

    def _add_object(self, label: str, initial: dict[str, Any]) -> None:
        """Put an object of ``label`` into the scene ``initial``, on a random place that can hold it."""
        identifier = f"{label.replace(' ', '_')}_1"
        initial["objects"].append({"id": identifier, "label": label, "at": self.rng.choice(self.surfaces)})

    def write(self) -> Task | None:
        """One task, or None when the drawn kind does not fit the drawn scene."""
        kinds, weights = zip(*self.kind_weights.items(), strict=True)
        kind = self.rng.choices(kinds, weights)[0]
        initial = self.scene()
        if kind != "two":
            part = self.part(kind, initial)
            return None if part is None else Task(kind, part[0], initial, part[1])
        first, second = (self.part(self.rng.choice(("deliver", "move", "fact")), initial, plain=True) for _ in range(2))
        if first is None or second is None or _labels(first[1]) & _labels(second[1]) or first[1] == second[1]:
            return None
        a, b = (part[0].rstrip(".?!") for part in (first, second))
        text = self.rng.choice(JOINS).format(a=a[0].lower() + a[1:], b=b[0].lower() + b[1:]) + "."
        return Task(kind, text[0].upper() + text[1:], initial, {"all": [first[1], second[1]]})


def _labels(goal: dict[str, Any]) -> set[str]:
    """The object label a one-part goal moves (none for a fact): two parts on one object fight."""
    at = goal.get("at")
    return {at["label"]} if isinstance(at, dict) else set()


def normalized(instruction: str) -> str:
    """The form two instructions are compared in for decontamination: lower case, words only."""
    return " ".join("".join(ch if ch.isalnum() else " " for ch in instruction.lower()).split())


def solve_task(
    kitchen: Domain, initial: dict[str, Any], goal: dict[str, Any], kind: str, max_plan: int
) -> tuple[World, list[Skill]] | None:
    """The world of a drawn task's ``initial`` block and a shortest plan (``done`` included) to its ``goal``
    (goal-language YAML); None when the goal holds already or no plan of at most ``max_plan`` skills
    reaches it: such a task is drawn again."""
    world = kitchen.world(initial, f"generated {kind} task")
    condition = condition_from_yaml(goal, kitchen.config, f"generated {kind} goal")
    if condition.holds(world):
        return None
    plan = shortest_plan(world, condition, max_depth=max_plan)
    return None if plan is None else (world, plan)


def held_out_requests(files: Iterable[Path], kitchen: Domain) -> dict[str, str]:
    """Every request of the evaluation episode ``files``, compared ``normalized``, to "<file>: <episode id>"."""
    requests: dict[str, str] = {}
    for path in files:
        for episode in load_episodes(path, kitchen):
            requests.setdefault(normalized(episode.instruction), f"{path}: {episode.id}")
    return requests


def generate_examples(kitchen: Domain, count: int, seed: int, exclude: Iterable[str] = ()) -> Iterator[PlanExample]:
    """``count`` solvable examples of ``kitchen``'s domain drawn with ``seed``. A task whose goal holds
    already, that the oracle cannot solve within MAX_PLAN skills, or whose request is in ``exclude``
    (compared ``normalized``) is drawn again."""
    rng = random.Random(seed)
    writer = TaskWriter(kitchen, rng)
    excluded = {normalized(text) for text in exclude}
    produced = 0
    attempts = 0
    while produced < count:
        attempts += 1
        if attempts > 50 * count + 1000:
            raise ValueError(f"the domain {kitchen.config.world!r} gave {produced} solvable tasks in {attempts} draws")
        task = writer.write()
        if task is None or normalized(task.instruction) in excluded:
            continue
        solved = solve_task(kitchen, task.initial, task.goal, task.kind, MAX_PLAN)
        if solved is None:
            continue
        world, plan = solved
        steps = tuple(skill.text for skill in plan)
        yield PlanExample(
            f"gen-{task.kind}-{produced:05d}",
            task.kind,
            task.kind,
            task.instruction,
            describe_scene(world, unsaid=True),
            steps,
            task.initial,
            task.goal,
        )
        produced += 1

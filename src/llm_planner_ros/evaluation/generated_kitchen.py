"""Kitchens of any skill count for scaling benchmarks: SayCan's kitchen with a larger vocabulary.

``generated_kitchen(skills)`` keeps the SayCan kitchen's skill templates (domains/saycan_kitchen/skills.yaml:
find, pick up, put down per object; go to per place; bring it to you; done) and its 15 objects and
4 places, and adds objects ("green apple", "diet soda", ...) and places ("left shelf", ...) until the
vocabulary has exactly ``skills`` skills: 3 per object, 1 per place, plus the 2 fixed ones (51 for the
original kitchen). A fifth of the objects (at least 7) are placed in the scene, round robin over the
places, so most skills of a large vocabulary name objects the scene lacks, as on a robot whose skill
set covers more than one room. The prompt, the affordance model and the planner are the project's
own; only the vocabulary and the scene grow.
"""

from __future__ import annotations

import itertools
import math
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from llm_planner_ros.domain.config import Position, load_domain_config
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.skill_library import load_skill_library
from llm_planner_ros.domain.world import World
from llm_planner_ros.paths import default_domain_file

BASE_PLACES = ("close counter", "far counter", "table", "trash can")
FIXED_SKILLS = 2  # "bring it to you" and "done"
_ADJECTIVES = ("red", "green", "small", "large", "diet", "organic", "frozen", "fresh", "cold", "warm", "spicy", "sweet")
_NOUNS = (
    "apple", "banana", "orange", "lemon", "yogurt", "milk", "juice", "soda", "cookie", "cracker", "muffin",
    "sandwich", "salad", "cereal", "granola bar", "mug", "bowl", "plate", "cup", "napkin", "towel", "spoon",
    "fork", "candy bar", "popcorn", "pretzels", "iced tea", "coffee", "lemonade", "sparkling water",
)  # fmt: skip
_SIDES = ("left", "right", "upper", "lower", "back", "front", "corner", "middle")
_FURNITURE = ("shelf", "cabinet", "counter", "bench", "cart", "sink", "fridge", "pantry")


@dataclass(frozen=True)
class GeneratedKitchen:
    """A kitchen of ``skills`` skills, its start world and instructions naming its placed objects."""

    kitchen: Domain
    world: World
    instructions: tuple[str, ...]
    objects: int
    places: int
    placed: int


def vocabulary_sizes(skills: int) -> tuple[int, int]:
    """(objects, places) with 3 x objects + places + 2 == ``skills``; about one place per 26 skills,
    at least the original 4 and 15. ValueError below the original kitchen's 51 skills."""
    if skills < 51:
        raise ValueError(f"a generated kitchen has at least the original 51 skills, got {skills}")
    places = max(len(BASE_PLACES), round(skills / 26))
    while (skills - places - FIXED_SKILLS) % 3:
        places += 1
    return (skills - places - FIXED_SKILLS) // 3, places


def generated_kitchen(skills: int) -> GeneratedKitchen:
    """The kitchen with exactly ``skills`` skills (module docstring)."""
    object_count, place_count = vocabulary_sizes(skills)
    base = load_domain_config()
    labels = list(base.articles)
    extra = (f"{adjective} {noun}" for adjective, noun in itertools.product(_ADJECTIVES, _NOUNS))
    labels += [label for label in extra if label not in labels][: object_count - len(labels)]
    if len(labels) < object_count:
        raise ValueError(f"the generated vocabulary has {len(labels)} objects, fewer than the {object_count} asked")
    places = list(BASE_PLACES)
    extra_places = (f"{side} {item}" for item, side in itertools.product(_FURNITURE, _SIDES))
    places += [place for place in extra_places if place not in places][: place_count - len(BASE_PLACES)]
    locations = dict(base.locations)
    for index, place in enumerate(places[len(BASE_PLACES) :]):
        angle = 2 * math.pi * index / max(1, place_count - len(BASE_PLACES))
        locations[place] = Position(3.0 + 3.0 * math.cos(angle), 2.0 + 3.0 * math.sin(angle))
    articles = {label: base.articles.get(label, "an" if label[0] in "aeiou" else "a") for label in labels}
    placed = max(7, object_count // 5)
    shown = [*labels[:15:2], *labels[15:]][:placed]
    scene = {
        "robot": {"at": "close counter", "holding": None},
        "objects": [
            {"id": f"{label.replace(' ', '_')}_1", "label": label, "at": places[index % len(places)]}
            for index, label in enumerate(shown)
        ],
    }
    config = replace(base, locations=locations, articles=articles, default_scene=scene, source="generated kitchen")
    kitchen = Domain(config, load_skill_library(config, _skills_file(places)))
    world = kitchen.world()
    count = len(world.admissible_skills())
    if count != skills:
        raise AssertionError(f"the generated kitchen has {count} skills, not {skills}: the skill templates changed")
    return GeneratedKitchen(kitchen, world, _instructions(shown, places), object_count, place_count, len(shown))


def _skills_file(places: list[str]) -> Path:
    """domains/saycan_kitchen/skills.yaml with the generated places in its "go to the {location}" template."""
    data = yaml.safe_load(default_domain_file("skills.yaml").read_text(encoding="utf-8"))
    for template in data["skills"]:
        if template.get("locations") == list(BASE_PLACES):
            template["locations"] = places
    folder = Path(tempfile.mkdtemp(prefix="generated-kitchen-"))
    path = folder / "skills.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _instructions(shown: list[str], places: list[str]) -> tuple[str, ...]:
    """SayCan-style requests about the placed objects (the paper's Table 1 phrasings)."""
    first, second, third = shown[-1], shown[len(shown) // 2], shown[1]
    return (
        f"How would you bring me a {first}?",
        f"Throw away the {second}, please.",
        f"Move the {third} to the {places[-1]}.",
        f"Could you put the {first} on the table?",
        f"I am hungry, can you bring me the {second}?",
        f"Bring the {third} to the close counter.",
    )

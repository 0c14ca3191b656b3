"""Whole domains drawn at random: the training ground for models that plan in a domain they never saw.

``generate_domain(seed)`` writes a world and a skills file (docs/domains.md) from one of a few settings
(a home, a workplace, a lab, a workshop, a ward, a cafe): 4 to 6 of its places, 5 to 8 of its objects with
articles, synonyms and categories, the skills worded in one of several ways ("find a mug" or "look for
the mug", "pick up" or "grab", "go to" or "move to"), and some of the setting's extras: a door that
gates a place, devices to switch on and off, surfaces to wipe (with a sponge or cloth the domain then has;
at a named place or where the robot stands, ``{here}``), something made from an ingredient that is used
up. ``write_domain`` lays it out as a domain folder, with ``params.yaml`` (the planner's allow-list) and
an ``episodes.yaml`` of generated tasks (``training.domain_tasks``) solved by the oracle.

The same seed gives the same domain. Domains for training and for evaluation are told apart by seed
alone (``llm-planner domain generate``); the pools below were written for this generator, from no
evaluation set or user domain, and share no place or object name with the shipped office
(domains/office), so that the office measures planning in a domain no generated one resembles by name.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.planning.domain_tasks import PERSON, generate_examples

# label -> (article, synonyms, categories)
ObjectPool = dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]


@dataclass(frozen=True)
class Setting:
    """What one kind of place holds: its places, its objects, devices (name, the place it stands at) and
    what can be made there (product, ingredient, the place of the machine)."""

    places: tuple[str, ...]
    objects: ObjectPool
    devices: tuple[tuple[str, str], ...] = ()
    makes: tuple[tuple[str, str, str], ...] = ()


SETTINGS: dict[str, Setting] = {
    "home": Setting(
        ("kitchen counter", "dining table", "sofa", "bookshelf", "bedroom", "landing", "bathroom"),
        {
            "remote control": ("a", ("remote", "tv remote"), ("electronics",)),
            "book": ("a", ("novel",), ("reading",)),
            "glass": ("a", ("drinking glass",), ("tableware",)),
            "banana": ("a", (), ("food", "fruit")),
            "cookie": ("a", ("biscuit",), ("food", "snack")),
            "juice box": ("a", ("juice",), ("drink",)),
            "towel": ("a", (), ("cleaning supplies",)),
            "keys": ("some", ("house keys",), ()),
            "blanket": ("a", ("throw",), ()),
            "pillow": ("a", ("cushion",), ()),
        },
        (("lamp", "sofa"), ("television", "sofa"), ("dishwasher", "kitchen counter")),
        (("toast", "bread", "kitchen counter"),),
    ),
    "workplace": Setting(
        ("open-plan area", "copy room", "pantry", "boardroom", "reception", "storage room", "lobby"),
        {
            "laptop": ("a", ("notebook computer",), ("electronics",)),
            "folder": ("a", ("file folder",), ("paper",)),
            "pen": ("a", ("ballpoint",), ("writing tool",)),
            "envelope": ("an", (), ("paper",)),
            "headset": ("a", ("headphones",), ("electronics",)),
            "tea bag": ("a", (), ()),
            "granola bar": ("a", ("cereal bar",), ("food", "snack")),
            "soda can": ("a", ("can of soda",), ("drink",)),
            "scissors": ("some", (), ("craft supplies",)),
            "tape": ("some", ("sticky tape",), ("craft supplies",)),
        },
        (("photocopier", "copy room"), ("projector", "boardroom"), ("kettle", "pantry")),
        (("tea", "tea bag", "pantry"),),
    ),
    "lab": Setting(
        ("bench", "fume hood", "sink", "fridge", "shelf", "microscope station", "waste bin"),
        {
            "beaker": ("a", ("glass beaker",), ("glassware",)),
            "test tube": ("a", ("vial",), ("glassware",)),
            "pipette": ("a", (), ("instruments",)),
            "gloves": ("some", ("lab gloves",), ("safety gear",)),
            "goggles": ("some", ("safety glasses",), ("safety gear",)),
            "logbook": ("a", ("lab book",), ("paper",)),
            "sample box": ("a", ("specimen box",), ()),
            "canteen": ("a", ("water canteen",), ("drink",)),
            "paper towel": ("a", ("tissue",), ("cleaning supplies",)),
        },
        (("centrifuge", "bench"), ("hot plate", "fume hood")),
        (("buffer solution", "powder sachet", "bench"),),
    ),
    "workshop": Setting(
        ("workbench", "tool wall", "parts shelf", "loading door", "paint booth", "scrap bin"),
        {
            "hammer": ("a", (), ("tools",)),
            "screwdriver": ("a", (), ("tools",)),
            "wrench": ("a", ("spanner",), ("tools",)),
            "tape measure": ("a", ("measuring tape",), ("tools",)),
            "box of screws": ("a", ("screws",), ("parts",)),
            "hinge": ("a", (), ("parts",)),
            "safety glasses": ("some", ("goggles",), ("safety gear",)),
            "rag": ("a", ("cloth",), ("cleaning supplies",)),
            "thermos": ("a", ("flask",), ("drink",)),
        },
        (("drill press", "workbench"), ("extractor fan", "paint booth")),
        (("bracket", "steel strip", "workbench"),),
    ),
    "ward": Setting(
        ("nurse station", "bedside table", "supply cabinet", "sink", "ward entrance", "waiting area"),
        {
            "thermometer": ("a", (), ("instruments",)),
            "blood pressure cuff": ("a", ("cuff",), ("instruments",)),
            "water jug": ("a", ("jug",), ("drink",)),
            "tumbler": ("a", ("plastic tumbler",), ("tableware",)),
            "bandage": ("a", ("dressing",), ("supplies",)),
            "clipboard": ("a", ("chart",), ("paper",)),
            "tissues": ("some", ("box of tissues",), ("supplies",)),
            "disinfectant wipe": ("a", ("wipe",), ("cleaning supplies",)),
            "magazine": ("a", (), ("reading",)),
        },
        (("call light", "bedside table"), ("monitor", "nurse station")),
        (("warm compress", "cold pack", "nurse station"),),
    ),
    "cafe": Setting(
        ("counter", "espresso bar", "table by the window", "pastry case", "storeroom", "dish station"),
        {
            "tray": ("a", (), ("tableware",)),
            "saucer": ("a", (), ("tableware",)),
            "croissant": ("a", (), ("food", "pastry")),
            "muffin": ("a", (), ("food", "pastry")),
            "milk carton": ("a", ("milk",), ("drink",)),
            "napkins": ("some", ("serviettes",), ("supplies",)),
            "menu": ("a", (), ("paper",)),
            "dishcloth": ("a", ("dish towel",), ("cleaning supplies",)),
            "coffee beans": ("some", ("beans",), ()),
        },
        (("grinder", "espresso bar"), ("dishwasher", "dish station")),
        (("espresso", "coffee beans", "espresso bar"),),
    ),
}
# Words for categories, shared by every setting that has them.
CATEGORY_WORDS: dict[str, tuple[str, ...]] = {
    "food": ("something to eat", "a bite to eat"),
    "drink": ("something to drink", "a beverage"),
    "cleaning supplies": ("something to clean with",),
    "writing tool": ("something to write with",),
    "paper": ("something to write on",),
    "reading": ("something to read",),
    "tools": ("a tool",),
    "safety gear": ("protective gear",),
}
# Categories one asks for one of ("a drink"); the others are plural or mass nouns ("some tools").
COUNTABLE_CATEGORIES = frozenset({"drink", "snack", "pastry", "writing tool"})
# Articles of what the settings make and use up, where not "a".
MADE_ARTICLES = {"toast": "some", "bread": "some", "tea": "some", "buffer solution": "some", "espresso": "an"}
# Ways of wording the common skills; each domain takes one of each.
FIND = ("find {article} {object}", "look for the {object}", "locate {article} {object}", "search for the {object}")
PICK = ("pick up the {object}", "grab the {object}", "take the {object}", "lift the {object}")
PUT = ("put down the {object}", "place the {object}", "set down the {object}", "drop off the {object}")
GO = ("go to the {location}", "move to the {location}", "navigate to the {location}", "head to the {location}")
BRING = ("bring it to you", "bring it to the person", "deliver it to you", "come back to you")
SWITCH = (("switch on the {d}", "switch off the {d}"), ("turn on the {d}", "turn off the {d}"))
WIPE = ("wipe the {location}", "clean the {location}")
MAKE = ("make {article} {product}", "prepare {article} {product}")
MIN_DISTANCE = 2.5  # metres between two places (the default physical layout fits then)


@dataclass(frozen=True)
class GeneratedDomain:
    """A generated domain's world and skills files (YAML-ready mappings) and the planner's allow-list."""

    name: str
    world: dict[str, Any]
    skills: dict[str, Any]
    allowed: tuple[str, ...]


def generate_domain(seed: int) -> GeneratedDomain:
    """The domain of ``seed``: a setting, its places and objects, skills worded one way, some extras."""
    rng = random.Random(seed)
    setting = SETTINGS[rng.choice(sorted(SETTINGS))]
    places = rng.sample(setting.places, k=rng.randint(4, min(6, len(setting.places))))
    labels = rng.sample(sorted(setting.objects), k=rng.randint(5, min(8, len(setting.objects))))
    objects = {label: setting.objects[label] for label in labels}
    wording = {key: rng.choice(options) for key, options in (("find", FIND), ("pick", PICK), ("put", PUT))}
    go, bring = rng.choice(GO), rng.choice(BRING)
    skills: list[dict[str, Any]] = [
        _skill(
            "find", wording["find"], "mobile_base", for_each="object", pre=["object_placed"], eff=["robot_to_object"]
        ),
        _skill(
            "pick",
            wording["pick"],
            "manipulator",
            for_each="object",
            pre=["gripper_empty", "object_within_reach"],
            eff=["grasp_object"],
        ),
        _skill(
            "place", wording["put"], "manipulator", for_each="object", pre=["holding_object"], eff=["put_down_object"]
        ),
    ]
    facts: dict[str, Any] = {}
    families = ["find", "pick", "place", "goto", "terminate"]
    open_places = list(places)
    if rng.random() < 0.4 and len(places) >= 4:
        # A door in front of the last place, opened from the place before it.
        gated, door_at = places[-1], places[-2]
        open_places.remove(gated)
        facts["door_open"] = {}
        families.append("door")
        skills.append(
            _skill(
                "door",
                "open the door",
                "manipulator",
                pre=[{"robot_at": door_at}, {"holding": None}, {"not": {"fact": "door_open"}}],
                eff=[{"set": "door_open"}],
                requests=[f"open the {gated} door"],
            )
        )
        skills.append(
            _skill(
                "goto",
                go,
                "mobile_base",
                for_each="location",
                locations=[gated],
                pre=[{"fact": "door_open"}],
                eff=["robot_to_location"],
            )
        )
    skills.append(
        _skill("goto", go, "mobile_base", for_each="location", locations=open_places, eff=["robot_to_location"])
    )
    skills.append(
        _skill("goto", bring, "mobile_base", for_each="location", locations=[PERSON], eff=["robot_to_location"])
    )
    switch_on, switch_off = rng.choice(SWITCH)
    devices = [device for device in setting.devices if device[1] in places]
    for device, at in rng.sample(devices, k=min(len(devices), rng.randint(0, 2))):
        fact = device.replace(" ", "_") + "_on"
        facts[fact] = {}
        if "switch" not in families:
            families.append("switch")
        for text, value in ((switch_on, True), (switch_off, False)):
            condition = {"fact": fact} if not value else {"not": {"fact": fact}}
            skills.append(
                _skill(
                    "switch",
                    text.format(d=device),
                    "manipulator",
                    pre=[{"robot_at": at}, condition],
                    eff=[{"set" if value else "clear": fact}],
                )
            )
    cleaner = next((label for label, spec in setting.objects.items() if "cleaning supplies" in spec[2]), None)
    if cleaner is not None and rng.random() < 0.5:
        objects.setdefault(cleaner, setting.objects[cleaner])
        surfaces = rng.sample(open_places, k=min(3, len(open_places)))
        facts["clean"] = {"over": surfaces}
        families.append("wipe")
        if rng.random() < 0.5:
            skills.append(
                _skill(
                    "wipe",
                    "wipe the surface here",
                    "manipulator",
                    pre=[{"holding": cleaner}, {"not": {"fact": "clean({here})"}}],
                    eff=[{"set": "clean({here})"}],
                    requests=["wipe this surface", "clean up here"],
                )
            )
        else:
            skills.append(
                _skill(
                    "wipe",
                    rng.choice(WIPE),
                    "manipulator",
                    for_each="location",
                    locations=surfaces,
                    pre=[{"robot_at": "{location}"}, {"holding": cleaner}, {"not": {"fact": "clean({location})"}}],
                    eff=[{"set": "clean({location})"}],
                )
            )
    makes = [make for make in setting.makes if make[2] in places]
    if makes and rng.random() < 0.4:
        product, ingredient, at = rng.choice(makes)
        for label in (ingredient, product):
            objects.setdefault(label, setting.objects.get(label, (MADE_ARTICLES.get(label, "a"), (), ())))
        families.append("make")
        text = rng.choice(MAKE).format(article=objects[product][0], product=product)
        skills.append(
            _skill(
                "make",
                text,
                "manipulator",
                pre=[{"robot_at": at}, {"holding": ingredient}],
                eff=[{"consume": ingredient}, {"create": {"label": product, "at": "robot"}}],
                requests=[f"{text.split()[0]} me {objects[product][0]} {product}"],
            )
        )
    skills.append({"family": "terminate", "text": "done", "executor": None})
    world = _world(f"gen_{seed:04d}", places, objects, facts, rng)
    allowed = tuple(dict.fromkeys(_pattern(skill["text"]) for skill in skills))
    return GeneratedDomain(
        world["world"],
        world,
        {"families": families, "executors": ["manipulator", "mobile_base"], "skills": skills},
        allowed,
    )


def write_domain(domain: GeneratedDomain, folder: Path, episodes: int, seed: int) -> Domain:
    """``domain`` as a domain folder at ``folder`` with ``episodes`` oracle-solved tasks drawn with ``seed``
    in its ``episodes.yaml``; the loaded domain (the files are checked as any folder's)."""
    folder.mkdir(parents=True, exist_ok=True)
    header = f"# Generated by `llm-planner domain generate` ({domain.name}; training.domain_generator).\n"
    (folder / "world.yaml").write_text(header + yaml.safe_dump(domain.world, sort_keys=False))
    (folder / "skills.yaml").write_text(header + yaml.safe_dump(domain.skills, sort_keys=False))
    params = {"planner": {"ros__parameters": {"allowed_skills": list(domain.allowed)}}}
    (folder / "params.yaml").write_text(header + yaml.safe_dump(params, sort_keys=False))
    loaded = load_domain(folder)
    tasks = [
        {
            "id": f"{domain.name}-{index:03d}",
            "family": example.kind,
            "instruction": example.instruction,
            "initial": example.initial,
            "goal": example.goal,
            "max_steps": max(8, 2 * len(example.steps)),
        }
        for index, example in enumerate(generate_examples(loaded, episodes, seed))
    ]
    (folder / "episodes.yaml").write_text(
        header + yaml.safe_dump({"world": domain.name, "episodes": tasks}, sort_keys=False)
    )
    load_episodes(folder / "episodes.yaml", loaded)
    return loaded


def _skill(
    family: str,
    text: str,
    executor: str,
    for_each: str | None = None,
    locations: list[str] | None = None,
    pre: list[Any] | None = None,
    eff: list[Any] | None = None,
    requests: list[str] | None = None,
) -> dict[str, Any]:
    skill: dict[str, Any] = {"family": family, "text": text, "executor": executor}
    if for_each is not None:
        skill["for_each"] = for_each
    if locations is not None:
        skill["locations"] = locations
    for key, value in (("preconditions", pre), ("effects", eff), ("requests", requests)):
        if value:
            skill[key] = value
    return skill


def _world(
    name: str, places: list[str], objects: ObjectPool, facts: dict[str, Any], rng: random.Random
) -> dict[str, Any]:
    points: dict[str, tuple[float, float]] = {}
    for place in [*places, PERSON]:
        while True:
            point = (round(rng.uniform(0.0, 12.0), 1), round(rng.uniform(0.0, 12.0), 1))
            if all(math.dist(point, other) >= MIN_DISTANCE for other in points.values()):
                points[place] = point
                break
    categories = sorted({category for _, _, tags in objects.values() for category in tags})
    world: dict[str, Any] = {
        "world": name,
        "locations": {place: {"x": x, "y": y} for place, (x, y) in points.items()},
        "objects": {
            label: {
                "article": article,
                **({"synonyms": list(synonyms)} if synonyms else {}),
                **({"categories": list(tags)} if tags else {}),
            }
            for label, (article, synonyms, tags) in objects.items()
        },
    }
    if categories:
        world["categories"] = {
            category: {
                "article": "a" if category in COUNTABLE_CATEGORIES else "some",
                **({"synonyms": list(CATEGORY_WORDS[category])} if category in CATEGORY_WORDS else {}),
            }
            for category in categories
        }
    if facts:
        world["facts"] = facts
    world["default_scene"] = {"robot": {"at": places[0], "holding": None}, "objects": []}
    return world


def _pattern(text: str) -> str:
    """The allow-list pattern of a skill text: its words up to the first placeholder, then ``*``."""
    head = text.split("{", 1)[0]
    return f"{head}*" if "{" in text else text

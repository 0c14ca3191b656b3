"""What a plan program may name: the robot's skills as functions, and the scene's objects and locations.

The functions are derived from the skill texts of the scene's vocabulary (the skill library): the skill's
argument is cut out of its text and the remaining words, articles dropped, make the name. "pick up the
coke" becomes ``pick_up('coke')``, "go to the far counter" ``go_to('far counter')``, "put the coke in
the drawer" ``put_in_drawer('coke')``; a skill whose text does not contain its argument ("bring it to
you") or has none ("done") becomes a function without parameters (``bring_it_to_you()``, ``done()``).
A new skill template in domains/saycan_kitchen/skills.yaml therefore needs no change here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

OBJECT = "obj"
LOCATION = "location"
_ARTICLES = frozenset({"a", "an", "the"})


class VocabularyError(ValueError):
    """Two skills map to one function name with different parameters; the skill texts must be changed."""


@dataclass(frozen=True)
class SkillFunction:
    """One function of the program's ``from actions import ...`` line.

    ``parameter`` is OBJECT, LOCATION or None (no argument); ``skills`` maps each accepted argument
    (None for a function without parameters) to the skill a call dispatches.
    """

    name: str
    parameter: str | None
    skills: Mapping[str | None, Skill]

    def signature(self) -> str:
        """The import-line form of the paper's prompt (Fig. 2): ``find <obj>``, ``done``."""
        return self.name if self.parameter is None else f"{self.name} <{self.parameter}>"


@dataclass(frozen=True)
class Vocabulary:
    """Skill functions plus the names of the scene (object labels, and the places objects and robot can be).

    A program is validated against one vocabulary: the scene it was written for. ``checks``: whether a
    program may assert conditions, which the checkers decide on a kitchen world state only.
    """

    functions: Mapping[str, SkillFunction]
    objects: tuple[str, ...]
    locations: tuple[str, ...]
    checks: bool = True

    @classmethod
    def of_scene(cls, skills: Sequence[Skill], world: object, objects: Iterable[str]) -> Vocabulary:
        """The vocabulary of ``skills`` (the scene's admissible skills) with the scene's objects and places.
        A state other than a kitchen ``World`` (VirtualHome's scene graph) gives every argument as an
        object and no asserts: the program is a plain sequence of calls."""
        if not isinstance(world, World):
            names = tuple(dict.fromkeys(objects))
            return cls(skill_functions(skills, ()), names, (), checks=False)
        locations = world.places()
        drawer = world.kitchen.config.drawer
        if world.has_drawer and drawer is not None:
            locations = (*locations, drawer.contents_at)
        return cls(skill_functions(skills, locations), tuple(dict.fromkeys(objects)), tuple(locations))

    def import_line(self) -> str:
        return "from actions import " + ", ".join(function.signature() for function in self.functions.values())

    def names(self, kind: str) -> tuple[str, ...]:
        return self.objects if kind == OBJECT else self.locations


def skill_functions(skills: Sequence[Skill], locations: Sequence[str]) -> dict[str, SkillFunction]:
    """Group skills into functions by derived name, in the order the skills come; VocabularyError on a clash."""
    grouped: dict[str, tuple[str | None, dict[str | None, Skill]]] = {}
    for skill in skills:
        name, argument = _name_and_argument(skill)
        parameter = None if argument is None else LOCATION if argument in locations else OBJECT
        known_parameter, by_argument = grouped.setdefault(name, (parameter, {}))
        if known_parameter != parameter:
            raise VocabularyError(
                f"skills {next(iter(by_argument.values())).text!r} and {skill.text!r} both become the function "
                f"{name}(), once with parameter {known_parameter} and once with {parameter}; give them different "
                "verbs in the skills file"
            )
        if argument in by_argument:
            raise VocabularyError(
                f"skills {by_argument[argument].text!r} and {skill.text!r} both become the call "
                f"{name}({'' if argument is None else repr(argument)}); "
                "change one of their texts in the skills file"
            )
        by_argument[argument] = skill
    return {name: SkillFunction(name, parameter, by_argument) for name, (parameter, by_argument) in grouped.items()}


def _name_and_argument(skill: Skill) -> tuple[str, str | None]:
    argument = skill.argument
    text = skill.text.lower()
    if argument is not None and (match := re.search(rf"\b{re.escape(argument.lower())}\b", text)):
        text = f"{text[: match.start()]} {text[match.end() :]}"
    else:
        argument = None
    words = [word for word in re.findall(r"[a-z0-9]+", text) if word not in _ARTICLES]
    if not words or words[0][0].isdigit():
        raise VocabularyError(f"skill {skill.text!r} gives no usable function name; its text needs a verb")
    return "_".join(words), argument


def scene_vocabulary(kitchen: Domain, example: PlanExample) -> Vocabulary:
    """The vocabulary the planner builds for the example's initial scene."""
    return environment_vocabulary(SimulatedEnvironment(kitchen.world(example.initial)))


def environment_vocabulary(env: SimulatedEnvironment, world: World | None = None) -> Vocabulary:
    """The vocabulary the planner builds in ``env`` (for ``world``, default its present state)."""
    return Vocabulary.of_scene(env.admissible_skills(), world or env.snapshot(), env.observed_objects())


def call_texts(vocabulary: Vocabulary) -> dict[str, str]:
    """Skill text -> the program call that dispatches it, the inverse of the vocabulary's functions."""
    return {
        skill.text: f"{function.name}({'' if argument is None else repr(argument)})"
        for function in vocabulary.functions.values()
        for argument, skill in function.skills.items()
    }

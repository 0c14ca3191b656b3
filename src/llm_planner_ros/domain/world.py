"""The state of a kitchen world and the rules by which skills change it.

``World`` is mutable: ``apply(skill)`` checks the skill's preconditions and applies its effects
(named in domains/saycan_kitchen/skills.yaml and implemented in ``PRECONDITIONS`` / ``EFFECTS`` below, or
written there as conditions and fact changes, llm_planner_ros.domain.facts, and as objects made, used up
or put somewhere, llm_planner_ros.domain.skill);
``copy()`` gives an independent world for look-ahead. Skills succeed or raise; injected failures are
the simulator's business (llm_planner_ros.domain.failures), not the world's.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from llm_planner_ros.domain.config import HELD, DomainConfig, Position
from llm_planner_ros.domain.facts import HERE, at_place
from llm_planner_ros.domain.scene import ObjectInstance, Scene, scene_from_initial
from llm_planner_ros.domain.skill import (
    AT_ROBOT,
    IN_GRIPPER,
    Create,
    FactChange,
    PutHeld,
    Skill,
    SkillRule,
    WrittenEffect,
)


class SkillRules(Protocol):
    """The skill library as a world reads it (``skill_library.SkillLibrary``)."""

    def skills(self, with_drawer: bool = False) -> tuple[Skill, ...]: ...

    def find(self, text: str) -> SkillRule | None: ...


class KitchenFacts(Protocol):
    """What a world reads of its kitchen (``definition.Domain``): the static facts and the skill library.

    A protocol rather than ``Domain`` itself, because the kitchen builds its worlds and its skill library
    checks rule names against this module: naming ``Domain`` here would close an import cycle.
    """

    @property
    def config(self) -> DomainConfig: ...

    @property
    def library(self) -> SkillRules: ...


# Where a task leaves objects for good: the person ("bring it to you") and the trash can (SayCan kitchen).
PUT_AWAY_PLACES = ("user", "trash can")


class SkillError(ValueError):
    """A skill that cannot be applied to this world; the message says why and what would make it work."""


class UnknownSkillError(SkillError):
    """The skill is not in this scene's vocabulary (unknown text, a drawer skill without a drawer, or a
    Skill whose family/arguments/executor disagree with the skill library)."""


class PreconditionError(SkillError):
    """The skill exists but the world does not allow it now (e.g. picking with a full gripper)."""

    def __init__(self, skill: Skill, precondition: str, reason: str) -> None:
        self.skill = skill
        self.precondition = precondition
        self.reason = reason
        super().__init__(f"cannot {skill.text!r}: {reason} (precondition {precondition})")


class World:
    """Where the robot is, what it holds, where each object instance is, the drawer, visited places, and
    which of the world file's declared facts hold.

    Built from a ``Scene`` (an episode's ``initial`` block) on a ``Domain`` (static config and skill
    library). Places are the kitchen's locations plus, in drawer scenes, the drawer's location.
    """

    def __init__(self, kitchen: KitchenFacts, scene: Scene, visited: Iterable[str] = ()) -> None:
        self.kitchen = kitchen
        self._robot_at = scene.robot_at
        # How an object lies is physical (llm_planner_ros.domain.scene): the symbolic state has only where it
        # is.
        self._objects: dict[str, ObjectInstance] = {
            obj.id: ObjectInstance(obj.id, obj.label, obj.at) for obj in scene.objects
        }
        self._drawer_open = scene.drawer_open
        self._facts = set(scene.facts or ())
        self._visited: list[str] = []
        for place in (*visited, scene.robot_at):
            self._visit(place)

    @classmethod
    def from_initial(cls, kitchen: KitchenFacts, initial: Mapping[str, Any], source: str = "initial block") -> World:
        """A world from an episode ``initial`` block (validated; SceneError lists the problems)."""
        return cls(kitchen, scene_from_initial(initial, kitchen.config, source))

    def copy(self) -> World:
        return World(self.kitchen, self.scene(), self._visited)

    # ----- state -------------------------------------------------------------------------------------
    @property
    def robot_at(self) -> str:
        return self._robot_at

    @property
    def robot_position(self) -> Position:
        return self.kitchen.config.position(self._robot_at)

    @property
    def holding(self) -> ObjectInstance | None:
        return next((obj for obj in self._objects.values() if obj.held), None)

    @property
    def objects(self) -> tuple[ObjectInstance, ...]:
        return tuple(self._objects.values())

    @property
    def has_drawer(self) -> bool:
        return self._drawer_open is not None

    @property
    def drawer_open(self) -> bool | None:
        """True/False for the drawer's state; None when the scene has no drawer."""
        return self._drawer_open

    @property
    def facts(self) -> frozenset[str]:
        """The atoms of the declared facts that hold now (``door_open``, ``table_clean(table)``)."""
        return frozenset(self._facts)

    @property
    def visited(self) -> tuple[str, ...]:
        """Places the robot has been at, in order of first visit (the start place first)."""
        return tuple(self._visited)

    def places(self) -> tuple[str, ...]:
        """Where the robot can be in this scene."""
        return self.kitchen.config.places(self.has_drawer)

    def instances(self, label: str) -> tuple[ObjectInstance, ...]:
        return tuple(obj for obj in self._objects.values() if obj.label == label)

    def placed_at(self, place: str) -> tuple[ObjectInstance, ...]:
        """Objects lying at a place (not held); ``place`` may be the drawer's contents name."""
        return tuple(obj for obj in self._objects.values() if obj.at == place)

    def reachable(self, label: str) -> tuple[ObjectInstance, ...]:
        """Instances of ``label`` the arm can grasp from where the robot stands (open drawer included)."""
        return tuple(obj for obj in self.instances(label) if obj.at in self._reachable_places())

    def place_of(self, obj: ObjectInstance) -> str:
        """Where the robot must stand to reach an object (the drawer's location for its contents)."""
        drawer = self.kitchen.config.drawer
        if obj.held:
            return self._robot_at
        if drawer is not None and obj.at == drawer.contents_at:
            return drawer.location
        return obj.at

    def nearest_place_of(self, label: str) -> str | None:
        """The closest place where an instance of ``label`` lies (not held), or None if there is none.

        Instances already put away (handed to the user, thrown in the trash can, stored in the drawer)
        count only when no other instance exists: after one of two cokes went into the trash, "find a
        coke" means the other one, not fishing the first back out. Ties go to the place listed first in
        the world config, so "find" is deterministic.
        """
        order = {place: index for index, place in enumerate(self.places())}
        lying = [obj for obj in self.instances(label) if not obj.held]
        available = [obj for obj in lying if not self._put_away(obj)] or lying
        candidates = {self.place_of(obj) for obj in available}
        if not candidates:
            return None
        here = self.robot_position
        return min(candidates, key=lambda p: (self.kitchen.config.position(p).distance_to(here), order[p]))

    def _put_away(self, obj: ObjectInstance) -> bool:
        drawer = self.kitchen.config.drawer
        return obj.at in PUT_AWAY_PLACES or (drawer is not None and obj.at == drawer.contents_at)

    def scene(self) -> Scene:
        facts = self.facts if self.kitchen.config.facts else None
        return Scene(self._robot_at, self.objects, self._drawer_open, facts=facts)

    def to_initial(self) -> dict[str, Any]:
        """The state as an episode ``initial`` block (visited places are not part of that format)."""
        return self.scene().to_initial()

    def summary(self) -> str:
        """Multi-line text of the whole state, for logs, prompts and the robot-state topic."""
        held = self.holding
        lines = [f"robot: at {self._robot_at}, holding {_named(held) if held else 'nothing'}"]
        for place in self.places():
            lines.append(f"{place}: {_listed(self.placed_at(place))}")
        drawer = self.kitchen.config.drawer
        if drawer is not None and self.has_drawer:
            state = "open" if self._drawer_open else "closed"
            lines.append(f"{drawer.contents_at} ({state}): {_listed(self.placed_at(drawer.contents_at))}")
        if self.kitchen.config.facts:
            lines.append(f"facts: {', '.join(sorted(self._facts)) or 'none hold'}")
        lines.append(f"visited: {', '.join(self._visited)}")
        return "\n".join(lines)

    # ----- skills ------------------------------------------------------------------------------------
    def admissible_skills(self) -> tuple[Skill, ...]:
        """Every skill of this scene's vocabulary (the 51 kitchen skills, plus drawer skills with a drawer),
        whether or not its preconditions hold now."""
        return self.kitchen.library.skills(with_drawer=self.has_drawer)

    def skill(self, text: str) -> Skill:
        """The admissible skill with this text; UnknownSkillError (with near matches) otherwise."""
        return self.rule(text).skill

    def rule(self, skill: Skill | str) -> SkillRule:
        """The library rule of an admissible skill; UnknownSkillError says why a skill is not one."""
        text = skill if isinstance(skill, str) else skill.text
        rule = self.kitchen.library.find(text)
        if rule is None:
            texts = [s.text for s in self.admissible_skills()]
            near = difflib.get_close_matches(text, texts, n=3)
            hint = f"; did you mean {', '.join(repr(t) for t in near)}?" if near else ""
            raise UnknownSkillError(f"unknown skill {text!r}{hint}")
        if rule.requires_drawer and not self.has_drawer:
            raise UnknownSkillError(
                f"{text!r} needs the drawer, and this scene has none "
                "(an episode adds it with `drawer: {open: false}`)"
            )
        if not isinstance(skill, str) and skill != rule.skill:
            raise UnknownSkillError(f"skill {skill} disagrees with the skill library's {rule.skill}")
        return rule

    def why_not(self, skill: Skill | str) -> str | None:
        """None when the skill can be applied now, else the reason it cannot."""
        try:
            self.check(skill)
        except SkillError as error:
            return str(error)
        return None

    def can_apply(self, skill: Skill | str) -> bool:
        return self.why_not(skill) is None

    def check(self, skill: Skill | str) -> SkillRule:
        """The skill's rule if it is admissible, its preconditions hold and its written effects can happen
        (an object to use up, a gripper to make something in); raises SkillError otherwise."""
        rule = self.rule(skill)
        for precondition in rule.preconditions:
            if isinstance(precondition, str):
                reason = PRECONDITIONS[precondition](self, rule.skill.argument)
            else:
                reason = precondition.unmet(self)
            if reason is not None:
                raise PreconditionError(rule.skill, str(precondition), reason)
        # Written effects happen in order (a pod used up frees the gripper for the coffee made from it),
        # so each is checked after the ones before it, on a copy when one changes objects.
        trial = self.copy() if rule.changes_objects else self
        for effect in rule.effects:
            if isinstance(effect, str):
                continue
            reason = trial._unmet_effect(effect)
            if reason is not None:
                raise PreconditionError(rule.skill, str(effect), reason)
            if trial is not self:
                trial._apply_written(effect)
        return rule

    def apply(self, skill: Skill | str) -> None:
        """Apply the skill's effects; raises UnknownSkillError or PreconditionError and changes nothing then."""
        rule = self.check(skill)
        for effect in rule.effects:
            if isinstance(effect, str):
                EFFECTS[effect](self, rule.skill.argument)
            else:
                self._apply_written(effect)

    # ----- written effects: what each needs, and what it does -------------------------------------------
    def _unmet_effect(self, effect: WrittenEffect) -> str | None:
        held = self.holding
        if isinstance(effect, FactChange):
            if HERE not in effect.atom or self.kitchen.config.fact_names().covers(effect.atom, self._robot_at):
                return None
            return f"{at_place(effect.atom, self._robot_at)} is no fact of this world: not at the {self._robot_at}"
        if isinstance(effect, PutHeld):
            return "the gripper is empty" if held is None else None
        if isinstance(effect, Create):
            if effect.at == IN_GRIPPER and held is not None:
                return f"the gripper already holds {_named(held)}; put it down first"
            return None
        if (held is not None and held.label == effect.label) or self.reachable(effect.label):
            return None
        return f"no {effect.label} in the gripper or within reach at the {self._robot_at}"

    def _apply_written(self, effect: WrittenEffect) -> None:
        held = self.holding
        if isinstance(effect, FactChange):
            self._set_fact(at_place(effect.atom, self._robot_at), effect.value)
        elif isinstance(effect, PutHeld):
            assert held is not None
            self._put(held, effect.place)
        elif isinstance(effect, Create):
            at = {IN_GRIPPER: HELD, AT_ROBOT: self._robot_at}.get(effect.at, effect.at)
            self._put(ObjectInstance(self._new_id(effect.label), effect.label, at), at)
        else:
            used = held if held is not None and held.label == effect.label else None
            used = used or min(self.reachable(effect.label), key=lambda o: o.id)
            del self._objects[used.id]

    def _new_id(self, label: str) -> str:
        """An id no object of the scene has: ``coffee_1``, ``coffee_2``, ..."""
        stem = label.replace(" ", "_")
        return next(f"{stem}_{n}" for n in itertools.count(1) if f"{stem}_{n}" not in self._objects)

    # ----- preconditions: None when met, else why not --------------------------------------------------
    def _unmet_gripper_empty(self, _argument: str | None) -> str | None:
        held = self.holding
        return None if held is None else f"the gripper already holds {_named(held)}; put it down first"

    def _unmet_holding_object(self, label: str | None) -> str | None:
        held = self.holding
        if held is None:
            return "the gripper is empty"
        return None if held.label == label else f"the gripper holds {_named(held)}, not {self._with_article(label)}"

    def _unmet_object_placed(self, label: str | None) -> str | None:
        instances = self.instances(str(label))
        if any(not obj.held for obj in instances):
            return None
        return f"the only {label} is in the gripper" if instances else f"there is no {label} in the scene"

    def _unmet_object_within_reach(self, label: str | None) -> str | None:
        if self.reachable(str(label)):
            return None
        elsewhere = sorted({self.place_of(obj) for obj in self.instances(str(label)) if not obj.held})
        drawer = self.kitchen.config.drawer
        if (
            drawer is not None
            and self._robot_at == drawer.location
            and not self._drawer_open
            and any(obj.at == drawer.contents_at for obj in self.instances(str(label)))
        ):
            return f"the {label} is in the closed drawer; open the drawer first"
        where = f"; there is one at: {', '.join(elsewhere)}" if elsewhere else f"; there is no {label} to pick"
        return f"no {label} within reach at the {self._robot_at}{where}"

    def _unmet_at_drawer(self, _argument: str | None) -> str | None:
        drawer = self.kitchen.config.drawer
        assert drawer is not None, "drawer skills exist only in drawer scenes"
        if self._robot_at == drawer.location:
            return None
        return f"the robot is at the {self._robot_at}, not at the {drawer.location}"

    def _unmet_drawer_open(self, _argument: str | None) -> str | None:
        return None if self._drawer_open else "the drawer is closed"

    def _unmet_drawer_closed(self, _argument: str | None) -> str | None:
        return "the drawer is already open" if self._drawer_open else None

    # ----- effects ---------------------------------------------------------------------------------------
    def _move_robot(self, place: str | None) -> None:
        assert place is not None
        self._robot_at = place
        self._visit(place)

    def _move_to_object(self, label: str | None) -> None:
        self._move_robot(self.nearest_place_of(str(label)))

    def _grasp(self, label: str | None) -> None:
        # Lowest id first, so which of several instances gets picked is reproducible.
        obj = min(self.reachable(str(label)), key=lambda o: o.id)
        self._put(obj, HELD)

    def _put_down(self, _label: str | None) -> None:
        held = self.holding
        assert held is not None
        self._put(held, self._robot_at)

    def _put_in_drawer(self, _label: str | None) -> None:
        held, drawer = self.holding, self.kitchen.config.drawer
        assert held is not None and drawer is not None
        self._put(held, drawer.contents_at)

    def _set_fact(self, atom: str, value: bool) -> None:
        if value:
            self._facts.add(atom)
        else:
            self._facts.discard(atom)

    def _set_drawer(self, is_open: bool) -> None:
        self._drawer_open = is_open

    def _put(self, obj: ObjectInstance, at: str) -> None:
        self._objects[obj.id] = ObjectInstance(obj.id, obj.label, at)

    def _reachable_places(self) -> set[str]:
        drawer = self.kitchen.config.drawer
        places = {self._robot_at}
        if drawer is not None and self._drawer_open and self._robot_at == drawer.location:
            places.add(drawer.contents_at)
        return places

    def _visit(self, place: str) -> None:
        if place not in self._visited:
            self._visited.append(place)

    def _with_article(self, label: str | None) -> str:
        return f"{self.kitchen.config.articles.get(str(label), 'a')} {label}"


# Names usable in domains/saycan_kitchen/skills.yaml. A precondition maps (world, argument) to None when met or
# to the reason it is not; an effect changes the world.
PRECONDITIONS: dict[str, Callable[[World, str | None], str | None]] = {
    "gripper_empty": World._unmet_gripper_empty,
    "holding_object": World._unmet_holding_object,
    "object_placed": World._unmet_object_placed,
    "object_within_reach": World._unmet_object_within_reach,
    "at_drawer": World._unmet_at_drawer,
    "drawer_open": World._unmet_drawer_open,
    "drawer_closed": World._unmet_drawer_closed,
}
# The built-ins that read the skill's argument, and what it must be: "holding_object" on a skill of a
# place would test holding the place.
BUILT_IN_ARGUMENT = {
    "holding_object": "object",
    "object_placed": "object",
    "object_within_reach": "object",
    "robot_to_object": "object",
    "grasp_object": "object",
    "robot_to_location": "location",
}
EFFECTS: dict[str, Callable[[World, str | None], None]] = {
    "robot_to_location": World._move_robot,
    "robot_to_object": World._move_to_object,
    "grasp_object": World._grasp,
    "put_down_object": World._put_down,
    "put_object_in_drawer": World._put_in_drawer,
    "open_drawer": lambda world, _argument: world._set_drawer(True),
    "close_drawer": lambda world, _argument: world._set_drawer(False),
}


def _named(obj: ObjectInstance) -> str:
    return f"{obj.label} ({obj.id})"


def _listed(objects: Iterable[ObjectInstance]) -> str:
    return ", ".join(_named(obj) for obj in objects) or "nothing"

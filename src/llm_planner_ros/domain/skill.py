"""A robot skill as the planner sees and dispatches it, and its rule in the skill library."""

from __future__ import annotations

from dataclasses import dataclass

from llm_planner_ros.domain.conditions import Condition

# The SayCan kitchen's skill families (the ``family`` field of llm_planner_interfaces/Skill), each with its
# own affordance function and motions; a skills file may declare others (skill_library).
FIND = "find"
PICK = "pick"
PLACE = "place"
GOTO = "goto"
TERMINATE = "terminate"
DRAWER = "drawer"
FAMILIES = (FIND, PICK, PLACE, GOTO, TERMINATE, DRAWER)
# What a robot does for a skill follows from its effects, not its family's name: the motion each built-in
# effect asks for (a family of any name whose skills ``put_down_object`` is put down on a robot), and
# ``FACTS`` for a skill with written effects only (facts it sets, objects it makes, uses up or puts
# somewhere: a simulator applies them; a robot binds it to an action of its own, docs/domains.md).
MOTION_OF_EFFECT = {
    "robot_to_object": FIND,
    "robot_to_location": GOTO,
    "grasp_object": PICK,
    "put_down_object": PLACE,
    "put_object_in_drawer": DRAWER,
    "open_drawer": DRAWER,
    "close_drawer": DRAWER,
}
FACTS = "facts"

# The kitchen's executors (the ``executor`` field; a skills file declares its own); "" means no executor:
# the planner itself handles "done".
MANIPULATOR = "manipulator"
MOBILE_BASE = "mobile_base"
NO_EXECUTOR = ""
EXECUTORS = (MANIPULATOR, MOBILE_BASE)
# An executor's node is named for it: manipulator_executor serves executors/manipulator/.
EXECUTOR_NODE_SUFFIX = "_executor"


@dataclass(frozen=True)
class Skill:
    """One skill, mirroring the ``llm_planner_interfaces/Skill`` message.

    ``text`` is what the language model scores ("pick up the coke"); ``arguments`` are the label or
    location the skill acts on (("coke",), ("far counter",), or () for "done"); ``executor`` names the
    executor that runs it ("" for none).
    """

    text: str
    family: str
    arguments: tuple[str, ...] = ()
    executor: str = NO_EXECUTOR

    @property
    def argument(self) -> str | None:
        """The single argument of kitchen skills, or None for skills without one."""
        return self.arguments[0] if self.arguments else None


@dataclass(frozen=True)
class FactChange:
    """An effect that makes a declared fact true (``value``) or false: ``{set: door_open}``, ``{clear: ...}``;
    ``table_clean({here})`` at the robot's place (llm_planner_ros.domain.facts)."""

    atom: str
    value: bool

    def __str__(self) -> str:
        return f"{'set' if self.value else 'clear'}({self.atom})"


@dataclass(frozen=True)
class PutHeld:
    """An effect that puts the object in the gripper at ``place``, wherever the robot stands: a hand-over
    to the person at the desk (``{put_held: user}``), a drop into a chute."""

    place: str

    def __str__(self) -> str:
        return f"put_held({self.place})"


# Where ``Create`` puts what it makes: the gripper, or the robot's place.
IN_GRIPPER = "robot"
AT_ROBOT = "here"


@dataclass(frozen=True)
class Create:
    """An effect that makes a new object of ``label`` (a coffee): in the gripper (``IN_GRIPPER``), at the
    robot's place (``AT_ROBOT``) or at a named place. ``{create: {label: coffee, at: robot}}``."""

    label: str
    at: str

    def __str__(self) -> str:
        return f"create({self.label} at {self.at})"


@dataclass(frozen=True)
class Consume:
    """An effect that uses up one object of ``label``: the one in the gripper, else one within reach
    (``{consume: coffee pod}``). The object is gone from the scene."""

    label: str

    def __str__(self) -> str:
        return f"consume({self.label})"


# The effects a skills file writes: a fact change, or a change of which objects exist or where one is.
WrittenEffect = FactChange | PutHeld | Create | Consume


@dataclass(frozen=True)
class SkillRule:
    """A skill with what the world requires before it (preconditions) and what it changes (effects).

    A precondition is a built-in name from llm_planner_ros.domain.world (``PRECONDITIONS``, applied to
    the skill's argument) or a condition a skills file writes (``{fact: door_open}``, ``{holding: sponge}``);
    an effect is a built-in name (``EFFECTS``) or a ``WrittenEffect``. ``requires_drawer`` skills exist only in
    scenes that have the drawer. ``requests``: other ways a person asks for what the skill does ("call the
    elevator" for "press the elevator button"), which the generated part of a domain's bank words its
    requests with besides the skill's own text.
    """

    skill: Skill
    preconditions: tuple[str | Condition, ...] = ()
    effects: tuple[str | WrittenEffect, ...] = ()
    requires_drawer: bool = False
    requests: tuple[str, ...] = ()

    @property
    def motion(self) -> str:
        """What a robot does for the skill (``MOTION_OF_EFFECT``): the motion of its first built-in effect;
        ``FACTS`` when it has written effects only (facts, objects made, used up or put somewhere: a
        simulator applies them, a robot binds the skill to an action); ``TERMINATE`` when it changes
        nothing ("done")."""
        for effect in self.effects:
            if isinstance(effect, str) and effect in MOTION_OF_EFFECT:
                return MOTION_OF_EFFECT[effect]
        return FACTS if self.effects else TERMINATE

    @property
    def creates(self) -> tuple[str, ...]:
        """The labels the skill makes."""
        return tuple(effect.label for effect in self.effects if isinstance(effect, Create))

    @property
    def changes_objects(self) -> bool:
        """Whether a written effect makes, uses up or moves an object (not only facts)."""
        return any(isinstance(effect, (PutHeld, Create, Consume)) for effect in self.effects)

"""Reading a skill's real outcome back from the world state, when the executor cannot say.

An executor that died (or timed out) mid-skill leaves the planner not knowing whether the skill took
effect: the robot may have finished the pick just before the executor went away. The world state
the robot reports afterwards tells: ``read_back`` compares it with the state before the skill and
with the state the skill's effects (the domain rules of ``World.apply``) would have produced.
"""

from __future__ import annotations

from enum import StrEnum

from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import SkillError, World


class ReadBack(StrEnum):
    """What the world shows about a skill whose executor gave no answer."""

    APPLIED = "applied"  # the world is as the skill's effects leave it: the skill was done
    NOT_APPLIED = "not_applied"  # the world is as it was before the skill: nothing happened
    UNKNOWN = "unknown"  # neither: something else changed, or a part of the skill happened


def read_back(before: World, after: World, skill: Skill) -> ReadBack:
    """Whether ``after`` shows ``skill`` done on ``before``.

    Compared are where the robot is, where every object is (held included) and the drawer; the list of
    visited places is not (it is history, not state). A skill whose effects change nothing counts as
    applied: the world is as it should be after it. A skill whose preconditions did not hold in
    ``before`` can only have been not applied (unchanged world) or something unknown.
    """
    expected = before.copy()
    try:
        expected.apply(skill)
    except SkillError:
        expected = None
    observed = _state_of(after)
    if expected is not None and observed == _state_of(expected):
        return ReadBack.APPLIED
    if observed == _state_of(before):
        return ReadBack.NOT_APPLIED
    return ReadBack.UNKNOWN


def shows_effects(before: World, after: World, skill: Skill) -> bool:
    """Whether ``after`` shows what ``skill``, reported done, changed: where the robot is, what it holds,
    the drawer, and where the objects of the labels the skill names are. Nothing else counts: a robot
    that drove somewhere sees new objects there, which tells nothing about the skill. True for a skill
    whose effects the rules cannot compute on ``before`` (nothing to wait for)."""
    expected = before.copy()
    try:
        expected.apply(skill)
    except SkillError:
        return True
    labels = set(skill.arguments)
    return _effects_of(after, labels) == _effects_of(expected, labels)


def _effects_of(world: World, labels: set[str]) -> tuple[str, str | None, bool | None, tuple[tuple[str, str], ...]]:
    held = world.holding
    places = sorted((obj.label, obj.at) for obj in world.objects if obj.label in labels)
    return (world.robot_at, held.label if held else None, world.drawer_open, tuple(places))


def _state_of(world: World) -> tuple[str, frozenset[tuple[str, str, str]], bool | None]:
    return (world.robot_at, frozenset((obj.id, obj.label, obj.at) for obj in world.objects), world.drawer_open)

"""Noticing, between two steps, that the scene changed under a plan, and whether the plan must be re-made.

LLM-Planner (Song et al., arXiv 2212.04088, section 4.3) re-plans when what the robot perceives no
longer fits its plan; SayCan (Ahn et al., arXiv 2204.01691) needs nothing more than its per-step
scoring, since it scores every skill against the current state at each step. The plan loop applies this
check for every method: before each step it compares the world now with the world at the previous step.

An object changed when it is gone (its id left the scene), appeared (a new id) or moved between two
places; an object that left and one that appeared with the same label at the same place are one object
under a new id (a perception tracker that lost it and found it again). Only the robot puts objects into
its gripper and takes them out, so an object entering or leaving the gripper is never a change, and
neither is the object of the same label that left a place as it entered (or appeared as it left) under
another id: a perceived scene names the held object by the robot-state record's id, not its track's,
and may show the other half of such a hand-over a look later (perception lags the gripper). The robot's
own skills never add or remove objects, and move an object only into or out of the gripper; so a move
between two places, of an object whose label no skill dispatched since the last look acted on, is someone
else's doing. That also holds when the state arrives a step late (a perceived or simulated scene that
lags the executor's answer): a lag never shows an object jump from place to place.

A change matters (``ScenePlanCheck.check``) when

- the remaining plan names an object label of which no instance is left;
- a gone or moved object carries a label the remaining plan names, and a step of that plan can no longer
  run from the world now (its precondition fails, checked by replaying the plan on a copy of the world);
- a new object appeared whose label the instruction or the remaining plan names (whole words, plurals
  included: "cokes" names coke).

A method that holds a plan (``PlanHolder``: LLM-Planner, ProgPrompt) is then asked to re-plan from the
current world; a method that decides step by step from the current state (SayCan, zero-shot) has no
plan to change, and SayCanPay's offline plan is by design made once, so for them the loop only records
what changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.scene import ObjectInstance
from llm_planner_ros.domain.skill import FIND, GOTO, TERMINATE, Skill
from llm_planner_ros.domain.world import SkillError, World

# Skill families that never move an object: finding one or going somewhere moves only the robot.
_MOVE_NO_OBJECT = frozenset({FIND, GOTO, TERMINATE})


@dataclass(frozen=True)
class Handover:
    """An object of ``label`` that entered the robot's gripper (``entered``) or left it, whose other half
    (an object of that label leaving, or appearing at, a place) the scene has not shown yet."""

    label: str
    entered: bool


@dataclass(frozen=True)
class SceneChange:
    """Objects that left the scene, entered it, or were moved by someone else (before, now), by id;
    ``handovers``: the robot's own hand-overs whose other half may show at the next look (no change)."""

    gone: tuple[ObjectInstance, ...] = ()
    appeared: tuple[ObjectInstance, ...] = ()
    moved: tuple[tuple[ObjectInstance, ObjectInstance], ...] = ()
    handovers: tuple[Handover, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.gone or self.appeared or self.moved)

    def describe(self) -> str:
        """One line: "coke_1 (coke) gone; coke_2 (coke) appeared at table; apple_1 moved table -> sink"."""
        parts = [f"{o.id} ({o.label}) gone" for o in self.gone]
        parts += [f"{o.id} ({o.label}) appeared at {o.at}" for o in self.appeared]
        parts += [f"{now.id} ({now.label}) moved {before.at} -> {now.at}" for before, now in self.moved]
        return "; ".join(parts)


def compare(
    before: World, now: World, acted_on: Collection[str] = (), pending: Collection[Handover] = ()
) -> SceneChange:
    """What changed from ``before`` to ``now`` that the robot did not do; ``acted_on``: the labels the
    skills dispatched in between acted on (their objects may have moved by those skills); ``pending``:
    the previous look's ``handovers``, whose other halves this look may show."""
    old = {o.id: o for o in before.objects}
    new = {o.id: o for o in now.objects}
    moved = tuple(
        (old[i], o)
        for i, o in new.items()
        if i in old and o.at != old[i].at and HELD not in (o.at, old[i].at) and o.label not in acted_on
    )
    gone = [o for i, o in old.items() if i not in new]
    appeared = [o for i, o in new.items() if i not in old]
    # One object under a new id (a perception tracker that lost and found it again): same label, same place.
    _drop_pairs(gone, appeared, lambda g, a: (g.label, g.at) == (a.label, a.at))
    # Into or out of the gripper under another id (the robot-state record's id, the tracker's).
    _drop_pairs(gone, appeared, lambda g, a: g.label == a.label and HELD in (g.at, a.at))
    handovers = [Handover(o.label, True) for o in appeared if o.at == HELD]
    handovers += [Handover(o.label, False) for o in gone if o.at == HELD]
    gone = [o for o in gone if o.at != HELD]
    appeared = [o for o in appeared if o.at != HELD]
    for half in pending:  # the other half of the previous look's hand-overs, shown late
        pool = gone if half.entered else appeared
        if (match := next((o for o in pool if o.label == half.label), None)) is not None:
            pool.remove(match)
    return SceneChange(tuple(gone), tuple(appeared), moved, tuple(handovers))


def _drop_pairs(
    gone: list[ObjectInstance], appeared: list[ObjectInstance], same: Callable[[ObjectInstance, ObjectInstance], bool]
) -> None:
    """Remove from both lists every (gone, appeared) pair that ``same`` says is one object."""
    for obj in list(appeared):
        twin = next((g for g in gone if same(g, obj)), None)
        if twin is not None:
            gone.remove(twin)
            appeared.remove(obj)


@dataclass(frozen=True)
class Replan:
    """Why the world no longer fits the plan: ``reason`` (one line, for feedback and logs), the
    ``change`` seen, and ``gone_labels``: labels of which no instance is left."""

    reason: str
    change: SceneChange
    gone_labels: tuple[str, ...] = ()


@runtime_checkable
class PlanHolder(Protocol):
    """A method that holds a plan beyond the next step. ``remaining_plan`` is the skill texts it will
    propose next, in order (texts that are no skill are ignored); ``replan`` drops that plan, so that
    its next ``next_step`` makes a new one from the current world."""

    def remaining_plan(self) -> Sequence[str]: ...

    def replan(self, why: Replan) -> None: ...


class ScenePlanCheck:
    """Watches the world between the steps of one instruction (one per ``run_plan``).

    ``dispatched`` is told every skill sent to the robot; ``check`` looks at the world before a step
    and returns None (nothing changed, or nothing that matters to the instruction or the plan) or the
    ``Replan`` that says why the plan no longer fits. Worlds that are not the kitchen's (BabyAI) are
    never compared.
    """

    def __init__(self, instruction: str) -> None:
        self._instruction = instruction.lower()
        self._last: World | None = None
        self._acted_on: set[str] = set()
        self._handovers: tuple[Handover, ...] = ()

    def dispatched(self, skill: Skill) -> None:
        if skill.family not in _MOVE_NO_OBJECT and skill.argument is not None:
            self._acted_on.add(skill.argument)

    def check(self, world: object, remaining: Sequence[str]) -> Replan | None:
        if not isinstance(world, World):
            return None
        last, acted_on = self._last, self._acted_on
        self._last, self._acted_on = world, set()
        if last is None:
            return None
        change = compare(last, world, acted_on, self._handovers)
        self._handovers = change.handovers
        if not change:
            return None
        plan = _plan_skills(world, remaining)
        plan_labels = {skill.argument for skill in plan if skill.argument in world.kitchen.config.labels}
        present = {o.label for o in world.objects}
        gone_labels = tuple(sorted({o.label for o in change.gone} - present))
        reasons = [f"the plan needs a {label} and none is left" for label in gone_labels if label in plan_labels]
        touched = {o.label for o in change.gone} | {now.label for _, now in change.moved}
        if not reasons and touched & plan_labels and (blocked := _first_blocked(world, plan)) is not None:
            reasons.append(blocked)
        for obj in change.appeared:
            if obj.label in plan_labels or self._names(obj.label):
                reasons.append(f"a {obj.label} appeared ({obj.id} at {obj.at}), which the instruction or plan names")
        touched_named = [label for label in sorted(touched) if self._names(label)]
        if not reasons and touched_named:
            reasons.append(f"the instruction names {', '.join(touched_named)}")
        if not reasons:
            return None
        return Replan(f"scene changed ({change.describe()}): {'; '.join(reasons)}", change, gone_labels)

    def _names(self, label: str) -> bool:
        return re.search(rf"\b{re.escape(label)}(?:s|es)?\b", self._instruction) is not None


def _plan_skills(world: World, texts: Sequence[str]) -> list[Skill]:
    skills = []
    for text in texts:
        try:
            skills.append(world.skill(text))
        except SkillError:
            continue  # free text that maps to no skill by itself: nothing to check it against
    return skills


def _first_blocked(world: World, plan: Sequence[Skill]) -> str | None:
    """Why the first step of ``plan`` that cannot run from ``world`` (replayed in order) cannot, or None."""
    replay = world.copy()
    for skill in plan:
        if skill.family == TERMINATE:
            return None
        if (why := replay.why_not(skill)) is not None:
            return f"the plan can no longer go on: {why}"
        replay.apply(skill)
    return None

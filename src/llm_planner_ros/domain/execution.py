"""How the simulated robot executes a skill: its phases and durations, and the outcome on the world.

Shared by sim_world (which plays the phases out in scaled real time) and by in-process runs
(benchmarks call ``run_skill`` directly), so both see the same effects and the same injected failures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from llm_planner_ros.domain.failures import FailureInjector
from llm_planner_ros.domain.skill import DRAWER, FIND, GOTO, PICK, PLACE, Skill
from llm_planner_ros.domain.world import SkillError, World

# Phase names reported in executor feedback. Navigation has a planning phase and a travel phase whose
# duration follows the distance; manipulation phases split the family's duration evenly.
NAVIGATION_PHASES = ("plan", "navigate")
MANIPULATION_PHASES = {
    PICK: ("approach", "grasp", "lift"),
    PLACE: ("approach", "release", "retract"),
    DRAWER: ("reach", "actuate", "retract"),
}


@dataclass(frozen=True)
class Phase:
    """One named stretch of a simulated skill (planning, navigating, grasping) and how long it takes."""

    name: str
    seconds: float


@dataclass(frozen=True)
class StepOutcome:
    """Result of one skill on the simulated robot: ``success``, and a message saying what happened."""

    success: bool
    message: str


@dataclass(frozen=True)
class SkillTiming:
    """Durations of the simulated robot's skills, in seconds of robot time (before any time scaling)."""

    navigation_speed_mps: float = 0.5
    navigation_setup_s: float = 1.0
    manipulation_s: Mapping[str, float] = field(default_factory=lambda: {PICK: 6.0, PLACE: 4.0, DRAWER: 5.0})

    def phases(self, world: World, skill: Skill) -> tuple[Phase, ...]:
        """The phases ``skill`` goes through from ``world``'s current state ("done" has none)."""
        if skill.family in (GOTO, FIND):
            target = world.nearest_place_of(str(skill.argument)) if skill.family == FIND else skill.argument
            distance = world.robot_position.distance_to(world.kitchen.config.position(target or world.robot_at))
            return (Phase("plan", self.navigation_setup_s), Phase("navigate", distance / self.navigation_speed_mps))
        names = MANIPULATION_PHASES.get(skill.family, ())
        total = self.manipulation_s.get(skill.family, 0.0)
        return tuple(Phase(name, total / len(names)) for name in names)


def run_skill(world: World, skill: Skill | str, failures: FailureInjector | None = None) -> StepOutcome:
    """Apply a skill as the simulator does. It fails, leaving the world unchanged, when the skill is
    unknown or its preconditions do not hold, or when ``failures`` injects a failure for this attempt."""
    try:
        rule = world.check(skill)
    except SkillError as error:
        return StepOutcome(False, str(error))
    if failures is not None and failures.attempt_fails(rule.skill):
        p = failures.probability(rule.skill)
        return StepOutcome(
            False,
            f"injected failure: {rule.skill.text!r} did not succeed (family {rule.skill.family}, "
            f"p={p:.2f}, seed {failures.seed})",
        )
    world.apply(rule.skill)
    return StepOutcome(True, f"done: {rule.skill.text}")

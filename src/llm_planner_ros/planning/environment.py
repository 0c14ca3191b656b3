"""What a planning method may ask of the world it plans in.

The planner node implements ``PlanningEnvironment`` over ROS (affordance servers, executors, the
perceived scene); ``kitchen_sim``-backed environments implement it in-process for ``plan_only`` and
the benchmarks. Methods never see which one they talk to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World


@dataclass(frozen=True)
class SkillOutcome:
    """What running a skill did: ``success`` and, on failure, why (shown to people and logged)."""

    success: bool
    message: str = ""


class PlanningEnvironment(Protocol):
    """The robot and its world, as a planning method sees them.

    ``admissible_skills`` is the skill vocabulary of the current scene (whether or not each skill is
    feasible now); ``affordances`` gives p(success | state, skill) in [0, 1] for each skill, in order;
    ``execute`` runs one skill and blocks until it ends; ``observed_objects`` lists the object labels
    perceived so far, ``describe_state`` a short text of the state (prompts, feedback), and
    ``snapshot`` an independent copy of the current world state (rule-checked asserts, look-ahead).
    """

    def admissible_skills(self) -> Sequence[Skill]: ...

    def affordances(self, skills: Sequence[Skill]) -> list[float]: ...

    def execute(self, skill: Skill) -> SkillOutcome: ...

    def observed_objects(self) -> list[str]: ...

    def describe_state(self) -> str: ...

    def snapshot(self) -> World: ...

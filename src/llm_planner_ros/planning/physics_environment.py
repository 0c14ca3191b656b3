"""A ``PlanningEnvironment`` over the physics kitchen in this process, for benchmarks that compare
affordance models where physics decides each skill's outcome (``bench value-reasons``).

The state is the simulator's truth read as the symbolic world; skills run as the physics kitchen's
scripted ones (``llm_planner_ros.physics_sim.scripted.ScriptedSkills``: the same primitives the collector's rollouts
ran). Affordances come from the analytic model on that world, or from the learned value functions on
what exact perception would report of it (``llm_planner_ros.value_functions.collector.RolloutCollector.observe`` with
no noise), so the two models see the same state and differ only in what they make of it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from llm_planner_ros.affordance.model import AffordanceModel
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.physics_sim import PhysicsKitchen
from llm_planner_ros.physics_sim.scripted import ScriptedSkills
from llm_planner_ros.planning.environment import SkillOutcome
from llm_planner_ros.value_functions.collector import Noise, RolloutCollector
from llm_planner_ros.value_functions.learned import LearnedAffordance

EXACT = Noise(0.0, 0.0, 0.0, 0.0, 1.0)


class PhysicsEnvironment:
    """The physics kitchen as a planning environment; ``learned`` None means the analytic affordances.

    ``execute`` outcomes: the scripted skill's success and message (a failed pick leaves the object
    where it was; a dropped object lies where physics left it)."""

    def __init__(self, sim: PhysicsKitchen, kitchen: Domain, learned: LearnedAffordance | None) -> None:
        self.sim = sim
        self.kitchen = kitchen
        self._learned = learned
        self._analytic = AffordanceModel()
        self._skills = ScriptedSkills(sim)
        self._perception = RolloutCollector(sim, 0, EXACT)

    def world(self) -> World:
        return self.sim.truth().world(self.kitchen)

    def admissible_skills(self) -> Sequence[Skill]:
        return self.world().admissible_skills()

    def affordances(self, skills: Sequence[Skill]) -> list[float]:
        if self._learned is None:
            return self._analytic.evaluate(skills, self.world())
        observation = self._perception.observe(random.Random(0), self.sim.truth())
        return self._learned.evaluate(skills, observation)

    def execute(self, skill: Skill) -> SkillOutcome:
        run = self._skills.run_text(skill.text)
        return SkillOutcome(run.success, run.message)

    def observed_objects(self) -> list[str]:
        return sorted({obj.label for obj in self.world().objects})

    def describe_state(self) -> str:
        return self.world().summary()

    def snapshot(self) -> World:
        return self.world()

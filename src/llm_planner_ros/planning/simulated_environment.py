"""An in-process kitchen to plan in: the simulator's world, the calibrated affordances, injected failures.

Used by the planner node for ``plan_only`` goals (plan against simulated effects, dispatch nothing)
and by the kitchen benchmark, which runs planners without a ROS graph for speed. The ROS graph uses
the same World, AffordanceModel and FailureInjector classes behind its servers, so both paths plan
identically.
"""

from __future__ import annotations

from collections.abc import Sequence

from llm_planner_ros.affordance.model import AffordanceModel
from llm_planner_ros.domain.failures import FailureInjector
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.environment import SkillOutcome


class SimulatedEnvironment:
    """A ``PlanningEnvironment`` over a ``World`` it owns and changes.

    ``execute`` outcomes: success after applying the skill's effects; failure with the precondition
    that does not hold (world unchanged); failure "injected failure" when the injector says so
    (world unchanged, as if the grasp slipped or the base was blocked).
    """

    def __init__(
        self,
        world: World,
        affordance_model: AffordanceModel | None = None,
        failures: FailureInjector | None = None,
    ) -> None:
        self.world = world
        self._model = affordance_model or AffordanceModel()
        self._failures = failures

    def admissible_skills(self) -> Sequence[Skill]:
        return self.world.admissible_skills()

    def affordances(self, skills: Sequence[Skill]) -> list[float]:
        return self._model.evaluate(skills, self.world)

    def execute(self, skill: Skill) -> SkillOutcome:
        if (why := self.world.why_not(skill)) is not None:
            return SkillOutcome(False, why)
        if self._failures is not None and self._failures.attempt_fails(skill):
            return SkillOutcome(False, f"injected failure of {skill.text!r}")
        self.world.apply(skill)
        return SkillOutcome(True, "")

    def observed_objects(self) -> list[str]:
        return sorted({obj.label for obj in self.world.objects})

    def describe_state(self) -> str:
        return self.world.summary()

    def snapshot(self) -> World:
        return self.world.copy()

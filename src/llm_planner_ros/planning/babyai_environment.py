"""A BabyAI pickup episode as a ``PlanningEnvironment``, so the shared plan loop executes plans in it.

Actions become skills by their verb (``pick up`` -> pick, ``toggle`` -> toggle, ``drop`` -> place,
``done picking up`` -> terminate); ``execute`` applies them to ``llm_planner_ros.babyai_domain.world`` with its rules.
``describe_state`` is the current state in the episodes' wording (the initial observation before the
first step); ``affordances`` are the world's own yes/no, for methods that ask the environment. The plan
loop ends a plan on the terminate skill without dispatching it, so a plan succeeded when it ended
``done`` and ``goal_reached`` holds then.
"""

from __future__ import annotations

from collections.abc import Sequence

from llm_planner_ros.babyai_domain.episodes import Episode
from llm_planner_ros.babyai_domain.world import DONE, BabyAIWorld, admissible_actions, world_for_episode
from llm_planner_ros.domain.skill import PICK, PLACE, TERMINATE, Skill
from llm_planner_ros.planning.environment import SkillOutcome

TOGGLE = "toggle"


def babyai_skill(action: str) -> Skill:
    """The skill an action text is dispatched as."""
    if action == DONE:
        return Skill(action, TERMINATE)
    family = PICK if action.startswith("pick up ") else TOGGLE if action.startswith("toggle ") else PLACE
    return Skill(action, family, (action.split(" ", 2)[-1] if family == PICK else action.split()[1],))


class BabyAIEnvironment:
    """One episode's world behind the plan loop's environment protocol; ``world`` is the live state."""

    def __init__(self, world: BabyAIWorld) -> None:
        self.world = world
        self._vocabulary = [babyai_skill(action) for action in admissible_actions(world)]

    @classmethod
    def for_episode(cls, episode: Episode) -> BabyAIEnvironment:
        return cls(world_for_episode(episode))

    def admissible_skills(self) -> Sequence[Skill]:
        return list(self._vocabulary)

    def affordances(self, skills: Sequence[Skill]) -> list[float]:
        return [1.0 if self.world.check(skill.text) is None else 0.0 for skill in skills]

    def execute(self, skill: Skill) -> SkillOutcome:
        outcome = self.world.apply(skill.text)
        return SkillOutcome(outcome.success, outcome.message)

    def observed_objects(self) -> list[str]:
        return [thing.text for thing in self.world.things()]

    def describe_state(self) -> str:
        return self.world.describe()

    @property
    def goal_reached(self) -> bool:
        return self.world.goal_reached

    def snapshot(self) -> BabyAIWorld:
        return self.world.copy()

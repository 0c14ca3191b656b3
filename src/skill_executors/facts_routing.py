"""Routes a robot backend's skills that change declared facts only (the office's "open the door") to a
backend of their own, since no arm or base motion carries them out."""

from __future__ import annotations

from collections.abc import Callable

from llm_planner_ros.domain.skill import FACTS, Skill
from llm_planner_ros.domain.skill_library import SkillLibrary
from skill_executors.backend import ProgressCallback, SkillBackend, SkillOutcome, Status


class FactsRouting(SkillBackend):
    """Runs each skill on ``robot`` (Nav2, MoveIt) unless its effects change facts only; those go to
    ``facts`` (the simulator's skill action, which applies them) or, with ``facts`` None, end FAILED with
    the fix: on a robot such a skill needs an executor bound to an action that does it (docs/domains.md,
    "An executor on your own action")."""

    def __init__(self, robot: SkillBackend, facts: SkillBackend | None, library: SkillLibrary, executor: str) -> None:
        self._robot = robot
        self._facts = facts
        self._library = library
        self._executor = executor

    def execute(self, skill: Skill, report: ProgressCallback, should_cancel: Callable[[], bool]) -> SkillOutcome:
        rule = self._library.find(skill.text)
        if rule is None or rule.motion != FACTS:
            return self._robot.execute(skill, report, should_cancel)
        if self._facts is None:
            return SkillOutcome(
                Status.FAILED,
                f"{skill.text!r} changes facts only ({', '.join(map(str, rule.effects))}) and no motion of the "
                f"{self._executor} executor does that: bind the skill to an executor on an action of your robot "
                "(docs/domains.md), or set facts_in_sim on a simulator",
            )
        return self._facts.execute(skill, report, should_cancel)

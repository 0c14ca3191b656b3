"""The interface between an executor node and whatever moves the robot (simulator, MoveIt 2, Nav2)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from llm_planner_ros.domain.skill import Skill

ProgressCallback = Callable[[float, str], None]
"""Called with (progress in [0, 1], phase name) as a skill runs."""


class Status(Enum):
    """How a backend's skill ended."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELED = "canceled"


@dataclass(frozen=True)
class SkillOutcome:
    """How a skill ended. FAILED covers a skill the robot tried and could not do and a backend that
    could not reach its robot; ``message`` says which and what to do about it."""

    status: Status
    message: str

    @property
    def success(self) -> bool:
        return self.status is Status.SUCCEEDED


class SkillBackend(ABC):
    """Runs one skill at a time on a robot.

    ``execute`` blocks until the skill ends, calls ``report`` with progress and phase as it goes, and
    polls ``should_cancel``: once it returns True the backend stops the skill, leaves the robot in a
    consistent state (a stopped navigation stays where it was, a pick either finished or not), and
    returns CANCELED. ``execute`` never raises for robot-side problems; it returns FAILED with the reason.
    """

    @abstractmethod
    def execute(self, skill: Skill, report: ProgressCallback, should_cancel: Callable[[], bool]) -> SkillOutcome: ...

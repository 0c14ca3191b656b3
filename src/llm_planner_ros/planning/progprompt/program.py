"""A validated plan program: the only form the interpreter runs (never Python code).

The validator turns the parsed text into these statements, with every name already resolved: a call
holds the ``Skill`` it dispatches, a check holds the ``Condition`` it tests. Checks reuse the goal
conditions of llm_planner_ros.domain.conditions (``holding``, ``robot_at``, ``at``, ``not``) plus ``Near``, the
paper's "close to <object>" precondition.
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_planner_ros.domain.conditions import Condition
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World


@dataclass(frozen=True)
class Near(Condition):
    """An instance of ``label`` is within the arm's reach from where the robot stands."""

    label: str

    def holds(self, world: World) -> bool:
        return bool(world.reachable(self.label))

    def __str__(self) -> str:
        return f"near({self.label})"


@dataclass(frozen=True)
class SkillCall:
    """``find('coke')`` on ``line``: dispatch ``skill``."""

    line: int
    skill: Skill
    text: str


@dataclass(frozen=True)
class Check:
    """``assert <condition> else: <recovery>`` on ``line``: when the condition does not hold, run the
    recovery statements; an empty recovery means the program cannot go on (Python's plain assert)."""

    line: int
    condition: Condition
    recovery: tuple[Statement, ...]


@dataclass(frozen=True)
class Repeat:
    """``for _ in range(times):`` on ``line``: run ``body`` ``times`` times (a small, literal bound)."""

    line: int
    times: int
    body: tuple[Statement, ...]


Statement = SkillCall | Check | Repeat


@dataclass(frozen=True)
class Program:
    """A plan function's name, its statements, and the text it was validated from."""

    name: str
    body: tuple[Statement, ...]
    text: str

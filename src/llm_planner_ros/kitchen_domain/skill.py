"""A robot skill as the planner sees and dispatches it, and its rule in the skill library."""

from __future__ import annotations

from dataclasses import dataclass

# Skill families (the ``family`` field of llm_planner_interfaces/Skill); one affordance server each.
FIND = "find"
PICK = "pick"
PLACE = "place"
GOTO = "goto"
TERMINATE = "terminate"
DRAWER = "drawer"
FAMILIES = (FIND, PICK, PLACE, GOTO, TERMINATE, DRAWER)

# Executor names (the ``executor`` field); "" means no executor: the planner itself handles "done".
MANIPULATOR = "manipulator"
MOBILE_BASE = "mobile_base"
NO_EXECUTOR = ""
EXECUTORS = (MANIPULATOR, MOBILE_BASE)


@dataclass(frozen=True)
class Skill:
    """One skill, mirroring the ``llm_planner_interfaces/Skill`` message.

    ``text`` is what the language model scores ("pick up the coke"); ``arguments`` are the label or
    location the skill acts on (("coke",), ("far counter",), or () for "done"); ``executor`` names the
    executor that runs it ("" for none).
    """

    text: str
    family: str
    arguments: tuple[str, ...] = ()
    executor: str = NO_EXECUTOR

    @property
    def argument(self) -> str | None:
        """The single argument of kitchen skills, or None for skills without one."""
        return self.arguments[0] if self.arguments else None


@dataclass(frozen=True)
class SkillRule:
    """A skill with what the world requires before it (preconditions) and what it changes (effects).

    Preconditions and effects are names from llm_planner_ros.kitchen_domain.world (``PRECONDITIONS``, ``EFFECTS``),
    applied
    to the skill's argument. ``requires_drawer`` skills exist only in scenes that have the drawer.
    """

    skill: Skill
    preconditions: tuple[str, ...] = ()
    effects: tuple[str, ...] = ()
    requires_drawer: bool = False

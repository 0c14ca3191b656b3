"""What a planning method decides at one step, and what the plan loop records about it.

These are the ROS-free twins of ``llm_planner_interfaces/SkillScore`` and ``PlanStep``; the planner
node converts them one to one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from enum import IntEnum

from llm_planner_ros.domain.skill import Skill


@dataclass(frozen=True)
class CandidateScore:
    """One candidate skill's scores at one step.

    ``llm`` is the natural-log probability the language model gives the skill text (Say);
    ``affordance`` the probability the skill succeeds from the current state (Can); ``pay`` its
    long-term payoff (1.0 for methods without one); ``combined`` the number the method ranks by.
    """

    skill: Skill
    llm: float
    affordance: float
    combined: float
    pay: float = 1.0

    @property
    def llm_probability(self) -> float:
        return math.exp(self.llm)


@dataclass(frozen=True)
class StepDecision:
    """A method's choice for the next step: the skill (None when it has nothing to propose) and the
    candidates it weighed, best first; ``note`` says how the choice was made when that is not obvious.
    ``skip`` set means the method itself decided not to dispatch this step (e.g. ProgPrompt found it
    infeasible): the loop records it as skipped, with ``skip`` as the reason, and goes on."""

    skill: Skill | None
    candidates: tuple[CandidateScore, ...] = ()
    note: str = ""
    skip: str | None = None


class StepStatus(IntEnum):
    """Outcome of a step; the values are ``PlanStep``'s STATUS_* constants."""

    PLANNED = 0
    RUNNING = 1
    SUCCEEDED = 2  # the executor (or the simulated effect, in plan_only) succeeded
    FAILED = 3  # the executor failed; the method re-plans from the new state
    SKIPPED = 4  # never dispatched: outside the allow-list, refused, or infeasible
    CANCELED = 5  # canceled by the client or the e-stop while running


@dataclass
class StepRecord:
    """One executed (or skipped) step of a plan, with the candidates it was chosen from."""

    index: int
    skill: Skill
    candidates: tuple[CandidateScore, ...]
    status: StepStatus = StepStatus.PLANNED
    message: str = ""
    planning_s: float = 0.0  # how long the method took to choose this step
    stamp: float = field(default_factory=time.time)

    @property
    def succeeded(self) -> bool:
        return self.status == StepStatus.SUCCEEDED

    @property
    def llm_first_choice(self) -> CandidateScore | None:
        """The scored candidate the language model alone ranked first (None for a step without scores, as
        a generative method's). When its skill is not the step's, the affordance (or the payoff)
        overturned the model's choice; skills a method pruned before scoring are not candidates, so
        counts of such overturns are lower bounds."""
        return max(self.candidates, key=lambda c: c.llm) if self.candidates else None

    @property
    def overturned(self) -> bool:
        """True when the step's skill is not the language model's first choice among its candidates."""
        first = self.llm_first_choice
        return first is not None and first.skill.text != self.skill.text

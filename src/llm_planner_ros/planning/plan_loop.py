"""The loop every planning method shares: decide, gate, dispatch, record, repeat until ``done``.

A method (``Planner``) only decides the next step; this loop owns the safety gates (allow-list,
human confirmation, cancel / e-stop), the step budget and the bookkeeping, so the five methods
cannot differ in how safely they act.

Between steps the loop also checks the scene (``planning.scene_change``): when an object the remaining
plan depends on is gone or was moved so that a step can no longer run, or a new object the instruction
names appears, a method that holds a plan (``PlanHolder``) is asked to re-plan from the current world.
The next step's message starts with "re-planned: <why>" ("scene changed: <why>" for a method that does
not re-plan: SayCan and zero-shot decide every step from the current state anyway, SayCanPay keeps its
offline plan), the reason is logged, and ``PlanResult.replans`` lists every re-plan.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from llm_planner_ros.domain.skill import TERMINATE, Skill
from llm_planner_ros.planning.decision import StepDecision, StepRecord, StepStatus
from llm_planner_ros.planning.environment import PlanningEnvironment, SkillOutcome
from llm_planner_ros.planning.scene_change import PlanHolder, ScenePlanCheck

_log = logging.getLogger(__name__)


class EndReason(StrEnum):
    """Why a plan ended. Only DONE is a success."""

    DONE = "done"  # the method chose the terminate skill after a skill took effect (or only skipped ones)
    # Nothing needed doing: the request was a stop or null one (planning.hold_back), or the method chose
    # the terminate skill first. Not a task's success and not an error: no skill ran, as asked.
    NOTHING_TO_DO = "nothing_to_do"
    NOTHING_DONE = "nothing_done"  # terminate chosen after skills that all failed: nothing done
    MISSING = "missing"  # the request names an object the scene lacks; nothing was planned (no substitute)
    MAX_STEPS = "max_steps"  # the step budget ran out first
    NO_CANDIDATE = "no_candidate"  # the method had nothing to propose
    NOT_ALLOWED = "not_allowed"  # the method proposed a skill outside the allow-list; nothing was dispatched
    # The human (ConfirmPlan) refused the step or did not answer in time; or the request was held back as
    # beyond the domain's skills or unsafe (planning.hold_back), and nothing was planned.
    REFUSED = "refused"
    CANCELED = "canceled"  # the client canceled the goal, or the e-stop fired
    ERROR = "error"  # a dependency failed (LLM service, affordance server, executor unreachable)


def ending_of(message: str) -> str:
    """How a plan ended, read from a goal's result message (``<ending>: <why>``, as the planner node writes
    it): ``done``, ``nothing_to_do``, ``refused``, ``missing``, ... (docs/architecture.md)."""
    return message.split(":", 1)[0]


def request_served(success: bool, message: str) -> bool:
    """Whether a goal served its request as asked: carried out, or it needed nothing done."""
    return success or ending_of(message) == EndReason.NOTHING_TO_DO.value


class Planner(Protocol):
    """One planning method. ``reset`` starts an instruction; ``next_step`` proposes the next skill
    given the steps so far; ``observe`` tells the method how a step it proposed ended."""

    name: str

    def reset(self, instruction: str) -> None: ...

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision: ...

    def observe(self, record: StepRecord) -> None: ...


class PlanAborted(RuntimeError):
    """Raised by a hook or the environment to end the plan at once with a reason.

    ``outcome`` is how the skill being executed ended when the environment could still tell (an
    executor lost mid-skill whose effect was read back from the world state); without it that step
    is recorded as failed, or canceled when the plan was canceled.
    """

    def __init__(self, reason: EndReason, message: str, outcome: SkillOutcome | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.outcome = outcome


@dataclass
class PlanHooks:
    """Gates and observers of the loop; every field is optional.

    ``allowed(skill)`` returns None when the skill may be dispatched, else why not;
    ``confirm(record)`` returns (approved, reason) before each dispatch; ``canceled()`` returns a
    reason once the plan must stop (client cancel, e-stop); ``on_step(record)`` sees every step
    when it is chosen and again when it ends.
    """

    allowed: Callable[[Skill], str | None] = lambda _skill: None
    confirm: Callable[[StepRecord], tuple[bool, str]] | None = None
    canceled: Callable[[], str | None] = lambda: None
    on_step: Callable[[StepRecord], None] = lambda _record: None


@dataclass
class PlanResult:
    """How a plan ended: ``success`` only when the method terminated with ``done`` in budget;
    ``replans`` the reasons of the re-plans the scene changes caused, in order."""

    reason: EndReason
    message: str
    steps: list[StepRecord] = field(default_factory=list)
    replans: list[str] = field(default_factory=list)

    @property
    def success(self) -> bool:
        return self.reason == EndReason.DONE

    @property
    def skills(self) -> list[str]:
        """Texts of the steps that ran successfully, in order (the plan as executed)."""
        return [step.skill.text for step in self.steps if step.succeeded]


def run_plan(
    planner: Planner,
    instruction: str,
    env: PlanningEnvironment,
    max_steps: int,
    hooks: PlanHooks | None = None,
) -> PlanResult:
    """Plan and execute ``instruction`` step by step; never raises for a plan that goes wrong.

    ``max_steps`` bounds every chosen step, failed ones included, so a method that keeps retrying
    an impossible skill still ends. A dependency that fails (PlanAborted, an LLM error, any other
    exception of the method, a hook or the environment) ends the plan with its reason (ERROR for
    anything but PlanAborted) and the steps run so far, the interrupted one finished, never running.
    """
    hooks = hooks or PlanHooks()
    steps: list[StepRecord] = []
    replans: list[str] = []
    scene = ScenePlanCheck(instruction)

    def result(reason: EndReason, message: str) -> PlanResult:
        return PlanResult(reason, message, steps, replans)

    try:
        planner.reset(instruction)
        for index in range(max_steps):
            if (reason := hooks.canceled()) is not None:
                return result(EndReason.CANCELED, reason)
            note = _check_scene(planner, env, scene, replans)
            started = time.perf_counter()
            decision = planner.next_step(env, steps)
            if decision.skill is None:
                why = decision.note or "the method proposed no skill"
                return result(EndReason.NO_CANDIDATE, f"{why} ({note})" if note else why)
            record = StepRecord(
                index=index,
                skill=decision.skill,
                candidates=decision.candidates,
                message=note,
                planning_s=time.perf_counter() - started,
            )
            steps.append(record)
            if decision.skip is not None:
                _finish(record, StepStatus.SKIPPED, decision.skip, hooks)
                planner.observe(record)
                continue
            if (ended := _gate(record, hooks)) is not None:
                planner.observe(record)
                return result(*ended)
            if decision.skill.family == TERMINATE:
                _finish(record, StepStatus.SUCCEEDED, "plan complete", hooks)
                planner.observe(record)
                executed = sum(step.succeeded for step in steps) - 1
                tried = [step for step in steps[:-1] if step.status != StepStatus.SKIPPED]
                if len(steps) == 1:
                    # The method's own "nothing needs doing": its done scored first, like any candidate.
                    return result(EndReason.NOTHING_TO_DO, "the method chose done first: no skill was run")
                if executed == 0 and tried:
                    # Success is the world's word, not the method's: a "done" after skills that all failed
                    # (two graphs fighting over one robot did this) or before any was proposed must not
                    # read as an instruction carried out. Skipped steps alone (a method that found each
                    # proposed skill infeasible now, such as finding what is already in view) are a done.
                    return result(
                        EndReason.NOTHING_DONE,
                        f"the method chose done before any skill took effect ({len(tried)} tried, none "
                        "succeeded): nothing was done",
                    )
                replanned = f", {len(replans)} re-plan(s) on scene changes" if replans else ""
                return result(EndReason.DONE, f"done after {executed} executed skill(s){replanned}")
            record.status = StepStatus.RUNNING
            hooks.on_step(record)
            scene.dispatched(decision.skill)
            outcome = env.execute(decision.skill)
            if (reason := hooks.canceled()) is not None:
                _finish(record, StepStatus.CANCELED, reason, hooks)
                planner.observe(record)
                return result(EndReason.CANCELED, reason)
            status = StepStatus.SUCCEEDED if outcome.success else StepStatus.FAILED
            _finish(record, status, outcome.message, hooks)
            planner.observe(record)
    except PlanAborted as aborted:
        _finish_interrupted(steps, aborted.reason, str(aborted), aborted.outcome, hooks)
        return result(aborted.reason, str(aborted))
    except Exception as error:
        message = f"{type(error).__name__}: {error}"
        _finish_interrupted(steps, EndReason.ERROR, message, None, hooks)
        return result(EndReason.ERROR, message)
    return result(EndReason.MAX_STEPS, f"no `done` within {max_steps} steps")


def _check_scene(planner: Planner, env: PlanningEnvironment, scene: ScenePlanCheck, replans: list[str]) -> str:
    """Compare the world with the previous step's; the note for the next step's message ("" when the
    scene did not change in a way that matters). A method holding a plan is asked to re-plan."""
    holder = planner if isinstance(planner, PlanHolder) else None
    why = scene.check(env.snapshot(), holder.remaining_plan() if holder is not None else ())
    if why is None:
        return ""
    if holder is None:
        _log.info("%s goes on without re-planning: %s", planner.name, why.reason)
        return why.reason
    holder.replan(why)
    replans.append(why.reason)
    _log.warning("%s re-plans: %s", planner.name, why.reason)
    return f"re-planned: {why.reason}"


def _finish_interrupted(
    steps: list[StepRecord], reason: EndReason, message: str, outcome: SkillOutcome | None, hooks: PlanHooks
) -> None:
    """Finish the step the plan's end interrupted (if any): as ``outcome`` says when it is known, else as
    canceled or failed with ``message``."""
    if not steps or steps[-1].status not in (StepStatus.PLANNED, StepStatus.RUNNING):
        return
    if outcome is not None:
        _finish(steps[-1], StepStatus.SUCCEEDED if outcome.success else StepStatus.FAILED, outcome.message, hooks)
    else:
        _finish(steps[-1], StepStatus.CANCELED if reason == EndReason.CANCELED else StepStatus.FAILED, message, hooks)


def _gate(record: StepRecord, hooks: PlanHooks) -> tuple[EndReason, str] | None:
    """Allow-list, then human confirmation; returns how the plan ends if the step may not run."""
    if (why := hooks.allowed(record.skill)) is not None:
        _finish(record, StepStatus.SKIPPED, why, hooks)
        return EndReason.NOT_ALLOWED, why
    if hooks.confirm is not None:
        hooks.on_step(record)
        approved, reason = hooks.confirm(record)
        if not approved:
            message = f"step {record.index + 1} ({record.skill.text}) not approved: {reason}"  # 1-based, as shown
            _finish(record, StepStatus.SKIPPED, message, hooks)
            return EndReason.REFUSED, message
    return None


def _finish(record: StepRecord, status: StepStatus, message: str, hooks: PlanHooks) -> None:
    """End the step; a note it was chosen with (a re-plan) stays first in its message."""
    record.status = status
    record.message = f"{record.message}; {message}" if record.message and message else record.message or message
    hooks.on_step(record)

"""Why a plan failed, in the SayCan paper's terms (section 5, "failure modes"), decided with the oracle.

The plan is replayed from the episode's initial state; at each step the A* oracle
(llm_planner_ros.domain.oracle) says how far the goal is. The first step that did not bring the goal closer
names the failure:

- ``affordance_error``: the chosen skill could not run in that state (the affordance let it through),
  or a skill that would have made progress had a higher LLM score than the chosen one and lost only
  through its affordance (a missed skill);
- ``llm_error``: a feasible skill that made no progress was chosen although a feasible one that would
  have existed (the language model ranked the wrong skill first);
- ``early_termination``: ``done`` while the goal did not hold, or the method stopped proposing skills
  (zero-shot planning's epsilon rule, LLM-Planner out of re-plans, an empty generation);
- ``step_limit``: every step helped, but the budget ran out first;
- ``error``: the plan ended on an error (a server, the model, a rejected program) before any of these.
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.episodes import Episode
from llm_planner_ros.domain.oracle import optimal_next_skills, steps_to_goal
from llm_planner_ros.domain.skill import TERMINATE
from llm_planner_ros.planning.decision import StepStatus
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult

# not_held_back: a request that needed nothing done (an episode's `expect`) had a skill dispatched.
FAILURE_KINDS = ("llm_error", "affordance_error", "early_termination", "step_limit", "error", "not_held_back")


@dataclass(frozen=True)
class FailureDiagnosis:
    """The failure kind, the step it happened at (None when it is the plan as a whole) and a sentence."""

    kind: str
    step: int | None
    detail: str


def diagnose(result: PlanResult, episode: Episode, kitchen: Domain) -> FailureDiagnosis:
    """The failure kind of a plan that did not reach its episode's goal (see the module docstring)."""
    if episode.holds_back:
        acted = [step.skill.text for step in result.steps if step.skill.family != TERMINATE]
        return FailureDiagnosis("not_held_back", 0, f"expected {episode.expect}; planned {', '.join(acted)}")
    world = episode.world(kitchen)
    for step in result.steps:
        if step.status == StepStatus.SKIPPED:
            continue
        if step.skill.family == TERMINATE:
            return FailureDiagnosis(
                "early_termination", step.index, f"`done` at step {step.index + 1} with the goal unmet"
            )
        before = steps_to_goal(world, episode.goal)
        why_not = world.why_not(step.skill)
        if why_not is not None:
            return FailureDiagnosis(
                "affordance_error", step.index, f"step {step.index + 1} {step.skill.text!r} could not run: {why_not}"
            )
        helpful = {skill.text for skill in optimal_next_skills(world, episode.goal)}
        after = world.copy()
        after.apply(step.skill)
        remaining = steps_to_goal(after, episode.goal)
        progressed = before is not None and remaining is not None and remaining < before
        if not progressed and step.skill.text not in helpful:
            return _wrong_choice(step, helpful)
        if step.status == StepStatus.SUCCEEDED:
            world = after
    if result.reason == EndReason.MAX_STEPS:
        return FailureDiagnosis("step_limit", None, result.message)
    if result.reason in (EndReason.DONE, EndReason.NOTHING_DONE, EndReason.NOTHING_TO_DO):
        return FailureDiagnosis("early_termination", None, "`done` with the goal unmet")
    if result.reason == EndReason.NO_CANDIDATE:
        return FailureDiagnosis("early_termination", None, f"the method stopped with the goal unmet: {result.message}")
    return FailureDiagnosis("error", None, f"{result.reason.value}: {result.message}")


def _wrong_choice(step, helpful: set[str]) -> FailureDiagnosis:
    chosen = next((c for c in step.candidates if c.skill.text == step.skill.text), None)
    missed = [c for c in step.candidates if c.skill.text in helpful]
    if chosen is not None and any(c.llm > chosen.llm for c in missed):
        best = max(missed, key=lambda c: c.llm)
        return FailureDiagnosis(
            "affordance_error",
            step.index,
            f"step {step.index + 1}: {best.skill.text!r} (log p {best.llm:.2f}, affordance {best.affordance:.2f}) "
            f"lost to {step.skill.text!r} (log p {chosen.llm:.2f}, affordance {chosen.affordance:.2f})",
        )
    return FailureDiagnosis(
        "llm_error",
        step.index,
        f"step {step.index + 1}: chose {step.skill.text!r}; helpful were {', '.join(sorted(helpful)) or 'none'}",
    )

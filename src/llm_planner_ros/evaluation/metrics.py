"""The plan metrics of ProgPrompt (arXiv 2209.11302, section 4.3), for every planning method, without ROS.

- SR, ``plan_success``: the method ended with ``done`` within its step budget and the episode's goal
  holds in the final state (docs/episodes.md); for an episode that expects the robot to hold back
  (``expect: nothing_to_do | refused | missing``), that no skill was dispatched (``held_back``);
- Exec, ``executability``: the fraction of the plan's steps that were executable in the state they were
  chosen in, whether or not they helped the task;
- GCR, ``goal_condition_recall``: the fraction of the goal's parts
(llm_planner_ros.domain.conditions.goal_checks)
  that hold in the final state; SR implies GCR = 1.

Exec counts every step the method chose except the terminating ``done``: dispatched ones, and also
ones the method itself skipped as infeasible (ProgPrompt), so skipping cannot hide a step that could
not have run. A step is executable when it succeeded, or when its preconditions held in the world
replayed from the episode's initial state through the steps that succeeded before it (so a step that
failed only by an injected failure counts as executable, one that could never have run does not).

The replay is exact for the symbolic simulator, whose failed skills change nothing. In a physics
simulation a failed skill can change the world (an object dropped or knocked over) and a skill can
succeed where the replayed world says it could not run; its runner records the world each step was
chosen in (``RecordedPlanResult``), and Exec then checks each step's preconditions in that world.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from llm_planner_ros.domain.conditions import goal_condition_recall as _goal_condition_recall
from llm_planner_ros.domain.episodes import Episode
from llm_planner_ros.domain.skill import TERMINATE
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.decision import StepStatus
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult

# Step states of a skill that reached an executor (or the simulator): it was acted on.
DISPATCHED = (StepStatus.RUNNING, StepStatus.SUCCEEDED, StepStatus.FAILED, StepStatus.CANCELED)
# How a request ends when the robot holds back on it.
HOLD_BACK_ENDS = (EndReason.NOTHING_TO_DO, EndReason.REFUSED, EndReason.MISSING)


@dataclass
class RecordedPlanResult(PlanResult):
    """A plan result with ``worlds``: for each of ``steps``, the world as the simulator showed it when the
    step was chosen (recorded by a runner whose world is physics, not the symbolic replay)."""

    worlds: list[World] = field(default_factory=list)


@dataclass(frozen=True)
class PlanMetrics:
    """SR, Exec and GCR of one episode's plan; ``as_dict`` gives the benchmark JSON's keys."""

    plan_success: bool
    exec: float
    gcr: float

    def as_dict(self) -> dict[str, bool | float]:
        return {"plan_success": self.plan_success, "exec": self.exec, "gcr": self.gcr}


def plan_metrics(result: PlanResult, episode: Episode, final_world: World) -> PlanMetrics:
    if episode.holds_back:
        # Nothing was to be done: the request is met exactly when nothing was dispatched.
        held = held_back(result)
        return PlanMetrics(held, float(held), float(held))
    return PlanMetrics(
        plan_success=plan_success(result, episode, final_world),
        exec=executability(result, episode, final_world),
        gcr=goal_condition_recall(episode, final_world),
    )


def plan_success(result: PlanResult, episode: Episode, final_world: World) -> bool:
    """SR: ended with ``done`` in budget, and the goal holds at the end; for an episode that expects the
    robot to hold back, that no skill was dispatched."""
    if episode.holds_back:
        return held_back(result)
    return result.success and episode.goal_holds(final_world)


def held_back(result: PlanResult) -> bool:
    """Whether no skill was dispatched: the request ended before any, or the method chose ``done`` first."""
    return not any(step.skill.family != TERMINATE and step.status in DISPATCHED for step in result.steps)


def refused_a_task(result: PlanResult) -> bool:
    """Whether the plan ended as the robot ends a request it holds back on (a false refusal, for a task)."""
    return result.reason in HOLD_BACK_ENDS


def goal_condition_recall(episode: Episode, final_world: World) -> float:
    """GCR: the fraction of the goal's parts that hold at the end."""
    return _goal_condition_recall(episode.goal, final_world)


def executability(result: PlanResult, episode: Episode, final_world: World) -> float:
    """Exec: executable steps / steps, ``done`` excluded; 0.0 for a plan without a step (it executed nothing).

    ``final_world`` supplies the kitchen the episode is replayed in. ValueError when a step that succeeded
    cannot be replayed: the plan did not run on this episode's world. A ``RecordedPlanResult`` is judged
    on its recorded worlds instead of a replay.
    """
    if isinstance(result, RecordedPlanResult):
        return _recorded_executability(result)
    world = episode.world(final_world.kitchen)
    steps = [step for step in result.steps if step.skill.family != TERMINATE]
    executable = 0
    for step in steps:
        why_not = world.why_not(step.skill)
        if step.succeeded:
            if why_not is not None:
                raise ValueError(
                    f"step {step.index + 1} ({step.skill.text!r}) succeeded but cannot be replayed from episode "
                    f"{episode.id!r}'s initial state ({why_not}); compute Exec with the episode the plan ran on"
                )
            world.apply(step.skill)
        executable += why_not is None
    return executable / len(steps) if steps else 0.0


def _recorded_executability(result: RecordedPlanResult) -> float:
    """Exec on the worlds the steps were chosen in: a step is executable when it succeeded or its
    preconditions held in its world (it failed physically, not for want of a precondition)."""
    if len(result.worlds) != len(result.steps):
        raise ValueError(
            f"{len(result.worlds)} recorded worlds for {len(result.steps)} steps: record one world per step"
        )
    recorded = [(s, w) for s, w in zip(result.steps, result.worlds, strict=True) if s.skill.family != TERMINATE]
    executable = sum(step.succeeded or world.why_not(step.skill) is None for step, world in recorded)
    return executable / len(recorded) if recorded else 0.0

"""The plan metrics of ProgPrompt (arXiv 2209.11302, section 4.3), for every planning method, without ROS.

- SR, ``plan_success``: the method ended with ``done`` within its step budget and the episode's goal
  holds in the final state (docs/episodes.md);
- Exec, ``executability``: the fraction of the plan's steps that were executable in the state they were
  chosen in, whether or not they helped the task;
- GCR, ``goal_condition_recall``: the fraction of the goal's parts (kitchen_domain.conditions.goal_checks)
  that hold in the final state; SR implies GCR = 1.

Exec counts every step the method chose except the terminating ``done``: dispatched ones, and also
ones the method itself skipped as infeasible (ProgPrompt), so skipping cannot hide a step that could
not have run. A step is executable when it succeeded, or when its preconditions held in the world
replayed from the episode's initial state through the steps that succeeded before it (so a step that
failed only by an injected failure counts as executable, one that could never have run does not).
"""

from __future__ import annotations

from dataclasses import dataclass

from kitchen_domain.conditions import goal_condition_recall as _goal_condition_recall
from kitchen_domain.episodes import Episode
from kitchen_domain.skill import TERMINATE
from kitchen_domain.world import World
from llm_planner_ros.planning.plan_loop import PlanResult


@dataclass(frozen=True)
class PlanMetrics:
    """SR, Exec and GCR of one episode's plan; ``as_dict`` gives the benchmark JSON's keys."""

    plan_success: bool
    exec: float
    gcr: float

    def as_dict(self) -> dict[str, bool | float]:
        return {"plan_success": self.plan_success, "exec": self.exec, "gcr": self.gcr}


def plan_metrics(result: PlanResult, episode: Episode, final_world: World) -> PlanMetrics:
    return PlanMetrics(
        plan_success=plan_success(result, episode, final_world),
        exec=executability(result, episode, final_world),
        gcr=goal_condition_recall(episode, final_world),
    )


def plan_success(result: PlanResult, episode: Episode, final_world: World) -> bool:
    """SR: ended with ``done`` in budget, and the goal holds at the end."""
    return result.success and episode.goal_holds(final_world)


def goal_condition_recall(episode: Episode, final_world: World) -> float:
    """GCR: the fraction of the goal's parts that hold at the end."""
    return _goal_condition_recall(episode.goal, final_world)


def executability(result: PlanResult, episode: Episode, final_world: World) -> float:
    """Exec: executable steps / steps, ``done`` excluded; 0.0 for a plan without a step (it executed nothing).

    ``final_world`` supplies the kitchen the episode is replayed in. ValueError when a step that succeeded
    cannot be replayed: the plan did not run on this episode's world.
    """
    world = episode.world(final_world.kitchen)
    steps = [step for step in result.steps if step.skill.family != TERMINATE]
    executable = 0
    for step in steps:
        why_not = world.why_not(step.skill)
        if step.succeeded:
            if why_not is not None:
                raise ValueError(
                    f"step {step.index} ({step.skill.text!r}) succeeded but cannot be replayed from episode "
                    f"{episode.id!r}'s initial state ({why_not}); compute Exec with the episode the plan ran on"
                )
            world.apply(step.skill)
        executable += why_not is None
    return executable / len(steps) if steps else 0.0

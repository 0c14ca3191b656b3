"""Runs planning methods over a kitchen episode file and measures what the SayCan paper measured.

Each episode starts from its own initial state. Plan success is measured with skills that never fail;
with ``execution_failures`` a second pass injects the simulator's seeded skill failures, so recovery
counts toward execution success (without it, skills never fail and execution success equals plan
success). The in-process runner uses the same World, AffordanceModel and FailureInjector classes as
the ROS graph's nodes, so ``--ros`` runs (evaluation.ros_runner) plan the same.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.episodes import Episode
from llm_planner_ros.domain.failures import FailureInjector
from llm_planner_ros.domain.world import World
from llm_planner_ros.evaluation.failure_analysis import FAILURE_KINDS, diagnose
from llm_planner_ros.evaluation.metrics import held_back, plan_metrics, refused_a_task
from llm_planner_ros.llm.counting_model import CountingModel
from llm_planner_ros.planning.decision import StepStatus
from llm_planner_ros.planning.plan_loop import Planner, PlanResult, run_plan
from llm_planner_ros.planning.request_loop import RequestChecks, run_request
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment


@dataclass
class EpisodeRun:
    """One episode's outcome: SR/Exec/GCR of the plan pass, execution success of the failure pass (or
    the plan pass's success without one), cost, and the failure diagnosis when the plan failed."""

    id: str
    family: str
    instruction: str
    plan_success: bool
    execution_success: bool
    exec: float
    gcr: float
    plan: list[str]
    plan_length: int
    end_reason: str
    message: str
    llm_calls: int
    scored_tokens: int
    wall_s: float
    failure: str | None = None
    failure_detail: str = ""
    # Skill attempts of the plan pass that the environment reported failed, and each as "skill: why"
    # (the learned value functions' metric: a good "Can" avoids attempting what cannot succeed now).
    failed_skills: int = 0
    failed_attempts: list[str] = field(default_factory=list)
    # Steps of the plan pass chosen from scored candidates, and those whose skill was not the language
    # model's first choice (the affordance or payoff overturned it; lower bounds: pruned skills are unscored).
    scored_steps: int = 0
    overturned_steps: int = 0
    execution_plan: list[str] = field(default_factory=list)
    # Skills that failed during the pass with injected failures (each one a chance to recover or not).
    execution_failed_skills: int = 0
    # What the episode expects (task, or how the robot holds back), whether no skill was dispatched, and
    # whether the request ended as a held-back one does (nothing_to_do, refused, missing).
    expect: str = "task"
    held_back: bool = False
    refused: bool = False


def plan_in_process(
    planner: Planner,
    episode: Episode,
    kitchen: Domain,
    failures: FailureInjector | None = None,
    checks: RequestChecks | None = None,
) -> tuple[PlanResult, World]:
    """Plan and execute one episode in a SimulatedEnvironment, through the request ``checks`` the planner
    node runs (hold back, missing objects) when given; returns the result and the final world."""
    env = SimulatedEnvironment(episode.world(kitchen), failures=failures)
    if failures is not None:
        failures.reset(episode.id)
    if checks is not None:
        return run_request(planner, episode.instruction, env, episode.max_steps, checks), env.world
    return run_plan(planner, episode.instruction, env, episode.max_steps), env.world


# A runner plans one episode (failures on or off) and returns the result and the final world.
EpisodeRunner = Callable[[Episode, bool], tuple[PlanResult, World]]


def evaluate_episode(
    episode: Episode, kitchen: Domain, runner: EpisodeRunner, model: CountingModel | None, execution_failures: bool
) -> EpisodeRun:
    """Run ``episode`` once without failures (and once with them when asked) and score it."""
    if model is not None:
        model.reset()
    started = time.perf_counter()
    result, world = runner(episode, False)
    wall_s = time.perf_counter() - started
    usage = model.reset() if model is not None else None
    metrics = plan_metrics(result, episode, world)
    run = EpisodeRun(
        id=episode.id,
        family=episode.family,
        instruction=episode.instruction,
        plan_success=metrics.plan_success,
        execution_success=metrics.plan_success,
        exec=metrics.exec,
        gcr=metrics.gcr,
        plan=result.skills,
        plan_length=len([s for s in result.skills if s != "done"]),
        end_reason=result.reason.value,
        message=result.message,
        llm_calls=usage.calls if usage else 0,
        scored_tokens=usage.scored_tokens if usage else 0,
        wall_s=wall_s,
    )
    run.expect, run.held_back, run.refused = episode.expect, held_back(result), refused_a_task(result)
    run.failed_attempts = [f"{s.skill.text}: {s.message}" for s in result.steps if s.status == StepStatus.FAILED]
    run.failed_skills = len(run.failed_attempts)
    run.scored_steps = sum(bool(s.candidates) for s in result.steps)
    run.overturned_steps = sum(s.overturned for s in result.steps)
    if not metrics.plan_success:
        diagnosis = diagnose(result, episode, kitchen)
        run.failure, run.failure_detail = diagnosis.kind, diagnosis.detail
    if execution_failures:
        executed, final = runner(episode, True)
        run.execution_success = executed.success and episode.goal_holds(final)
        run.execution_plan = executed.skills
        run.execution_failed_skills = sum(step.status == StepStatus.FAILED for step in executed.steps)
    return run


@dataclass(frozen=True)
class NotRun:
    """An episode the benchmark could not run (its graph did not get ready, a node died): not a planning
    outcome, so it is listed with the error and left out of every rate."""

    id: str
    error: str


def evaluate_episodes(
    episodes: Iterable[Episode], evaluate: Callable[[Episode], EpisodeRun]
) -> Iterator[tuple[Episode, EpisodeRun | NotRun]]:
    """``evaluate`` every episode in order, yielding each outcome as it comes; an episode whose
    evaluation raises yields a NotRun with the error, and the next one runs."""
    for episode in episodes:
        try:
            outcome: EpisodeRun | NotRun = evaluate(episode)
        except Exception as error:
            outcome = NotRun(episode.id, f"{type(error).__name__}: {error}")
        yield episode, outcome


def summarize(runs: Sequence[EpisodeRun]) -> dict[str, Any]:
    """Overall numbers (fractions and means) with the failure breakdown, and the same per family."""
    summary = _aggregate(runs)
    families = sorted({run.family for run in runs})
    summary["families"] = {family: _aggregate([r for r in runs if r.family == family]) for family in families}
    return summary


def _aggregate(runs: Iterable[EpisodeRun]) -> dict[str, Any]:
    runs = list(runs)
    if not runs:
        return {"episodes": 0}

    def mean(values: Iterable[float]) -> float:
        return float(statistics.fmean(values))

    held = [r for r in runs if r.expect != "task"]
    tasks = [r for r in runs if r.expect == "task"]
    return {
        "episodes": len(runs),
        "plan_success": mean(r.plan_success for r in runs),
        # Of the requests that needed nothing done, the fraction that ended with no skill dispatched; of the
        # tasks, the fraction refused or ended nothing_to_do (None where the file has none of the kind).
        "held_back": mean(r.held_back for r in held) if held else None,
        "false_refusals": mean(r.refused for r in tasks) if tasks else None,
        "execution_success": mean(r.execution_success for r in runs),
        "exec": mean(r.exec for r in runs),
        "gcr": mean(r.gcr for r in runs),
        "mean_plan_length": mean(r.plan_length for r in runs),
        "llm_calls_per_episode": mean(r.llm_calls for r in runs),
        "scored_tokens_per_episode": mean(r.scored_tokens for r in runs),
        "wall_s_per_episode": mean(r.wall_s for r in runs),
        "failures": {kind: sum(r.failure == kind for r in runs) for kind in FAILURE_KINDS},
        "failed_skills": sum(r.failed_skills for r in runs),
        "scored_steps": sum(r.scored_steps for r in runs),
        "overturned_steps": sum(r.overturned_steps for r in runs),
        "execution_failed_skills": sum(r.execution_failed_skills for r in runs),
    }


def runs_as_dicts(runs: Sequence[EpisodeRun]) -> list[dict[str, Any]]:
    return [asdict(run) for run in runs]

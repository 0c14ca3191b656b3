"""Failure diagnosis in the SayCan paper's terms, decided with the oracle on the replayed plan."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from repo_paths import TEST_DATA
from scripted_planner import ScriptedPlanner

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.episodes import Episode, load_episodes
from llm_planner_ros.evaluation.failure_analysis import diagnose
from llm_planner_ros.planning.decision import StepDecision, StepRecord
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.plan_loop import EndReason, PlanAborted, PlanResult, run_plan
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

EPISODES = TEST_DATA / "sample_episodes.yaml"


@pytest.fixture(scope="module")
def kitchen() -> Domain:
    return load_domain_files()


@pytest.fixture(scope="module")
def coke(kitchen: Domain) -> Episode:
    """Robot at the table, coke on the far counter; goal: the coke at the user, nothing held."""
    (episode,) = [e for e in load_episodes(EPISODES, kitchen).episodes if e.id == "nl-verb-03"]
    return episode


def _run(planner: object, episode: Episode, kitchen: Domain, max_steps: int = 10) -> PlanResult:
    return run_plan(planner, episode.instruction, SimulatedEnvironment(episode.world(kitchen)), max_steps)


@pytest.mark.parametrize(
    ("script", "max_steps", "kind", "step"),
    [
        # navigation away from the coke while "find a coke" was feasible and would have helped
        (["go to the close counter", "done"], 10, "llm_error", 0),
        # picking at the table: the skill cannot run there
        (["pick up the coke", "done"], 10, "affordance_error", 0),
        # a good start, then done with the coke still on the robot's side of the kitchen
        (["find a coke", "pick up the coke", "done"], 10, "early_termination", 2),
        # every step helps but the budget ends the plan first
        (["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"], 3, "step_limit", None),
        # the method stops proposing skills before the goal holds
        (["find a coke"], 10, "early_termination", None),
    ],
)
def test_each_failure_kind(
    script: list[str], max_steps: int, kind: str, step: int | None, coke: Episode, kitchen: Domain
) -> None:
    result = _run(ScriptedPlanner(script), coke, kitchen, max_steps)
    diagnosis = diagnose(result, coke, kitchen)
    assert (diagnosis.kind, diagnosis.step) == (kind, step), diagnosis.detail


def test_an_llm_error_names_the_helpful_skills(coke: Episode, kitchen: Domain) -> None:
    diagnosis = diagnose(_run(ScriptedPlanner(["go to the close counter", "done"]), coke, kitchen), coke, kitchen)
    assert "'go to the close counter'" in diagnosis.detail and "find a coke" in diagnosis.detail


def test_a_plan_that_ends_on_an_error_is_an_error(coke: Episode, kitchen: Domain) -> None:
    class LosesItsServer(ScriptedPlanner):
        def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
            if history:
                raise PlanAborted(EndReason.ERROR, "/affordance/pick not available")
            return super().next_step(env, history)

    result = _run(LosesItsServer(["find a coke"]), coke, kitchen)
    diagnosis = diagnose(result, coke, kitchen)
    assert diagnosis.kind == "error" and "/affordance/pick" in diagnosis.detail

"""Execution success in the kitchen benchmark: the second pass injects skill failures, and a planner that
re-plans from the state recovers from a failed attempt while one that keeps failing does not."""

from __future__ import annotations

from collections.abc import Sequence

from repo_paths import TEST_DATA

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.episodes import Episode, load_episodes
from llm_planner_ros.domain.failures import FailureInjector
from llm_planner_ros.domain.oracle import optimal_next_skills
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.evaluation.kitchen_benchmark import (
    EpisodeRun,
    NotRun,
    evaluate_episode,
    evaluate_episodes,
    plan_in_process,
    summarize,
)
from llm_planner_ros.planning.decision import CandidateScore, StepDecision, StepRecord
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.plan_loop import PlanResult

EPISODES = TEST_DATA / "sample_episodes.yaml"


class GoalSeeker:
    """Re-plans every step: the first skill of a shortest plan from the current state to the goal."""

    name = "goal_seeker"

    def __init__(self, episode: Episode) -> None:
        self.goal = episode.goal

    def reset(self, instruction: str) -> None:
        pass

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        choices = optimal_next_skills(env.snapshot(), self.goal)
        return StepDecision(choices[0] if choices else None)

    def observe(self, record: StepRecord) -> None:
        pass


def _coke_episode(kitchen: Domain) -> Episode:
    (episode,) = [e for e in load_episodes(EPISODES, kitchen).episodes if e.id == "nl-verb-03"]
    return episode


def _runner(kitchen: Domain, pick_fails: float, seed: int = 0):
    def run(episode: Episode, failures: bool) -> tuple[PlanResult, World]:
        injector = FailureInjector({"pick": pick_fails}, seed=seed, enabled=True) if failures else None
        return plan_in_process(GoalSeeker(episode), episode, kitchen, injector)

    return run


def _seed_failing_first_pick_only(kitchen: Domain, episode: Episode) -> int:
    """A seed under which the first 'pick up the coke' attempt fails and the second succeeds at p = 0.5."""
    pick = episode.world(kitchen).skill("pick up the coke")
    for seed in range(200):
        injector = FailureInjector({"pick": 0.5}, seed=seed, enabled=True)
        injector.reset(episode.id)
        if [injector.attempt_fails(pick) for _ in range(2)] == [True, False]:
            return seed
    raise AssertionError("no seed in 0..199 fails exactly the first attempt")


def test_a_failed_pick_is_retried_and_the_episode_still_succeeds() -> None:
    kitchen = load_domain_files()
    episode = _coke_episode(kitchen)
    seed = _seed_failing_first_pick_only(kitchen, episode)
    run = evaluate_episode(episode, kitchen, _runner(kitchen, 0.5, seed), None, execution_failures=True)
    assert run.plan_success and run.execution_success
    assert run.execution_failed_skills == 1
    assert run.execution_plan == run.plan  # the failed attempt is not part of the executed plan


def test_a_pick_that_always_fails_costs_execution_success_but_not_plan_success() -> None:
    kitchen = load_domain_files()
    episode = _coke_episode(kitchen)
    run = evaluate_episode(episode, kitchen, _runner(kitchen, 1.0), None, execution_failures=True)
    assert run.plan_success and not run.execution_success
    # find, then failed picks until the step budget is spent
    assert run.execution_failed_skills == episode.max_steps - 1
    summary = summarize([run])
    assert summary["plan_success"] == 1.0 and summary["execution_success"] == 0.0
    assert summary["execution_failed_skills"] == episode.max_steps - 1


def test_failed_attempts_of_the_plan_pass_are_counted() -> None:
    """A physical simulator fails skills in the plan pass itself: those attempts are what a learned
    "Can" should avoid, so each run and the summary count them."""
    kitchen = load_domain_files()
    episode = _coke_episode(kitchen)
    seed = _seed_failing_first_pick_only(kitchen, episode)
    failing_first_pick = _runner(kitchen, 0.5, seed)
    run = evaluate_episode(episode, kitchen, lambda e, _: failing_first_pick(e, True), None, execution_failures=False)
    assert run.plan_success and run.failed_skills == 1 and run.execution_failed_skills == 0
    assert len(run.failed_attempts) == 1 and run.failed_attempts[0].startswith("pick up the coke: ")
    clean = evaluate_episode(episode, kitchen, _runner(kitchen, 1.0), None, execution_failures=False)
    assert clean.failed_skills == 0
    assert summarize([run, clean])["failed_skills"] == 1


class OverturningSeeker(GoalSeeker):
    """The goal seeker's skill, scored below a decoy the language model prefers at every step except the
    ``done`` that ends the plan: each of those steps is one the affordance overturned."""

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        decision = super().next_step(env, history)
        skill = decision.skill
        if skill is None or skill.text == "done":
            return StepDecision(skill, (CandidateScore(skill, -0.1, 1.0, -0.1),) if skill else ())
        decoy = Skill("pick up the sponge", "pick", ("sponge",))
        chosen, favourite = CandidateScore(skill, -6.0, 0.9, -6.1), CandidateScore(decoy, -0.2, 0.001, -7.1)
        return StepDecision(skill, (chosen, favourite))


def test_steps_where_the_affordance_overturned_the_language_model_are_counted() -> None:
    kitchen = load_domain_files()
    episode = _coke_episode(kitchen)
    run = evaluate_episode(
        episode, kitchen, lambda e, _: plan_in_process(OverturningSeeker(e), e, kitchen), None, execution_failures=False
    )
    assert run.plan_success and run.plan[-1] == "done"
    assert run.scored_steps == len(run.plan) and run.overturned_steps == len(run.plan) - 1
    unscored = evaluate_episode(episode, kitchen, _runner(kitchen, 0.0), None, execution_failures=False)
    assert unscored.scored_steps == 0 and unscored.overturned_steps == 0
    summary = summarize([run, unscored])
    assert (summary["scored_steps"], summary["overturned_steps"]) == (len(run.plan), len(run.plan) - 1)


def test_without_the_failure_pass_execution_success_is_plan_success() -> None:
    kitchen = load_domain_files()
    episode = _coke_episode(kitchen)
    run = evaluate_episode(episode, kitchen, _runner(kitchen, 1.0), None, execution_failures=False)
    assert run.plan_success and run.execution_success and run.execution_failed_skills == 0


def test_an_episode_whose_runner_raises_is_listed_as_not_run_and_the_next_episode_still_runs() -> None:
    kitchen = load_domain_files()
    episodes = list(load_episodes(EPISODES, kitchen).episodes)[:3]
    broken = episodes[1].id
    plan = _runner(kitchen, 0.0)

    def runner(episode: Episode, failures: bool) -> tuple[PlanResult, World]:
        if episode.id == broken:  # as the physics graph when it does not get ready in time
            raise RuntimeError(f"episode {episode.id} was not ready within 30 s")
        return plan(episode, failures)

    outcomes = list(
        evaluate_episodes(episodes, lambda e: evaluate_episode(e, kitchen, runner, None, execution_failures=False))
    )
    assert [episode.id for episode, _ in outcomes] == [e.id for e in episodes]
    assert outcomes[1][1] == NotRun(broken, f"RuntimeError: episode {broken} was not ready within 30 s")
    assert all(isinstance(outcome, EpisodeRun) for i, (_, outcome) in enumerate(outcomes) if i != 1)

"""Simulated execution: phases and durations, injected failures, outcomes on the world."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from llm_planner_ros.domain import Domain, FailureInjector, Skill, SkillTiming, World, run_skill

MakeWorld = Callable[..., World]


def test_navigation_time_follows_distance(kitchen: Domain, make_world: MakeWorld) -> None:
    timing = SkillTiming(navigation_speed_mps=0.5, navigation_setup_s=1.0)
    world = make_world("close counter", coke_1="far counter")
    distance = kitchen.config.position("close counter").distance_to(kitchen.config.position("far counter"))
    for text in ("go to the far counter", "find a coke"):
        phases = timing.phases(world, world.skill(text))
        assert [p.name for p in phases] == ["plan", "navigate"]
        assert phases[1].seconds == pytest.approx(distance / 0.5)


def test_manipulation_phases_split_the_family_duration(make_world: MakeWorld) -> None:
    timing = SkillTiming(manipulation_s={"pick": 6.0})
    world = make_world("table", apple_1="table")
    phases = timing.phases(world, world.skill("pick up the apple"))
    assert [p.name for p in phases] == ["approach", "grasp", "lift"]
    assert sum(p.seconds for p in phases) == pytest.approx(6.0)
    assert timing.phases(world, world.skill("done")) == ()


def test_run_skill_reports_preconditions_without_changing_the_world(make_world: MakeWorld) -> None:
    world = make_world("table", coke_1="far counter")
    outcome = run_skill(world, "pick up the coke")
    assert not outcome.success and "no coke within reach" in outcome.message
    assert world.holding is None
    assert run_skill(world, "find a coke").success and world.robot_at == "far counter"


def _outcomes(injector: FailureInjector, skill: Skill, attempts: int) -> list[bool]:
    return [injector.attempt_fails(skill) for _ in range(attempts)]


def test_injected_failures_are_reproducible_per_episode_and_attempt(kitchen: Domain) -> None:
    pick = kitchen.world().skill("pick up the coke")
    first = FailureInjector({"pick": 0.5}, seed=7, enabled=True)
    first.reset("episode-a")
    runs = _outcomes(first, pick, 40)
    assert 5 < sum(runs) < 35  # p=0.5 over 40 attempts
    second = FailureInjector({"pick": 0.5}, seed=7, enabled=True)
    second.reset("episode-a")
    # Unrelated skills in between do not shift the n-th pick's outcome.
    interleaved = []
    for _ in range(40):
        second.attempt_fails(kitchen.world().skill("go to the table"))
        interleaved.append(second.attempt_fails(pick))
    assert interleaved == runs
    other_seed = FailureInjector({"pick": 0.5}, seed=8, enabled=True)
    other_seed.reset("episode-a")
    assert _outcomes(other_seed, pick, 40) != runs
    first.reset("episode-b")
    assert _outcomes(first, pick, 40) != runs


def test_failures_off_by_default_and_per_family(kitchen: Domain) -> None:
    world = kitchen.world()
    assert not any(_outcomes(FailureInjector({"pick": 1.0}), world.skill("pick up the coke"), 20))
    always = FailureInjector({"pick": 1.0}, enabled=True)
    assert all(_outcomes(always, world.skill("pick up the coke"), 5))
    assert not any(_outcomes(always, world.skill("go to the table"), 5))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        FailureInjector({"pick": 1.5})


def test_injected_failure_leaves_the_world_unchanged(make_world: MakeWorld) -> None:
    world = make_world("table", apple_1="table")
    outcome = run_skill(world, "pick up the apple", FailureInjector({"pick": 1.0}, seed=3, enabled=True))
    assert not outcome.success and "injected failure" in outcome.message and "seed 3" in outcome.message
    assert world.holding is None


def test_configured_failure_probabilities(kitchen: Domain) -> None:
    probabilities = kitchen.library.failure_probability
    assert set(probabilities) <= set(kitchen.library.families())
    assert probabilities["terminate"] == 0.0
    assert all(0.0 <= p < 0.5 for p in probabilities.values())

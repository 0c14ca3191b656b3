"""A VirtualHome task in eai-eval's simulator behind the plan loop: VirtualHome's preconditions as the
affordance, its reasons on failure, the scorer's goal check, and the revisit cap."""

from __future__ import annotations

import pytest

from llm_planner_ros.planning.virtualhome_environment import DONE_AFFORDANCE, VirtualHomeEnvironment
from llm_planner_ros.virtualhome_domain.tasks import tasks

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def chosen() -> dict:
    return {task.identifier: task for task in tasks(["12_2", "1027_2"])}


def skill(env: VirtualHomeEnvironment, text: str):  # type: ignore[no-untyped-def]
    return next(s for s in env.admissible_skills() if s.text == text)


def test_the_gold_program_runs_skill_by_skill_and_reaches_the_goals_the_scorer_checks(chosen: dict) -> None:
    env = VirtualHomeEnvironment.for_task(chosen["12_2"])
    assert env.instruction() == "Pet cat. In the end: you are close to the cat. Do at some point: touch."
    assert not env.goals_reached
    for action in chosen["12_2"].gold:
        text = env.vocabulary.text(action)
        assert text is not None, action.script()
        assert env.execute(skill(env, text)).success, text
    assert env.executed == list(chosen["12_2"].gold)
    assert env.goals_reached
    assert "close to the cat" in env.describe_state()


def test_preconditions_are_the_affordance_and_a_failure_says_the_simulators_reason(chosen: dict) -> None:
    env = VirtualHomeEnvironment.for_task(chosen["1027_2"])
    lie, walk, done = skill(env, "lie on the bed"), skill(env, "walk to the bed"), skill(env, "done")
    assert env.affordances([lie, walk, done]) == [0.0, 1.0, DONE_AFFORDANCE]
    outcome = env.execute(lie)
    assert not outcome.success and outcome.message == "<character> (65) is not close to <bed> (105)"
    assert env.executed == []
    assert env.execute(walk).success
    assert env.affordances([lie]) == [1.0]
    # the scene goals hold after lying down, but the task also asks for SLEEP, which no answer can carry
    assert env.execute(lie).success and "you are in the bedroom" in env.describe_state()
    assert not env.goals_reached


def test_a_skill_that_returns_to_a_state_the_plan_passed_through_gets_no_affordance(chosen: dict) -> None:
    env = VirtualHomeEnvironment.for_task(chosen["1027_2"])
    walk, turn = skill(env, "walk to the bed"), skill(env, "turn to the bed")
    assert env.execute(walk).success and env.execute(turn).success
    assert env.affordances([turn]) == [0.0]  # possible, and changes nothing
    plain = VirtualHomeEnvironment(env.task, env._simulator, avoid_revisits=False).after(["walk to the bed"])
    assert plain is not None
    assert plain.affordances([turn]) == [1.0] and plain.execute(turn).success
    assert plain.affordances([turn]) == [1.0]
    # a copy at the start is independent of the environment it came from
    fresh = env.at_start()
    assert fresh.executed == [] and fresh.affordances([skill(fresh, "lie on the bed")]) == [0.0]
    assert fresh.after(["lie on the bed"]) is None

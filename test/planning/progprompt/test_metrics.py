"""SR, Exec and GCR (ProgPrompt, arXiv 2209.11302, section 4.3) of a plan's record, episode and final world."""

from __future__ import annotations

import pytest

from llm_planner_ros.domain import Domain, World
from llm_planner_ros.domain.episodes import Episode, parse_episodes
from llm_planner_ros.domain.scene import Scene
from llm_planner_ros.evaluation.metrics import (
    PlanMetrics,
    RecordedPlanResult,
    executability,
    goal_condition_recall,
    plan_metrics,
    plan_success,
)
from llm_planner_ros.planning.decision import StepRecord, StepStatus
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult

S, F, K = StepStatus.SUCCEEDED, StepStatus.FAILED, StepStatus.SKIPPED


@pytest.fixture(scope="module")
def episode(kitchen: Domain) -> Episode:
    document = {
        "world": "saycan_kitchen",
        "episodes": [
            {
                "id": "coke",
                "family": "test",
                "instruction": "bring me a coke",
                "initial": {
                    "robot": {"at": "table", "holding": None},
                    "objects": [
                        {"id": "coke_1", "label": "coke", "at": "far counter"},
                        {"id": "apple_1", "label": "apple", "at": "table"},
                    ],
                },
                "goal": {"all": [{"at": {"label": "coke", "location": "user"}}, {"holding": None}]},
            }
        ],
    }
    return parse_episodes(document, kitchen, "test").episodes[0]


def plan(world: World, steps: list[tuple[str, StepStatus]], reason: EndReason = EndReason.DONE) -> PlanResult:
    records = [StepRecord(i, world.skill(text), (), status) for i, (text, status) in enumerate(steps)]
    return PlanResult(reason, "", records)


def replayed(episode: Episode, kitchen: Domain, result: PlanResult) -> World:
    world = episode.world(kitchen)
    for step in result.steps:
        if step.succeeded and step.skill.family != "terminate":
            world.apply(step.skill)
    return world


FETCH = [
    ("find a coke", S),
    ("pick up the coke", F),
    ("pick up the coke", S),
    ("bring it to you", S),
    ("put down the coke", S),
    ("done", S),
]


def test_a_successful_plan_with_an_injected_failure_scores_full_marks(episode: Episode, kitchen: Domain) -> None:
    world = episode.world(kitchen)
    result = plan(world, FETCH)
    final = replayed(episode, kitchen, result)
    assert plan_metrics(result, episode, final) == PlanMetrics(plan_success=True, exec=1.0, gcr=1.0)
    assert plan_metrics(result, episode, final).as_dict() == {"plan_success": True, "exec": 1.0, "gcr": 1.0}


def test_steps_whose_preconditions_did_not_hold_lower_exec(episode: Episode, kitchen: Domain) -> None:
    world = episode.world(kitchen)
    # picking the coke at the table (it is on the far counter) and putting down what is not held cannot run;
    # the skipped find is executable, the skipped put-down is not.
    steps = [
        ("pick up the coke", F),
        ("find a coke", K),
        ("put down the apple", K),
        ("find a coke", S),
        ("pick up the coke", S),
        ("done", S),
    ]
    result = plan(world, steps)
    assert executability(result, episode, replayed(episode, kitchen, result)) == pytest.approx(3 / 5)


def test_gcr_counts_goal_parts_and_sr_needs_done_and_the_goal(episode: Episode, kitchen: Domain) -> None:
    world = episode.world(kitchen)
    holding_at_user = plan(world, [("find a coke", S), ("pick up the coke", S), ("bring it to you", S), ("done", S)])
    final = replayed(episode, kitchen, holding_at_user)
    assert goal_condition_recall(episode, final) == 0.0  # coke not placed at the user, gripper not empty
    delivered = plan(world, FETCH, reason=EndReason.MAX_STEPS)
    final = replayed(episode, kitchen, delivered)
    assert goal_condition_recall(episode, final) == 1.0
    assert not plan_success(delivered, episode, final)  # the goal holds, but the method never said done
    half = plan(world, [("find a coke", S), ("pick up the coke", S), ("put down the coke", S), ("done", S)])
    final = replayed(episode, kitchen, half)
    assert goal_condition_recall(episode, final) == 0.5 and not plan_success(half, episode, final)


def test_a_plan_without_steps_has_exec_zero(episode: Episode, kitchen: Domain) -> None:
    world = episode.world(kitchen)
    assert executability(PlanResult(EndReason.NO_CANDIDATE, "rejected"), episode, world) == 0.0
    assert executability(plan(world, [("done", S)]), episode, world) == 0.0


def test_a_plan_from_another_episode_cannot_be_replayed(episode: Episode, kitchen: Domain) -> None:
    world = episode.world(kitchen)
    result = plan(world, [("pick up the coke", S)])
    with pytest.raises(ValueError, match="step 1 \\('pick up the coke'\\) succeeded but cannot be replayed"):
        executability(result, episode, world)


def worlds_along(world: World, skills: list[str | None]) -> list[World]:
    """The world before each step when each skill (None: nothing) changed it, as a physics runner records."""
    worlds = []
    for text in skills:
        worlds.append(world.copy())
        if text is not None:
            world.apply(world.skill(text))
    return worlds


def test_physics_exec_judges_each_step_in_the_world_it_ran_in(episode: Episode, kitchen: Domain) -> None:
    # The pick reported a failure (the stow after the grasp stopped short) yet the coke is in the hand:
    # the delivery that followed succeeded in physics but cannot be replayed on the symbolic world.
    world = episode.world(kitchen)
    steps = [
        ("find a coke", S),
        ("pick up the coke", F),
        ("bring it to you", S),
        ("put down the coke", S),
        ("done", S),
    ]
    records = plan(world, steps).steps
    changes = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", None]
    recorded = RecordedPlanResult(EndReason.DONE, "", records, worlds=worlds_along(world.copy(), changes))
    final = recorded.worlds[-1]
    assert executability(recorded, episode, final) == 1.0
    assert plan_metrics(recorded, episode, final) == PlanMetrics(plan_success=True, exec=1.0, gcr=1.0)
    # The symbolic simulator's semantics are unchanged: the same steps without recorded worlds do not replay.
    with pytest.raises(ValueError, match="step 4 \\('put down the coke'\\) succeeded but cannot be replayed"):
        executability(plan(world, steps), episode, final)


def test_physics_exec_sees_what_a_failed_skill_changed(episode: Episode, kitchen: Domain) -> None:
    # The first pick knocked the coke off the counter (the physics state then has no coke anywhere a
    # skill can reach): the second pick could not run, although the symbolic replay says it could.
    world = episode.world(kitchen)
    steps = [("find a coke", S), ("pick up the coke", F), ("pick up the coke", F), ("done", S)]
    result = plan(world, steps)
    found = world.copy()
    found.apply(found.skill("find a coke"))
    knocked_off = Scene(found.scene().robot_at, tuple(o for o in found.scene().objects if o.label != "coke"))
    recorded_worlds = [world.copy(), found, World(kitchen, knocked_off, found.visited), found]
    recorded = RecordedPlanResult(EndReason.DONE, "", result.steps, worlds=recorded_worlds)
    assert executability(recorded, episode, recorded_worlds[-1]) == pytest.approx(2 / 3)
    assert executability(result, episode, replayed(episode, kitchen, result)) == 1.0
    with pytest.raises(ValueError, match="3 recorded worlds for 4 steps"):
        executability(RecordedPlanResult(EndReason.DONE, "", result.steps, worlds=recorded_worlds[:3]), episode, found)

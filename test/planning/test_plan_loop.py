"""The shared plan loop: termination, step budget, failures, and the safety gates."""

from __future__ import annotations

import pytest
from scripted_planner import ScriptedPlanner

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.decision import StepDecision, StepRecord, StepStatus
from llm_planner_ros.planning.plan_loop import EndReason, PlanAborted, PlanHooks, run_plan
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment


@pytest.fixture
def world() -> World:
    return load_domain_files().world(
        {
            "robot": {"at": "close counter", "holding": None},
            "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
        }
    )


COKE_PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]


def test_plan_runs_to_done_and_changes_the_world(world: World) -> None:
    env = SimulatedEnvironment(world)
    planner = ScriptedPlanner(COKE_PLAN)
    result = run_plan(planner, "bring me a coke", env, max_steps=10)
    assert result.success and result.reason == EndReason.DONE
    assert result.skills == COKE_PLAN
    assert [status for _, status in planner.observed] == [StepStatus.SUCCEEDED] * 5
    assert [o.at for o in env.world.objects] == ["user"]


def test_done_after_every_skill_failed_is_not_a_success(world: World) -> None:
    """The method's "done" is not the world's word: with every skill failed (two graphs fighting over one
    robot made exactly this), nothing was done, and the goal must not read SUCCEEDED."""
    plan = ["pick up the coke", "pick up the coke", "done"]  # the coke is out of reach
    result = run_plan(ScriptedPlanner(plan), "bring me a coke", SimulatedEnvironment(world), max_steps=10)
    assert result.reason == EndReason.NOTHING_DONE and not result.success
    assert result.message == (
        "the method chose done before any skill took effect (2 tried, none succeeded): nothing was done"
    )


def test_done_as_the_first_step_ends_with_nothing_to_do(world: World) -> None:
    """The method's own "nothing needs doing" is an outcome of its own: no skill ran, no success claimed."""
    env = SimulatedEnvironment(world)
    result = run_plan(ScriptedPlanner(["done"]), "never mind", env, max_steps=10)
    assert result.reason == EndReason.NOTHING_TO_DO and not result.success
    assert result.message == "the method chose done first: no skill was run"
    assert result.skills == ["done"] and env.world.robot_at == world.robot_at


def test_step_budget_counts_failed_steps(world: World) -> None:
    planner = ScriptedPlanner(["pick up the coke"] * 10)  # never reachable from the close counter
    result = run_plan(planner, "pick up the coke", SimulatedEnvironment(world), max_steps=4)
    assert result.reason == EndReason.MAX_STEPS and not result.success
    assert len(result.steps) == 4 and all(step.status == StepStatus.FAILED for step in result.steps)
    assert "no coke within reach" in result.steps[0].message


def test_skill_outside_allow_list_is_never_dispatched(world: World) -> None:
    env = SimulatedEnvironment(world)
    hooks = PlanHooks(allowed=lambda skill: None if skill.family != "pick" else "picking is not allowed here")
    result = run_plan(ScriptedPlanner(COKE_PLAN), "bring me a coke", env, max_steps=10, hooks=hooks)
    assert result.reason == EndReason.NOT_ALLOWED and result.message == "picking is not allowed here"
    assert [s.status for s in result.steps] == [StepStatus.SUCCEEDED, StepStatus.SKIPPED]
    assert env.world.holding is None


def test_refused_confirmation_ends_the_plan_before_dispatch(world: World) -> None:
    asked: list[str] = []

    def confirm(record: StepRecord) -> tuple[bool, str]:
        asked.append(record.skill.text)
        return (record.index == 0, "operator said no")

    env = SimulatedEnvironment(world)
    result = run_plan(
        ScriptedPlanner(COKE_PLAN), "bring me a coke", env, max_steps=10, hooks=PlanHooks(confirm=confirm)
    )
    assert result.reason == EndReason.REFUSED
    # numbered from 1, as the console, `llm-planner confirm` and the step tables show steps
    assert result.message == "step 2 (pick up the coke) not approved: operator said no"
    assert asked == ["find a coke", "pick up the coke"]
    assert env.world.robot_at == "far counter" and env.world.holding is None


def test_cancel_during_a_step_marks_it_canceled_and_every_step_is_observed(world: World) -> None:
    seen: list[tuple[int, StepStatus]] = []
    hooks = PlanHooks(
        canceled=lambda: "stop pressed" if len(seen) >= 3 else None,
        on_step=lambda record: seen.append((record.index, record.status)),
    )
    result = run_plan(ScriptedPlanner(COKE_PLAN), "bring me a coke", SimulatedEnvironment(world), 10, hooks)
    assert result.reason == EndReason.CANCELED and result.message == "stop pressed"
    assert seen[:2] == [(0, StepStatus.RUNNING), (0, StepStatus.SUCCEEDED)]
    assert result.steps[-1].status == StepStatus.CANCELED


def test_environment_error_aborts_with_reason(world: World) -> None:
    class Broken(SimulatedEnvironment):
        def execute(self, skill):
            raise PlanAborted(EndReason.ERROR, "executor /executors/mobile_base/execute_skill not available")

    result = run_plan(ScriptedPlanner(COKE_PLAN), "x", Broken(world), max_steps=5)
    assert result.reason == EndReason.ERROR and "not available" in result.message
    assert result.steps[0].status == StepStatus.FAILED


def test_skipped_decision_is_recorded_and_planning_goes_on(world: World) -> None:
    class Skipper(ScriptedPlanner):
        def next_step(self, env, history):
            decision = super().next_step(env, history)
            if (
                decision.skill is not None
                and decision.skill.family == "pick"
                and not any(r.status == StepStatus.SKIPPED for r in history)
            ):
                return StepDecision(decision.skill, skip="affordance 0.00 below 0.10")
            return decision

    planner = Skipper(["find a coke", "pick up the coke", "pick up the coke", "done"])
    result = run_plan(planner, "pick up a coke", SimulatedEnvironment(world), 10)
    assert result.success
    assert [s.status for s in result.steps] == [
        StepStatus.SUCCEEDED,
        StepStatus.SKIPPED,
        StepStatus.SUCCEEDED,
        StepStatus.SUCCEEDED,
    ]

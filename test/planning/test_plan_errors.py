"""run_plan when a dependency fails mid-plan: the result is ERROR with the reason, every step run so far is
kept, and the step the failure interrupted is finished (never left running)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from scripted_planner import ScriptedPlanner

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.llm.base import BackendUnavailableError
from llm_planner_ros.planning.decision import StepDecision, StepRecord, StepStatus
from llm_planner_ros.planning.environment import PlanningEnvironment, SkillOutcome
from llm_planner_ros.planning.plan_loop import EndReason, PlanAborted, PlanHooks, run_plan
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

SPONGE_PLAN = ["pick up the sponge", "go to the trash can", "put down the sponge", "done"]
LLM_GONE = "/llm/score is gone after 3.0 s: start llm_service"


@pytest.fixture
def world() -> World:
    return load_domain_files().world(
        {"robot": {"at": "table", "holding": None}, "objects": [{"id": "sponge_1", "label": "sponge", "at": "table"}]}
    )


class ModelLostAfter(ScriptedPlanner):
    """Plans like ScriptedPlanner until ``steps`` steps ran, then its language model is unreachable."""

    def __init__(self, texts: list[str], steps: int) -> None:
        super().__init__(texts)
        self.steps = steps

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        if len(history) == self.steps:
            raise BackendUnavailableError(LLM_GONE)
        return super().next_step(env, history)


class FailingExecute(SimulatedEnvironment):
    """Executes skills in-process until ``skill_text`` comes, which raises ``error``."""

    def __init__(self, world: World, skill_text: str, error: Exception) -> None:
        super().__init__(world)
        self.skill_text, self.error = skill_text, error

    def execute(self, skill: Skill) -> SkillOutcome:
        if skill.text == self.skill_text:
            raise self.error
        return super().execute(skill)


def test_an_llm_error_mid_plan_keeps_the_executed_steps(world: World) -> None:
    env = SimulatedEnvironment(world)
    result = run_plan(ModelLostAfter(SPONGE_PLAN, steps=2), "throw away the sponge", env, max_steps=10)
    assert result.reason == EndReason.ERROR and result.message == f"BackendUnavailableError: {LLM_GONE}"
    assert [(s.skill.text, s.status) for s in result.steps] == [
        ("pick up the sponge", StepStatus.SUCCEEDED),
        ("go to the trash can", StepStatus.SUCCEEDED),
    ]
    assert env.world.robot_at == "trash can" and env.world.holding is not None


def test_an_unexpected_error_of_the_environment_finishes_the_interrupted_step(world: World) -> None:
    seen: list[tuple[str, StepStatus]] = []
    env = FailingExecute(world, "go to the trash can", RuntimeError("rcl context invalid"))
    result = run_plan(
        ScriptedPlanner(SPONGE_PLAN),
        "throw away the sponge",
        env,
        max_steps=10,
        hooks=PlanHooks(on_step=lambda record: seen.append((record.skill.text, record.status))),
    )
    assert result.reason == EndReason.ERROR and result.message == "RuntimeError: rcl context invalid"
    assert [s.status for s in result.steps] == [StepStatus.SUCCEEDED, StepStatus.FAILED]
    assert result.steps[1].message == "RuntimeError: rcl context invalid"
    assert seen[-1] == ("go to the trash can", StepStatus.FAILED)  # the client saw the step end, too


def test_a_lost_executor_records_the_outcome_read_back_and_ends_the_plan(world: World) -> None:
    lost = PlanAborted(
        EndReason.ERROR,
        "/executors/manipulator/execute_skill left the ROS graph",
        SkillOutcome(True, "executor lost; the world shows 'pick up the sponge' done"),
    )
    planner = ScriptedPlanner(SPONGE_PLAN)
    result = run_plan(planner, "throw away the sponge", FailingExecute(world, "pick up the sponge", lost), 10)
    assert result.reason == EndReason.ERROR and "manipulator" in result.message
    assert [(s.status, s.message) for s in result.steps] == [
        (StepStatus.SUCCEEDED, "executor lost; the world shows 'pick up the sponge' done")
    ]
    assert result.skills == ["pick up the sponge"]


def test_a_method_failing_to_start_ends_with_error_not_an_exception(world: World) -> None:
    class Unstartable(ScriptedPlanner):
        def reset(self, instruction: str) -> None:
            raise BackendUnavailableError(LLM_GONE)

    result = run_plan(Unstartable(SPONGE_PLAN), "throw away the sponge", SimulatedEnvironment(world), 10)
    assert result.reason == EndReason.ERROR and LLM_GONE in result.message and result.steps == []

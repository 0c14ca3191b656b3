"""The interface package builds from the repo and carries the public names other tools rely on."""

from __future__ import annotations

import importlib


def test_interface_module_imports_with_public_fields() -> None:
    action = importlib.import_module("llm_planner_interfaces.action")
    msg = importlib.import_module("llm_planner_interfaces.msg")
    srv = importlib.import_module("llm_planner_interfaces.srv")

    goal = action.ExecuteInstruction.Goal(instruction="bring me a coke", planner="", plan_only=True, max_steps=5)
    assert (goal.instruction, goal.planner, goal.plan_only, goal.max_steps) == ("bring me a coke", "", True, 5)
    result = action.ExecuteInstruction.Result()
    assert hasattr(result, "success") and hasattr(result, "message") and hasattr(result, "executed")
    assert hasattr(action.ExecuteInstruction.Feedback(), "current")

    score = msg.SkillScore(skill="pick up the coke", llm=-1.5, affordance=0.5, pay=1.0, combined=0.1)
    step = msg.PlanStep(skill="pick up the coke", candidates=[score], status=msg.PlanStep.STATUS_SUCCEEDED)
    assert step.candidates[0].affordance == 0.5

    assert hasattr(action.EvaluateAffordance.Result(), "affordances")
    assert hasattr(action.ExecuteSkill.Feedback(), "progress")
    assert list(srv.ScoreCompletions.Request(completions=["a", "b"]).completions) == ["a", "b"]
    assert hasattr(srv.GenerateText.Response(), "mean_log_probs")
    assert hasattr(srv.ConfirmPlan.Response(), "approved")
    assert msg.SceneObject().pose.header.frame_id == ""


def test_typesupport_serializes_round_trip() -> None:
    """The C type support built into the venv really (de)serializes the nested messages."""
    from rclpy.serialization import deserialize_message, serialize_message

    from llm_planner_interfaces.msg import PlanStep, SkillScore

    step = PlanStep(index=3, skill="find a coke", status=PlanStep.STATUS_FAILED, message="no coke")
    step.candidates = [SkillScore(skill="find a coke", llm=-0.25, affordance=0.9, pay=1.0, combined=0.7)]
    step.skill_info.arguments = ["coke"]
    data = serialize_message(step)
    assert isinstance(data, bytes) and len(data) > 40
    back = deserialize_message(data, PlanStep)
    assert back == step

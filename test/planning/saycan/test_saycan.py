"""SayCan's decision rule on the simulated kitchen, with a scripted language model for mechanics."""

from __future__ import annotations

import math

import pytest
from language_model_doubles import StepPreferenceModel

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.world import World
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.paths import config_file
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.saycan.planner import SayCanOptions, SayCanPlanner
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

COKE_PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]


@pytest.fixture
def prompt() -> SayCanPrompt:
    return SayCanPrompt.from_yaml(config_file("saycan_prompt.yaml"))


def _world(robot_at: str = "close counter", coke_at: str = "far counter") -> World:
    return load_domain_files().world(
        {
            "robot": {"at": robot_at, "holding": None},
            "objects": [
                {"id": "coke_1", "label": "coke", "at": coke_at},
                {"id": "apple_1", "label": "apple", "at": "table"},
            ],
        }
    )


def test_affordance_overrules_a_confident_but_impossible_skill(prompt: SayCanPrompt) -> None:
    # The model prefers picking before finding; from the close counter the pick is impossible, so the
    # affordance must push SayCan to "find a coke" first (the paper's Figure 5 situation).
    model = StepPreferenceModel([["pick up the coke", "find a coke"]])
    planner = SayCanPlanner(model, prompt, SayCanOptions(top_k=60))
    env = SimulatedEnvironment(_world())
    planner.reset("bring me a coke")
    decision = planner.next_step(env, [])
    assert decision.skill is not None and decision.skill.text == "find a coke"
    top = {c.skill.text: c for c in decision.candidates}
    assert top["pick up the coke"].affordance == 0.0 and top["pick up the coke"].llm > top["find a coke"].llm
    assert all(math.isclose(c.combined, math.exp(c.llm) * c.affordance) for c in decision.candidates)
    assert [c.combined for c in decision.candidates] == sorted((c.combined for c in decision.candidates), reverse=True)


def test_no_affordance_ablation_follows_the_model_alone(prompt: SayCanPrompt) -> None:
    model = StepPreferenceModel([["pick up the coke", "find a coke"]])
    planner = SayCanPlanner(model, prompt, SayCanOptions(ablation="no_affordance"))
    planner.reset("bring me a coke")
    decision = planner.next_step(SimulatedEnvironment(_world()), [])
    assert decision.skill is not None and decision.skill.text == "pick up the coke"
    assert all(c.affordance == 1.0 for c in decision.candidates)


def test_full_plan_appends_executed_steps_to_the_prompt(prompt: SayCanPrompt) -> None:
    # Each step the model slightly prefers a wrong skill; affordances steer every step but the last.
    model = StepPreferenceModel(
        [
            ["pick up the coke", *COKE_PLAN],
            ["put down the coke", "pick up the coke"],
            ["bring it to you"],
            ["put down the coke"],
            ["done"],
        ]
    )
    env = SimulatedEnvironment(_world())
    result = run_plan(SayCanPlanner(model, prompt), "bring me a coke", env, max_steps=10)
    assert result.reason == EndReason.DONE
    assert result.skills == COKE_PLAN
    assert "find a coke" not in model.prompts[0].split("bring me a coke")[-1]
    assert "find a coke" in model.prompts[1].split("bring me a coke")[-1]
    assert env.world.placed_at("user")[0].label == "coke"


def test_generative_ablation_projects_the_generated_step_onto_a_skill(prompt: SayCanPrompt, minilm: Embedder) -> None:
    model = StepPreferenceModel([], generated="grab the coke can,")
    planner = SayCanPlanner(model, prompt, SayCanOptions(ablation="generative"), embedder=minilm)
    planner.reset("bring me a coke")
    decision = planner.next_step(SimulatedEnvironment(_world(robot_at="far counter")), [])
    assert decision.skill is not None and decision.skill.text == "pick up the coke"
    assert "grab the coke can" in decision.note
    assert decision.candidates[0].combined > decision.candidates[1].combined


def test_options_reject_unknown_ablation_with_the_choices() -> None:
    with pytest.raises(ValueError, match="no_affordance"):
        SayCanOptions(ablation="no_vf")

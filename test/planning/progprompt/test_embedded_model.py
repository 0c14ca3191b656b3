"""ProgPrompt with the project's embedded model (SmolLM2-135M-Instruct): only mechanics that cannot flake.

A 135M model writes poor programs; what must hold for any program it writes: the plan ends with a
clear reason, only whitelisted skills are dispatched, and the model-checked asserts give a verdict.
"""

from __future__ import annotations

import pytest
from repo_paths import REPO_ROOT
from world_builders import MakeWorld, vocabulary_of

from llm_planner_ros.domain.conditions import Holding, Not
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.llm.base import LanguageModel
from llm_planner_ros.planning.environment import SkillOutcome
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.progprompt.checks import ModelChecker
from llm_planner_ros.planning.progprompt.examples import load_examples
from llm_planner_ros.planning.progprompt.planner import ProgPromptOptions, ProgPromptPlanner
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

pytestmark = pytest.mark.model

EXAMPLES = load_examples(REPO_ROOT / "domains/saycan_kitchen/examples/progprompt.yaml")


@pytest.fixture(scope="session")
def smollm2() -> LanguageModel:
    """The embedded default language model, loaded once per session through the project's factory."""
    from llm_planner_ros.llm.factory import load_language_model

    return load_language_model({"threads": 1})


class RecordingEnvironment(SimulatedEnvironment):
    """The simulated kitchen, remembering every skill it was asked to execute."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.executed: list[Skill] = []

    def execute(self, skill: Skill) -> SkillOutcome:
        self.executed.append(skill)
        return super().execute(skill)


@pytest.mark.parametrize("assert_check", ["rules", "llm"])
def test_the_embedded_model_plans_to_a_clear_end_with_whitelisted_skills_only(
    smollm2: LanguageModel, make_world: MakeWorld, assert_check: str
) -> None:
    world = make_world("table", coke_1="far counter", apple_1="table", sponge_1="close counter")
    whitelist = {skill for function in vocabulary_of(world).functions.values() for skill in function.skills.values()}
    env = RecordingEnvironment(world)
    planner = ProgPromptPlanner(smollm2, EXAMPLES, ProgPromptOptions(assert_check=assert_check, max_tokens=160))
    result = run_plan(planner, "bring me a coke", env, max_steps=15)
    assert planner.program_text.startswith("def bring_me_a_coke():\n")
    assert set(env.executed) <= whitelist
    assert result.reason in (EndReason.DONE, EndReason.NO_CANDIDATE, EndReason.MAX_STEPS), result.message
    assert result.message.strip()
    if result.reason == EndReason.NO_CANDIDATE:
        assert result.message.startswith(("the generated program was rejected: line ", "the program stopped: line "))
    else:
        assert planner.program is not None


def test_the_embedded_model_answers_an_assert_question(smollm2: LanguageModel, make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("far counter", holding="coke_1", coke_1="robot"))
    checker = ModelChecker(smollm2, EXAMPLES.feedback)
    verdict = checker.holds(Holding(("coke",)), env)
    assert isinstance(verdict, bool)
    assert checker.holds(Not(Holding(("coke",))), env) is (not verdict)  # scoring is deterministic

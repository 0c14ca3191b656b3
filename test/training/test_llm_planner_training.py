"""Training data of LLM-Planner for the embedded model's adapter: the planner's own prompt (no examples,
the scene line) for the first plan and for a re-plan after completed steps, the oracle plan's rest as the
line it should write, and the loss on that line only."""

from __future__ import annotations

import random

import pytest
from language_model_doubles import ScriptedModel, WordEmbedder
from saycan_doubles import word_tokenizer

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.llm_planner.planner import GenerationOptions, LlmPlanner, LlmPlannerOptions, PlanGenerator
from llm_planner_ros.planning.llm_planner.prompt import LlmPlannerPrompt, PlanExample
from llm_planner_ros.planning.llm_planner.training import UnrunnableStep, encode_plan, plan_example
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.saycan.bank import PlanExample as BankExample
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.planning.skill_projection import SkillProjector
from llm_planner_ros.training.saycan_adapter import plan_sequences
from llm_planner_ros.training.saycan_bank import generate_examples

PROMPT = LlmPlannerPrompt()


@pytest.fixture(scope="module")
def kitchen() -> Domain:
    return load_domain_files()


@pytest.fixture(scope="module")
def bank(kitchen: Domain) -> list[BankExample]:
    return [example for example in generate_examples(kitchen, 30, seed=4) if len(example.steps) >= 3]


def planner(model: ScriptedModel) -> LlmPlanner:
    embedder = WordEmbedder()
    retriever = KnnRetriever([PlanExample("unused", ("done",))], lambda e: e.task, embedder)
    generator = PlanGenerator(model, retriever, PROMPT, GenerationOptions(0, 96, 0.1))
    return LlmPlanner(generator, SkillProjector(embedder), LlmPlannerOptions(scene_context=True))


def test_the_first_plan_is_what_the_planner_prompts_and_runs_to_the_goal(
    kitchen: Domain, bank: list[BankExample]
) -> None:
    for example in bank:
        text, start = plan_example(kitchen, PROMPT, example)
        assert text.endswith("\n") and "\nScene: robot " in text[:start] and "Completed plans" not in text
        model = ScriptedModel([[text[start:]]])
        result = run_plan(planner(model), example.instruction, SimulatedEnvironment(kitchen.world(example.initial)), 30)
        assert [call.prompt for call in model.calls] == [text[:start]], example.id
        assert result.reason == EndReason.DONE, (example.id, result.message)
        assert [step.skill.text for step in result.steps] == list(example.steps), example.id


def test_a_cut_plan_is_the_planners_re_plan_prompt_after_those_steps(kitchen: Domain, bank: list[BankExample]) -> None:
    for example in bank:
        cut = len(example.steps) // 2
        text, start = plan_example(kitchen, PROMPT, example, cut)
        assert f"Completed plans: {', '.join(example.steps[:cut])}\n" in text[:start]
        # The model's first plan stops after `cut` steps without done: the planner re-plans from there.
        first = " " + ", ".join(example.steps[:cut]) + "\n"
        model = ScriptedModel([[first], [text[start:]]])
        result = run_plan(planner(model), example.instruction, SimulatedEnvironment(kitchen.world(example.initial)), 30)
        assert model.calls[1].prompt == text[:start], example.id
        assert [step.skill.text for step in result.steps] == list(example.steps), example.id


def test_a_cut_that_leaves_nothing_or_a_step_that_does_not_run_is_refused(
    kitchen: Domain, bank: list[BankExample]
) -> None:
    example = bank[0]
    with pytest.raises(ValueError, match="completed must be in"):
        plan_example(kitchen, PROMPT, example, len(example.steps))
    broken = BankExample(**{**example.__dict__, "steps": ("pick up the unicorn", *example.steps)})
    with pytest.raises(UnrunnableStep, match="'pick up the unicorn' does not run"):
        plan_example(kitchen, PROMPT, broken, 1)


def test_only_the_plan_tokens_are_targets_and_a_share_is_cut(kitchen: Domain, bank: list[BankExample]) -> None:
    texts = [plan_example(kitchen, PROMPT, example, cut)[0] for example in bank for cut in range(len(example.steps))]
    tokenizer = word_tokenizer(texts)
    text, start = plan_example(kitchen, PROMPT, bank[0])
    sequence = encode_plan(tokenizer, kitchen, PROMPT, bank[0])
    offsets = tokenizer(text, return_offsets_mapping=True)["offset_mapping"]
    assert set(sequence.targets) == {i for i, (_, end) in enumerate(offsets) if end > start}
    all_cut = plan_sequences(tokenizer, bank, 1.0, random.Random(0))
    none_cut = plan_sequences(tokenizer, bank, 0.0, random.Random(0))
    assert all(len(a.targets) < len(b.targets) for a, b in zip(all_cut, none_cut, strict=True))


def test_a_negative_number_of_examples_is_refused() -> None:
    with pytest.raises(ValueError, match="examples \\(K\\) must be 0 or more, got -1"):
        GenerationOptions(-1)

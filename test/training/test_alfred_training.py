"""Training data of the ALFRED adapter: each example of LLM-Planner's ALFRED training set rendered as the
prompt ``bench alfred-hlp`` sends for its instruction (its K nearest other examples), its gold plan as the
line to write, and the loss on that line only."""

from __future__ import annotations

import json

import pytest
from language_model_doubles import WordEmbedder
from saycan_doubles import word_tokenizer

from llm_planner_ros.paths import repo_path
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.llm_planner.alfred_plans import (
    ACTIONS,
    load_examples,
    parse_knn_trajectory,
    parse_plan_text,
)
from llm_planner_ros.planning.llm_planner.alfred_training import alfred_plan_text, alfred_sequences
from llm_planner_ros.planning.llm_planner.planner import GenerationOptions, PlanGenerator
from llm_planner_ros.planning.llm_planner.prompt import LlmPlannerPrompt, PlanExample
from llm_planner_ros.training.saycan_adapter import ALFRED_EXAMPLES

K = 9


@pytest.fixture(scope="module")
def pool() -> list[PlanExample]:
    return load_examples(repo_path(ALFRED_EXAMPLES))


def retriever_of(examples: list[PlanExample]) -> KnnRetriever[PlanExample]:
    return KnnRetriever(examples, lambda example: example.task, WordEmbedder())


def test_the_prompt_is_the_benchs_for_that_instruction_with_the_other_examples(pool: list[PlanExample]) -> None:
    retriever = retriever_of(pool)
    for index in range(0, len(pool), 7):
        example = pool[index]
        text, start = alfred_plan_text(retriever, example, K, LlmPlannerPrompt())
        # The bench's generator over the pool without this example sends exactly the prompt.
        others = retriever_of(pool[:index] + pool[index + 1 :])
        bench = PlanGenerator(None, others, LlmPlannerPrompt(), GenerationOptions(examples=K))  # type: ignore[arg-type]
        assert text[:start] == bench.prompt_for(example.task, ACTIONS)
        assert f"Task description: {example.task}\n" not in text[: text.rindex("Task description:")]
        assert text.endswith("\n") and parse_plan_text(text[start:]) == parse_plan_text(", ".join(example.steps))


def test_the_gold_plan_is_the_training_sets_trajectory(pool: list[PlanExample]) -> None:
    raw = json.loads(repo_path(ALFRED_EXAMPLES).read_text())
    example = pool[0]
    text, start = alfred_plan_text(retriever_of(pool), example, K, LlmPlannerPrompt())
    assert parse_plan_text(text[start:]) == parse_knn_trajectory(raw[0]["gold_traj"])


def test_only_the_plan_tokens_are_targets(pool: list[PlanExample]) -> None:
    retriever = retriever_of(pool)
    chosen = pool[:5]
    texts = [alfred_plan_text(retriever, example, K, LlmPlannerPrompt()) for example in chosen]
    tokenizer = word_tokenizer([text for text, _ in texts])
    for (text, start), sequence in zip(texts, alfred_sequences(tokenizer, retriever, chosen, K), strict=True):
        offsets = tokenizer(text, return_offsets_mapping=True)["offset_mapping"]
        assert set(sequence.targets) == {i for i, (_, end) in enumerate(offsets) if end > start}

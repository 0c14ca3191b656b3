"""ALFRED training plans: each example of LLM-Planner's ALFRED training set (the 100 examples of
``benchmarks/alfred_hlp/llm_planner_knn_set.json``, the benchmark's retrieval pool) rendered as the
static planner's prompt for its goal instruction, followed by its gold plan as the line to write.

The prompt is what ``llm-planner bench alfred-hlp`` sends (``evaluation.alfred_hlp``): the introduction,
ALFRED's high-level actions, the K training examples nearest to the instruction (nearest last), then the
task and ``Next plan:``. An example is never among its own retrieved examples (the K nearest of the other
examples), as an evaluation task is not in the pool. The completion is the plan in the benchmark's
normalized vocabulary, steps joined by ", ", ending with the newline that ends a plan. Only the
completion's tokens are targets. No evaluation task is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_planner_ros.llm.training_sequences import TrainingSequence, completion_sequence
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.llm_planner.alfred_plans import ACTIONS
from llm_planner_ros.planning.llm_planner.prompt import PLAN_STOP, STEP_DELIMITER, LlmPlannerPrompt, PlanExample


def alfred_plan_text(
    retriever: KnnRetriever[PlanExample], example: PlanExample, k: int, prompt: LlmPlannerPrompt
) -> tuple[str, int]:
    """The training text of ``example`` (one of the retriever's pool) after its ``k`` nearest other
    examples, and where its completion starts."""
    nearest_first = [other for other in retriever.nearest(example.task, k + 1) if other is not example][:k]
    text = prompt.render(example.task, ACTIONS, nearest_first[::-1])
    return text + " " + STEP_DELIMITER.join(example.steps) + PLAN_STOP, len(text)


def alfred_sequences(
    tokenizer: Any, retriever: KnnRetriever[PlanExample], chosen: Sequence[PlanExample], k: int
) -> list[TrainingSequence]:
    """Tokenize the chosen pool examples as training plans; the targets are the plan's tokens."""
    prompt = LlmPlannerPrompt()
    return [completion_sequence(tokenizer, *alfred_plan_text(retriever, example, k, prompt)) for example in chosen]

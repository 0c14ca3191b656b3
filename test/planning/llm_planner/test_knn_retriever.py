"""The kNN retriever returns the examples nearest to a query, most similar first."""

from __future__ import annotations

import pytest
from language_model_doubles import WordEmbedder

from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.paths import default_domain_file
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.llm_planner.prompt import load_plan_examples

TASKS = ["wash the red mug", "heat the potato", "put the mug in the sink", "slice the bread", "heat the mug"]


def test_nearest_examples_are_ranked_by_similarity_and_limited_to_k() -> None:
    retriever = KnnRetriever(TASKS, lambda task: task, WordEmbedder())
    assert retriever.nearest("heat the mug", 1) == ["heat the mug"]
    # Shares "heat" and "the" with both: the one sharing "mug" too comes first, then "heat the potato".
    assert retriever.nearest("heat the red mug", 3) == ["heat the mug", "wash the red mug", "heat the potato"]
    ranked = retriever.ranked("heat the red mug")
    similarities = [similarity for _, similarity in ranked]
    assert similarities == sorted(similarities, reverse=True) and len(ranked) == len(TASKS)
    assert retriever.nearest("heat the red mug", 50) == [task for task, _ in ranked]


def test_ties_keep_pool_order() -> None:
    retriever = KnnRetriever(["open a door", "open a box", "open a jar"], lambda task: task, WordEmbedder())
    assert retriever.nearest("open", 3) == ["open a door", "open a box", "open a jar"]


def test_pool_and_k_are_checked() -> None:
    with pytest.raises(ValueError, match="pool is empty"):
        KnnRetriever([], lambda task: task, WordEmbedder())
    with pytest.raises(ValueError, match="k must be at least 1"):
        KnnRetriever(TASKS, lambda task: task, WordEmbedder()).nearest("heat", 0)


@pytest.mark.model
def test_minilm_retrieves_the_kitchen_example_a_request_paraphrases(minilm: Embedder) -> None:
    _, examples = load_plan_examples(default_domain_file("examples/llm_planner.yaml"))
    retriever = KnnRetriever(examples, lambda example: example.task, minilm)
    for example in examples:
        assert retriever.nearest(example.task, 1) == [example]
    nearest = retriever.nearest("Please chuck the old pepsi can into the garbage.", 1)[0]
    assert nearest.task == "Dump the empty pepsi in the bin."
    nearest = retriever.nearest("Stash the energy bar inside the drawer.", 1)[0]
    assert nearest.task == "Put the energy bar away in the drawer."

"""Retrieval of the bank examples nearest to an instruction, and the cache of their vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from language_model_doubles import WordEmbedder

from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.retrieval import ExampleRetriever


def _example(instruction: str) -> PlanExample:
    return PlanExample(instruction, "test", "test", instruction, "Scene: ...", ("done",), {}, {})


BANK = [
    _example(text)
    for text in (
        "bring me a coke",
        "throw away the sponge",
        "put the apple on the table",
        "bring me the apple",
        "go to the trash can",
    )
]


def test_nearest_examples_come_most_similar_first(tmp_path: Path) -> None:
    retriever = ExampleRetriever(BANK, WordEmbedder(), tmp_path / "vectors.npz")
    assert [e.instruction for e in retriever.nearest("please bring me an apple", 2)] == [
        "bring me the apple",
        "bring me a coke",
    ]
    assert [e.instruction for e in retriever.nearest("throw away the coke", 1)] == ["throw away the sponge"]
    assert len(retriever.nearest("anything", 50)) == len(BANK)
    queries = ["please bring me an apple", "throw away the coke"]
    assert retriever.nearest_many(queries, 2) == [retriever.nearest(query, 2) for query in queries]
    with pytest.raises(ValueError, match="at least 1"):
        retriever.nearest("anything", 0)


def test_vectors_are_cached_and_recomputed_when_the_bank_changes(tmp_path: Path) -> None:
    cache = tmp_path / "vectors.npz"
    ExampleRetriever(BANK, WordEmbedder(), cache)
    assert cache.is_file()
    again = WordEmbedder()
    ExampleRetriever(BANK, again, cache)
    assert again.embedded == []  # read back, not embedded
    changed = WordEmbedder()
    retriever = ExampleRetriever([*BANK, _example("hand me the tea")], changed, cache)
    assert len(changed.embedded) == len(BANK) + 1
    assert retriever.nearest("hand me the tea", 1)[0].instruction == "hand me the tea"


def test_an_empty_bank_says_how_to_make_one() -> None:
    with pytest.raises(ValueError, match="llm-planner train saycan-bank"):
        ExampleRetriever([], WordEmbedder())

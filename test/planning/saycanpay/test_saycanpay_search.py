"""SayCanPay's action-level search on scripted models: greedy versus beam, and what Can and Pay change."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from llm_planner_ros.planning.saycanpay.search import beam_search, decoding_score, expand

# Say log-probabilities after each history: "a" looks best first but leads only through "x".
SAY = {
    (): {"a": -0.1, "b": -1.0},
    ("a",): {"x": -3.0, "done": -5.0},
    ("b",): {"done": -0.1, "x": -4.0},
    ("a", "x"): {"done": -0.1},
    ("b", "x"): {"done": -0.1},
}


def say(histories: Sequence[Sequence[str]]) -> list[list[tuple[str, float]]]:
    return [list(SAY[tuple(history)].items()) for history in histories]


def proposals() -> list[tuple[str, float]]:
    return say([()])[0]


def search(k: int, score: str = "say", can=None, pay=None):
    return beam_search(say, can, pay, done="done", score=score, candidates=2, beam_size=k, max_actions=5)


def test_greedy_follows_the_locally_best_action_and_the_beam_finds_the_better_plan() -> None:
    greedy = search(1)
    assert greedy.actions == ("a", "x", "done")
    assert greedy.normalized == pytest.approx((-0.1 - 3.0 - 0.1) / 3)
    beam = search(2)
    assert beam.actions == ("b", "done") and beam.finished
    assert beam.normalized == pytest.approx((-1.0 - 0.1) / 2)
    assert [len(table) for table in beam.tables] == [2, 2]


def test_can_vetoes_an_infeasible_action_for_say_can_but_not_for_say() -> None:
    def can(history: Sequence[str], actions: Sequence[str]) -> list[float]:
        return [0.0 if action == "a" else 1.0 for action in actions]

    assert search(1, "say", can=can).actions[0] == "a"
    assert search(1, "say_can", can=can).actions == ("b", "done")


def test_pay_breaks_a_tie_that_say_and_can_leave() -> None:
    def can(history: Sequence[str], actions: Sequence[str]) -> list[float]:
        return [1.0] * len(actions)

    def pay(history: Sequence[str], actions: Sequence[str]) -> list[float]:
        return [0.9 if action == "b" else 0.01 for action in actions]

    table = expand((), proposals(), can, pay, score="say_can_pay", candidates=2)
    assert [s.action for s in table] == ["b", "a"]
    assert table[0].combined == pytest.approx(-1.0 + math.log(0.9))
    assert [s.action for s in expand((), proposals(), can, pay, score="say_can", candidates=2)] == ["a", "b"]


def test_candidates_are_the_top_m_by_say_and_the_search_checks_its_arguments() -> None:
    assert [s.action for s in expand((), proposals(), None, None, score="say", candidates=1)] == ["a"]
    with pytest.raises(ValueError, match="1 <= beam size k <= candidates m"):
        beam_search(say, None, None, done="done", score="say", candidates=1, beam_size=2, max_actions=3)
    with pytest.raises(ValueError, match="needs the Can and Pay model"):
        beam_search(say, None, None, done="done", score="say_can_pay", candidates=2, beam_size=1, max_actions=3)
    with pytest.raises(ValueError, match="unknown decoding score"):
        decoding_score("pay", 0.0, 1.0, 1.0)


def test_without_a_finished_plan_the_best_unfinished_one_is_returned() -> None:
    plan = beam_search(say, None, None, done="done", score="say", candidates=2, beam_size=2, max_actions=1)
    assert plan.actions == ("a",) and not plan.finished

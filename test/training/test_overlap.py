"""The fairness check: nearest training request per evaluation episode, by word-set Jaccard."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_planner_ros.cli.main import run_command
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.planning.saycan.bank import save_bank
from llm_planner_ros.training.saycan_bank import generate_examples
from llm_planner_ros.training.saycan_overlap import jaccard, nearest_requests, words


def test_words_ignore_case_and_punctuation_but_keep_contractions() -> None:
    assert words("Pick up the 7up, please!") == {"pick", "up", "the", "7up", "please"}
    assert words("I'm thirsty.") == {"i'm", "thirsty"}
    assert jaccard(words("Set the pepsi down."), words("Set down the pepsi")) == 1.0


def test_each_episode_gets_its_most_similar_training_request() -> None:
    found = nearest_requests(
        [("a", "verbs", "Bring me the sponge."), ("b", "long", "Swap the apple and the tea.")],
        ["Bring me the kitchen sponge.", "Throw away the tea.", "Swap the tea and the coke."],
    )
    assert [item.nearest for item in found] == ["Bring me the kitchen sponge.", "Swap the tea and the coke."]
    assert found[0].similarity == pytest.approx(4 / 5)
    assert found[1].similarity == pytest.approx(4 / 6)


def test_an_empty_bank_is_refused() -> None:
    with pytest.raises(ValueError, match="bank is empty"):
        nearest_requests([("a", "verbs", "Bring me the sponge.")], [])


def test_the_command_counts_close_requests_per_family(
    tmp_path: Path, kitchen: Domain, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = tmp_path / "bank.jsonl"
    save_bank(generate_examples(kitchen, 200, seed=1), bank)
    assert run_command(["train", "saycan-overlap", "--bank", str(bank), "--threshold", "0.0"]) == 0
    out = capsys.readouterr().out
    suite = load_episodes("domains/saycan_kitchen/dev.yaml", kitchen)
    long_horizon = sum(episode.family == "long_horizon" for episode in suite)
    assert f"{len(suite)} episodes against" in out and f"similarity >= 0.0: {len(suite)}" in out
    assert f"  long_horizon           {long_horizon}/{long_horizon}" in out
    assert run_command(["train", "saycan-overlap", "--bank", str(bank), "--threshold", "1.01"]) == 0
    assert "similarity >= 1.01: 0" in capsys.readouterr().out

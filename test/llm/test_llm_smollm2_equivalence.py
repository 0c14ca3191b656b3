"""The acceptance check on the real embedded model: prefix-shared SayCan scoring equals one full forward
pass per candidate within 1e-3 nats, on a fresh prompt, on its next step, and on another instruction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from llm_planner_ros.domain import domain_skill_texts
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.naive import naive_token_log_probs
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt

TOLERANCE_NATS = 1e-3

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def saycan(repo_root: Path) -> SayCanPrompt:
    return SayCanPrompt.from_yaml(repo_root / "config" / "saycan_prompt.yaml")


def check_against_naive(loaded: Any, prompt: str, skills: list[str], scores: tuple[float, ...], picks: range) -> None:
    """Naive scores of a spread of candidates (every one costs a full ~1000-token forward)."""
    chosen = [skills[i] for i in picks]
    naive = [sum(terms) for terms in naive_token_log_probs(loaded.model, loaded.tokenizer, prompt, chosen)]
    differences = [abs(scores[i] - expected) for i, expected in zip(picks, naive, strict=False)]
    assert max(differences) <= TOLERANCE_NATS, dict(zip(chosen, differences, strict=False))


def test_saycan_scores_equal_naive_scores_across_steps(
    smollm2: Any, smollm2_lm: HFLanguageModel, saycan: SayCanPrompt, count_forwards: Any
) -> None:
    skills = domain_skill_texts()
    assert len(skills) == 51
    instruction = "I spilled my coke, can you bring me something to clean it up?"

    first_prompt = saycan.render(instruction)
    first = smollm2_lm.score(first_prompt, skills)
    check_against_naive(smollm2, first_prompt, skills, first.log_probs, range(0, 51, 10))

    best = skills[max(range(51), key=first.log_probs.__getitem__)]
    step_prompt = saycan.render(instruction, [best])
    calls = count_forwards(smollm2.model)
    step = smollm2_lm.score(step_prompt, skills)
    ((batch, computed),) = calls
    assert batch == 1
    prompt_tokens = len(smollm2.tokenizer(step_prompt)["input_ids"])
    assert computed < sum(step.token_counts) + 20 < prompt_tokens, "only new tokens and the candidates are computed"
    check_against_naive(smollm2, step_prompt, skills, step.log_probs, range(3, 51, 12))

    other_prompt = saycan.render("Throw away the redbull on the table.")
    other = smollm2_lm.score(other_prompt, skills)
    check_against_naive(smollm2, other_prompt, skills, other.log_probs, range(7, 51, 16))

"""Memory-bounded model calls on a tiny random Llama: many candidates are scored, and many samples drawn,
in forwards of a bounded size, with the same results as one forward for everything."""

from __future__ import annotations

from typing import Any

import pytest
from tiny_llm import KITCHEN_TEXT

from llm_planner_ros.llm.base import InvalidRequestError
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.naive import naive_token_log_probs

PROMPT = "".join(f"{line}\n" for line in KITCHEN_TEXT[:4]) + "Human: Bring me a drink.\nRobot: 1. "
OBJECTS = [
    "coke",
    "apple",
    "tea",
    "sponge",
    "pepsi",
    "redbull",
    "7up",
    "lime soda",
    "rice chips",
    "energy bar",
    "kettle chips",
    "water bottle",
    "jalapeno chips",
    "grapefruit soda",
    "multigrain chips",
]
# 61 candidates, about 300 tokens: many batches under a 24-token budget, one under the default.
CANDIDATES = [
    *(f"{verb} {article} {name}" for name in OBJECTS for verb, article in (("find", "a"), ("pick up", "the"))),
    *(f"go to the {place}" for place in ("table", "far counter", "close counter", "trash can")),
    *(f"put down the {name}" for name in OBJECTS),
    "done",
    "Café crème, naïve résumé!",
    "pick up",  # a prefix of other candidates, here likely in another batch than they are
]
BUDGET = 24


def forward_sizes(calls: list[tuple[int, int]]) -> list[int]:
    assert all(batch == 1 for batch, _ in calls), calls
    return [tokens for _, tokens in calls]


def test_scores_in_bounded_batches_equal_one_forward(tiny_model: Any, tiny_tokenizer: Any, count_forwards: Any) -> None:
    whole = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny").score(PROMPT, CANDIDATES, per_token=True)
    batched_lm = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", score_batch_tokens=BUDGET)
    calls = count_forwards(tiny_model)
    batched = batched_lm.score(PROMPT, CANDIDATES, per_token=True)

    sizes = forward_sizes(calls)
    assert len(sizes) > 10 and max(sizes) <= BUDGET, sizes  # the prompt too is committed in bounded chunks
    assert batched.token_counts == whole.token_counts
    assert batched.log_probs == pytest.approx(whole.log_probs, abs=1e-4)
    assert batched.token_log_probs is not None and whole.token_log_probs is not None
    for terms, expected in zip(batched.token_log_probs, whole.token_log_probs, strict=True):
        assert terms == pytest.approx(expected, abs=1e-4)
    naive = [sum(terms) for terms in naive_token_log_probs(tiny_model, tiny_tokenizer, PROMPT, CANDIDATES[:5])]
    assert batched.log_probs[:5] == pytest.approx(naive, abs=1e-4)


def test_the_cache_after_batches_serves_an_extended_prompt(
    tiny_model: Any, tiny_tokenizer: Any, count_forwards: Any
) -> None:
    batched_lm = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", score_batch_tokens=BUDGET)
    batched_lm.score(PROMPT, CANDIDATES)
    extended = PROMPT + "find a coke, 2. "
    calls = count_forwards(tiny_model)
    batched = batched_lm.score(extended, CANDIDATES[:8])

    # The whole shared context stayed committed: the next step computes only its new tokens.
    assert sum(forward_sizes(calls)) < len(tiny_tokenizer(PROMPT)["input_ids"])
    naive = [sum(terms) for terms in naive_token_log_probs(tiny_model, tiny_tokenizer, extended, CANDIDATES[:8])]
    assert batched.log_probs == pytest.approx(naive, abs=1e-4)


def test_samples_in_bounded_batches_equal_one_batch(tiny_model: Any, tiny_tokenizer: Any, count_forwards: Any) -> None:
    prompt = PROMPT.rstrip()
    whole = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny").generate(prompt, n=7, max_tokens=5)
    # 12 // 5: two samples decoded together, so four batches.
    batched_lm = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", sample_batch_tokens=12)
    calls = count_forwards(tiny_model)
    first = batched_lm.generate(prompt, n=7, max_tokens=5)
    prompt_and_decode = forward_sizes(calls)
    calls.clear()
    again = batched_lm.generate(prompt, n=7, max_tokens=5)  # the prompt is cached now: only decoding runs

    assert max(prompt_and_decode) <= 12, prompt_and_decode  # the prompt too is committed in bounded chunks
    decode = forward_sizes(calls)
    assert max(decode) <= 2 and len(decode) > 4, decode
    for batched in (first, again):
        assert batched.texts == whole.texts  # greedy: every sample is the same continuation
        assert batched.mean_log_probs == pytest.approx(whole.mean_log_probs, abs=1e-4)
    sampled = batched_lm.generate(prompt, n=7, max_tokens=5, temperature=1.0)
    assert len(sampled.texts) == 7 and len(set(sampled.texts)) > 1


def test_a_prompt_beyond_the_window_is_refused_before_any_chunk_runs(
    tiny_model: Any, tiny_tokenizer: Any, count_forwards: Any
) -> None:
    batched_lm = HFLanguageModel(
        tiny_model, tiny_tokenizer, "tiny", score_batch_tokens=BUDGET, sample_batch_tokens=BUDGET
    )
    calls = count_forwards(tiny_model)
    with pytest.raises(InvalidRequestError, match="context window is 256 tokens"):
        batched_lm.score(PROMPT * 8, ["done"])
    with pytest.raises(InvalidRequestError, match="context window is 256 tokens"):
        batched_lm.generate(PROMPT * 8, max_tokens=4)
    assert calls == []

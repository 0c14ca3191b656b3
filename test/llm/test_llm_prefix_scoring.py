"""Prefix-shared scoring on a tiny random Llama: equal to the naive forward pass, cache reuse, bad input."""

from __future__ import annotations

from typing import Any

import pytest
from tiny_llm import KITCHEN_TEXT, build_tiny_model

from llm_planner_ros.llm.base import InvalidRequestError
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.naive import naive_token_log_probs

PROMPT = (
    "".join(f"{line}\n" for line in KITCHEN_TEXT[:6]) + "Human: Throw away the sponge.\nRobot: 1. find a sponge, 2. "
)
CANDIDATES = [
    "pick up the sponge",
    "pick up the coke",
    "pick up",  # a prefix of other candidates: its last token is an inner node of the trie
    "put down the sponge",
    "go to the trash can",
    "done",
    "done",  # duplicates score the same
    " bring it to you",  # leading space: same join as the prompt's trailing space
    "find an apple, 3. go",
    "Café crème 🍵",  # multi-byte characters split across byte-level tokens
]


def naive(model: Any, tokenizer: Any, prompt: str, completions: list[str]) -> list[float]:
    return [sum(terms) for terms in naive_token_log_probs(model, tokenizer, prompt, completions)]


def assert_close(actual: tuple[float, ...], expected: list[float], tolerance: float = 1e-4) -> None:
    assert len(actual) == len(expected)
    worst = max(abs(a - b) for a, b in zip(actual, expected, strict=False))
    assert worst <= tolerance, f"max difference {worst} > {tolerance}: {actual} vs {expected}"


def test_scores_equal_one_forward_per_candidate(tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any) -> None:
    result = tiny_lm.score(PROMPT, CANDIDATES, per_token=True)

    assert_close(result.log_probs, naive(tiny_model, tiny_tokenizer, PROMPT, CANDIDATES))
    assert result.log_probs[5] == pytest.approx(result.log_probs[6])
    assert len(set(result.log_probs)) > 5, "candidates should not all score alike"
    assert result.token_log_probs is not None
    for total, count, terms in zip(result.log_probs, result.token_counts, result.token_log_probs, strict=False):
        assert len(terms) == count > 0
        assert sum(terms) == pytest.approx(total)
        assert all(term <= 0 for term in terms)


def test_one_batch_one_forward_and_the_cache_is_never_copied_per_candidate(
    tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any, count_forwards: Any
) -> None:
    calls = count_forwards(tiny_model)
    tiny_lm.score(PROMPT, CANDIDATES)

    prompt_tokens = len(tiny_tokenizer(PROMPT)["input_ids"])
    candidate_tokens = sum(len(tiny_tokenizer(c)["input_ids"]) + 1 for c in CANDIDATES)
    assert len(calls) == 1
    batch, tokens = calls[0]
    assert batch == 1
    assert tokens < prompt_tokens + candidate_tokens


def test_an_extended_prompt_computes_only_its_new_tokens(
    tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any, count_forwards: Any
) -> None:
    tiny_lm.score(PROMPT, CANDIDATES)
    extended = PROMPT + "pick up the sponge, 3. "
    calls = count_forwards(tiny_model)
    result = tiny_lm.score(extended, CANDIDATES)
    ((batch, tokens),) = calls

    assert_close(result.log_probs, naive(tiny_model, tiny_tokenizer, extended, CANDIDATES))
    new_tokens = len(tiny_tokenizer(extended)["input_ids"]) - len(tiny_tokenizer(PROMPT)["input_ids"])
    candidate_tokens = sum(len(tiny_tokenizer(c)["input_ids"]) for c in CANDIDATES)
    assert batch == 1
    assert tokens <= new_tokens + 2 + candidate_tokens
    assert tokens < len(tiny_tokenizer(PROMPT)["input_ids"])


def test_prompts_that_share_only_a_header_reuse_the_header(
    tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any, count_forwards: Any
) -> None:
    header = "Human: How would you bring me a coke?\nRobot: 1. find a coke, 2. pick up the coke, 3. done.\n"
    first, second = header + "Human: Throw away the tea.\nRobot: 1. ", header + "Human: Bring me a 7up.\nRobot: 1. "
    tiny_lm.score(first, CANDIDATES)
    calls = count_forwards(tiny_model)
    result = tiny_lm.score(second, CANDIDATES)
    ((_, tokens),) = calls

    assert_close(result.log_probs, naive(tiny_model, tiny_tokenizer, second, CANDIDATES))
    new_tokens = len(tiny_tokenizer(second)["input_ids"]) - len(tiny_tokenizer(header)["input_ids"])
    assert tokens <= new_tokens + 2 + sum(len(tiny_tokenizer(c)["input_ids"]) for c in CANDIDATES)


def test_a_shorter_prompt_after_a_longer_one_still_scores_right(
    tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any
) -> None:
    tiny_lm.score(PROMPT + "pick up the sponge, 3. go to the trash can, 4. ", CANDIDATES)
    repeated = tiny_lm.score(PROMPT, CANDIDATES)
    again = tiny_lm.score(PROMPT, CANDIDATES)

    assert_close(repeated.log_probs, naive(tiny_model, tiny_tokenizer, PROMPT, CANDIDATES))
    assert again.log_probs == repeated.log_probs


def test_trailing_space_in_prompt_equals_leading_space_in_completion(tiny_lm: HFLanguageModel) -> None:
    with_trailing = tiny_lm.score(PROMPT, ["pick up the sponge", "done"])
    with_leading = tiny_lm.score(PROMPT.rstrip(" "), [" pick up the sponge", " done"])

    assert with_trailing.token_counts == with_leading.token_counts
    assert with_trailing.log_probs == pytest.approx(with_leading.log_probs, abs=1e-5)


def test_the_straddling_token_belongs_to_the_completion(tiny_lm: HFLanguageModel, tiny_tokenizer: Any) -> None:
    result = tiny_lm.score(PROMPT, ["sponge"])

    # The prompt's trailing space and "sponge" are one token or more of " sponge", never a bare " ".
    assert result.token_counts == (len(tiny_tokenizer(" sponge", add_special_tokens=False)["input_ids"]),)


def test_eager_attention_gives_the_same_scores(tiny_tokenizer: Any) -> None:
    model = build_tiny_model(tiny_tokenizer, attention="eager")
    result = HFLanguageModel(model, tiny_tokenizer, "tiny-eager").score(PROMPT, CANDIDATES)

    assert_close(result.log_probs, naive(model, tiny_tokenizer, PROMPT, CANDIDATES))


@pytest.mark.parametrize(
    ("prompt", "completions", "message"),
    [
        (PROMPT, [], "completions is empty"),
        ("", ["done"], "prompt is empty"),
        (PROMPT, ["done", ""], "completion 1 is empty"),
        (PROMPT, "done", "single str"),
        (PROMPT + "\udcff", ["done"], "not valid UTF-8"),
        (PROMPT, ["done", "caf\udce9"], "completion 1 is not valid UTF-8"),
        (PROMPT * 4, ["done"], "context window"),
    ],
)
def test_bad_requests_are_refused_with_the_reason(
    tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any, prompt: str, completions: Any, message: str
) -> None:
    with pytest.raises(InvalidRequestError, match=message):
        tiny_lm.score(prompt, completions)
    # The model still answers correctly afterwards.
    assert_close(tiny_lm.score(PROMPT, ["done"]).log_probs, naive(tiny_model, tiny_tokenizer, PROMPT, ["done"]))


def test_a_failed_forward_drops_the_cache_and_the_next_call_recovers(
    tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tiny_lm.score(PROMPT, CANDIDATES)
    layer = tiny_model.model.layers[1].mlp
    original = layer.forward

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("simulated out-of-memory")

    monkeypatch.setattr(layer, "forward", failing)
    with pytest.raises(RuntimeError, match="simulated"):
        tiny_lm.score(PROMPT + "done, 3. ", CANDIDATES)
    monkeypatch.setattr(layer, "forward", original)

    extended = PROMPT + "done, 3. "
    assert_close(tiny_lm.score(extended, CANDIDATES).log_probs, naive(tiny_model, tiny_tokenizer, extended, CANDIDATES))

"""Generation on the shared prompt cache: greedy equals a plain decode loop, samples stay independent."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from tiny_llm import KITCHEN_TEXT

from llm_planner_ros.llm.base import InvalidRequestError
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.sampling import PackedSampler
from llm_planner_ros.llm.tokenization import bias_token_ids
from llm_planner_ros.llm.tree_cache import TreeKVCache
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt

PROMPT = "".join(f"{line}\n" for line in KITCHEN_TEXT[:4]) + "Human: Bring me a pepsi.\nRobot:"


def plain_decode(model: Any, prompt_ids: list[int], max_tokens: int, eos: int) -> tuple[list[int], list[float]]:
    """Greedy decoding with a full forward pass per token: the reference for the packed decoder."""
    ids, log_probs = list(prompt_ids), []
    with torch.inference_mode():
        for _ in range(max_tokens):
            row = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0, -1].float(), dim=-1)
            token = int(row.argmax())
            ids.append(token)
            log_probs.append(float(row[token]))
            if token == eos:
                break
    return ids[len(prompt_ids) :], log_probs


def sampler(model: Any, tokenizer: Any, seed: int = 0) -> PackedSampler:
    cache = TreeKVCache(model, model.config.max_position_embeddings)
    generator = torch.Generator().manual_seed(seed)
    return PackedSampler(cache, tokenizer, model.config.vocab_size, {tokenizer.eos_token_id}, generator)


def test_greedy_equals_a_plain_decode_loop(tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any) -> None:
    tokens, log_probs = plain_decode(tiny_model, tiny_tokenizer(PROMPT)["input_ids"], 12, tiny_tokenizer.eos_token_id)
    result = tiny_lm.generate(PROMPT, n=3, max_tokens=12)

    expected = tiny_tokenizer.decode([t for t in tokens if t != tiny_tokenizer.eos_token_id])
    assert result.texts == (expected,) * 3
    assert result.mean_log_probs[0] == pytest.approx(sum(log_probs) / len(log_probs), abs=1e-4)


def test_samples_are_independent_branches_of_the_prompt(tiny_model: Any, tiny_tokenizer: Any) -> None:
    prompt_ids = tiny_tokenizer(PROMPT)["input_ids"]
    samples = sampler(tiny_model, tiny_tokenizer).sample(PROMPT, 5, 10, 1.0, 1.0, (), None)

    assert len({s.tokens for s in samples}) > 1, "temperature 1 should give different samples"
    for sample in samples:
        assert 1 <= len(sample.tokens) <= 10
        with torch.inference_mode():
            logits = tiny_model(input_ids=torch.tensor([prompt_ids + list(sample.tokens)])).logits[0].float()
        rows = torch.log_softmax(logits, dim=-1)[len(prompt_ids) - 1 : -1]
        expected = rows[torch.arange(len(sample.tokens)), torch.tensor(sample.tokens)]
        assert sample.token_log_probs == pytest.approx(expected.tolist(), abs=1e-4)


def test_sampling_is_reproducible_from_the_seed(tiny_model: Any, tiny_tokenizer: Any) -> None:
    first = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", seed=7).generate(
        PROMPT, n=4, max_tokens=8, temperature=0.9
    )
    second = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", seed=7).generate(
        PROMPT, n=4, max_tokens=8, temperature=0.9
    )
    assert first == second


@pytest.mark.parametrize(("temperature", "top_p"), [(1.0, 1e-6), (1e-6, 1.0)])
def test_a_tiny_nucleus_or_temperature_is_greedy(tiny_lm: HFLanguageModel, temperature: float, top_p: float) -> None:
    greedy = tiny_lm.generate(PROMPT, max_tokens=10)
    assert tiny_lm.generate(PROMPT, n=3, max_tokens=10, temperature=temperature, top_p=top_p).texts == greedy.texts * 3


def test_logit_bias_steers_every_token(tiny_model: Any, tiny_tokenizer: Any) -> None:
    biased = set(bias_token_ids(tiny_tokenizer, {"zebra": 100.0}))
    (sample,) = sampler(tiny_model, tiny_tokenizer).sample(PROMPT, 1, 6, 0.0, 1.0, (), {"zebra": 100.0})
    assert set(sample.tokens) <= biased
    # The reported log-probs are the model's own, without the bias.
    assert max(sample.token_log_probs) < 0


def test_interleaved_score_and_generate_share_the_cache(
    tiny_lm: HFLanguageModel, tiny_model: Any, tiny_tokenizer: Any
) -> None:
    before = tiny_lm.generate(PROMPT, max_tokens=6)
    tiny_lm.score(PROMPT + " find a", ["pepsi", "coke"])
    after = tiny_lm.generate(PROMPT, max_tokens=6)
    assert after.texts == before.texts
    assert after.mean_log_probs == pytest.approx(before.mean_log_probs, abs=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0}, "n must be at least 1"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"temperature": -1.0}, "temperature"),
        ({"top_p": 0.0}, "top_p"),
        ({"stop": ","}, "single str"),
        ({"stop": [""]}, "stop string 0 is empty"),
        ({"logit_bias": {"zebra": float("nan")}}, "finite"),
    ],
)
def test_bad_generation_arguments_are_refused(tiny_lm: HFLanguageModel, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRequestError, match=message):
        tiny_lm.generate(PROMPT, **kwargs)


def test_a_continuation_past_the_context_window_is_refused(
    tiny_lm: HFLanguageModel, tiny_model: Any, count_forwards: Any, tiny_tokenizer: Any
) -> None:
    room = tiny_lm.context_window - len(tiny_tokenizer(PROMPT)["input_ids"])
    calls = count_forwards(tiny_model)
    with pytest.raises(InvalidRequestError, match="context window"):
        tiny_lm.generate(PROMPT, max_tokens=room + 2)
    assert calls == [], "the request is refused before any work"
    assert len(tiny_lm.generate(PROMPT, max_tokens=room + 1).texts) == 1


# ----- the real embedded model -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def saycan_prompt(repo_root: Any) -> str:
    prompt = SayCanPrompt.from_yaml(repo_root / "config" / "saycan_prompt.yaml")
    return prompt.render("I spilled my coke, can you bring me something to clean it up?", ["find a sponge"])


@pytest.mark.model
def test_stop_strings_cut_the_text_before_them(smollm2_lm: HFLanguageModel, saycan_prompt: str) -> None:
    free = smollm2_lm.generate(saycan_prompt, max_tokens=16).texts[0]
    stopped = smollm2_lm.generate(saycan_prompt, max_tokens=16, stop=[","]).texts[0]

    assert "," in free
    assert stopped == free[: free.index(",")]


@pytest.mark.model
def test_a_trailing_space_is_healed(smollm2_lm: HFLanguageModel, saycan_prompt: str) -> None:
    assert saycan_prompt.endswith("2. ")
    unhealed = smollm2_lm.generate(saycan_prompt.rstrip(" "), max_tokens=8).texts[0]
    healed = smollm2_lm.generate(saycan_prompt, max_tokens=8).texts[0]

    # Without the space the model itself starts the step with a space token: healing reproduces it.
    assert unhealed.startswith(" ") and not unhealed.startswith("  ")
    assert healed == unhealed[1:]


@pytest.mark.model
def test_generation_ends_at_the_end_of_sequence_token(smollm2: Any) -> None:
    chat = (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nWhat is 2+2? Answer with one number.<|im_end|>\n<|im_start|>assistant\n"
    )
    (sample,) = sampler(smollm2.model, smollm2.tokenizer).sample(chat, 1, 40, 0.0, 1.0, (), None)

    assert sample.tokens[-1] == smollm2.tokenizer.eos_token_id
    assert len(sample.tokens) < 40
    assert sample.text and "<|im_end|>" not in sample.text
    assert sample.mean_log_prob == pytest.approx(sum(sample.token_log_probs) / len(sample.tokens))

"""Test doubles of the SayCan quality tests: a bag-of-words embedder that counts what it embedded,
scoring-only language models (a fixed order of skills, fixed log-probabilities) that record their
prompts, a tiny random Llama and a word-level tokenizer."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from kitchen_domain.world import World
from llm_planner_ros.llm.base import Embedder, GenerationResult, LanguageModel, ScoreResult

MakeWorld = Callable[..., World]


class WordEmbedder(Embedder):
    """Bag-of-words vectors (hashed words, unit length): texts sharing more words are more similar.
    Counts the texts it embedded, so tests can tell whether a cache was used."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                rows[row, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)


class ScoringOnlyModel(LanguageModel):
    """A language model for planners that only score (SayCan, SayCanPay's action strategies): each
    completion gets the single-token log-probability ``log_prob(prompt, completion)`` (stripped), every
    prompt is recorded, and ``generate`` fails the test, since such a planner must never call it."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def log_prob(self, prompt: str, completion: str) -> float:
        raise NotImplementedError

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        self.prompts.append(prompt)
        return ScoreResult.from_token_log_probs([[self.log_prob(prompt, c.strip())] for c in completions], per_token)

    def generate(
        self,
        prompt: str,
        n: int = 1,
        max_tokens: int = 64,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
        logit_bias: Mapping[str, float] | None = None,
    ) -> GenerationResult:
        raise AssertionError(f"{type(self).__name__} scores; the planner under test must not generate")


def saycanpay_history(prompt: str) -> list[str]:
    """The steps a SayCanPay Say prompt lists after its last ``[Goal]`` (``[Step n] <action>`` lines)."""
    return re.findall(r"^\[Step \d+\] (.+)$", prompt.rsplit("[Goal]", 1)[1], flags=re.M)


class PreferringModel(ScoringOnlyModel):
    """Scores each candidate by its rank in ``preferred`` (earlier = likelier; unknown texts last) and
    records every prompt, so tests see exactly what the planner asked."""

    def __init__(self, preferred: Sequence[str]) -> None:
        super().__init__()
        self.preferred = list(preferred)

    def log_prob(self, prompt: str, completion: str) -> float:
        rank = self.preferred.index(completion) if completion in self.preferred else len(self.preferred) + 5
        return -0.5 * rank - 0.1


class FixedModel(ScoringOnlyModel):
    """Gives each completion a fixed log-probability (``log_probs``; others -40 nats): a model far surer
    of its first choice than of anything else, as the adapted 135M model is."""

    def __init__(self, log_probs: Mapping[str, float]) -> None:
        super().__init__()
        self.log_probs = dict(log_probs)

    def log_prob(self, prompt: str, completion: str) -> float:
        return self.log_probs.get(completion, -40.0)


def tiny_llama(layers: int = 3, vocab: int = 300) -> Any:
    """A random-weight Llama of ``layers`` decoder layers (hidden 32): LoRA and training mechanics only."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
    )
    return LlamaForCausalLM(config).eval()


def word_tokenizer(texts: Sequence[str]) -> Any:
    """A fast word-level tokenizer (with character offsets) whose vocabulary is the words of ``texts``."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    split = pre_tokenizers.Whitespace()
    words = sorted({word for text in texts for word, _ in split.pre_tokenize_str(text)})
    vocab = {"<unk>": 0, **{word: index + 1 for index, word in enumerate(words)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>")

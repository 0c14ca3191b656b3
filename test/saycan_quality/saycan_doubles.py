"""Test doubles of the SayCan quality tests: a bag-of-words embedder that counts what it embedded, a
language model that prefers a fixed order of skills and records its prompts, a tiny random Llama and a
word-level tokenizer."""

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


class PreferringModel(LanguageModel):
    """Scores each candidate by its rank in ``preferred`` (earlier = likelier; unknown texts last) and
    records every prompt, so tests see exactly what the planner asked."""

    def __init__(self, preferred: Sequence[str]) -> None:
        self.preferred = list(preferred)
        self.prompts: list[str] = []

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        self.prompts.append(prompt)
        ranks = [self.preferred.index(c) if c in self.preferred else len(self.preferred) + 5 for c in completions]
        return ScoreResult.from_token_log_probs([[-0.5 * rank - 0.1] for rank in ranks], per_token)

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
        raise NotImplementedError("SayCan's scoring tests never generate")


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

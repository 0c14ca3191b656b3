"""Helpers of the SayCan quality tests: the steps of a SayCanPay prompt, a tiny random Llama and a
word-level tokenizer (the language-model doubles are in test/support/language_model_doubles.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from llm_planner_ros.domain.world import World

MakeWorld = Callable[..., World]


def saycanpay_history(prompt: str) -> list[str]:
    """The steps a SayCanPay Say prompt lists after its last ``[Goal]`` (``[Step n] <action>`` lines)."""
    return re.findall(r"^\[Step \d+\] (.+)$", prompt.rsplit("[Goal]", 1)[1], flags=re.M)


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

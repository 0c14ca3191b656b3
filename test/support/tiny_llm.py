"""A tiny byte-level BPE tokenizer and a tiny random-weight Llama, built in-process for mechanics tests."""

from __future__ import annotations

from typing import Any

import torch

KITCHEN_TEXT = [
    "Human: How would you bring me a coke?",
    "Robot: 1. find a coke, 2. pick up the coke, 3. bring it to you, 4. put down the coke, 5. done.",
    "Human: How would you throw away the sponge?",
    "Robot: 1. find a sponge, 2. pick up the sponge, 3. go to the trash can, 4. put down the sponge, 5. done.",
    "Human: Put an apple and an energy bar on the far counter. Café crème, naïve résumé!",
    "Robot: 1. find an apple, 2. pick up the apple, 3. go to the far counter, 4. put down the apple, 5. done.",
    "go to the close counter, go to the table, multigrain chips, kettle chips, jalapeno chips, rice chips",
    "grapefruit soda, lime soda, pepsi, redbull, 7up, tea, water bottle, zebra zebra zebra",
]


def train_tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<eos>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator(KITCHEN_TEXT * 4, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<eos>")


def build_tiny_model(tokenizer: Any, attention: str = "sdpa", context_window: int = 256) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=context_window,
        eos_token_id=tokenizer.eos_token_id,
        attn_implementation=attention,
    )
    model = LlamaForCausalLM(config).eval()
    # Random init gives near-uniform next-token distributions; larger logits make greedy choices and
    # score differences between candidates meaningful for the tests.
    with torch.no_grad():
        model.lm_head.weight.mul_(8.0)
    return model

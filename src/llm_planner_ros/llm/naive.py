"""The reference scorer: one full forward pass per completion, no cache at all.

Slow by design (it recomputes the whole prompt for every candidate). ``llm-planner bench scoring``
times it against the prefix-sharing scorer, and the tests check the two agree. It applies the same
token boundary policy (``tokenization``), so the two compute the same quantity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from llm_planner_ros.llm.tokenization import split_completions


def naive_token_log_probs(model: Any, tokenizer: Any, prompt: str, completions: Sequence[str]) -> list[list[float]]:
    """For each completion, the log-probs of its tokens from a forward pass over its joint tokens alone."""
    result = []
    with torch.inference_mode():
        for split in split_completions(tokenizer, prompt, completions):
            ids = torch.tensor([[*split.context, *split.completion]], device=model.device)
            count = len(split.completion)
            # Logits only where completion tokens are predicted: the rows from the last context token
            # to the one before the last completion token (the last row predicts past the text).
            logits = model(input_ids=ids, logits_to_keep=count + 1).logits[0, :-1]
            log_probs = torch.log_softmax(logits.float(), dim=-1)
            targets = torch.tensor(split.completion, device=model.device)
            result.append(log_probs[torch.arange(count, device=model.device), targets].tolist())
    return result

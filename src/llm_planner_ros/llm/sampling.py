"""Sampling n continuations as branches of the shared prompt cache (the ``hf`` backend's ``generate``).

The prompt goes through the same :class:`TreeKVCache` as scoring, so a prompt that extends the
previous one (or shares its few-shot header) is not recomputed. The n samples are decoded together:
each step feeds one token per unfinished sample as a packed batch-1 forward in which every sample's
token attends to the prompt cache and to its own earlier tokens only; the prompt is never copied.

Memory is bounded by ``batch_tokens``: the cache's branch bookkeeping grows with the square of the
tokens sampled since the prompt (and their K/V linearly), so 2,000 samples decoded together took
6 GB. Samples are decoded in consecutive batches of ``batch_tokens // max_tokens`` (at least one);
the project's planners (at most 10 samples of 12 tokens, or one of 256) need one batch. A prompt
with more new tokens than ``batch_tokens`` is committed in chunks of that size first.

Policies (documented in docs/llm.md):

- Trailing spaces: a prompt ending in spaces ("... 2. ") is a token boundary BPE models rarely see
  (" find" is one token; " " then "find" is odd). The spaces are taken off the prompt and the first
  sampled token is restricted to tokens whose text starts with them ("token healing"); the returned
  text does not repeat them.
- A continuation ends at an end-of-sequence token, at ``max_tokens`` tokens, or when its text
  contains a stop string; the text is cut before the first stop string.
- ``mean_log_prob`` averages the model's own log-probs (no bias, temperature or top-p) of the tokens
  that made the returned text plus the token that ended it (the end-of-sequence token, or the token
  where the stop string begins); with no end, all ``max_tokens`` tokens.
- Grammar: with a grammar (llm.grammar), each sample's next token is restricted to those that keep its
  text in the grammar, and the end-of-sequence token is allowed only where the grammar may end. The
  prompt is then not healed: the grammar decides the text from the prompt's last character on (a
  grammar that wants " pick" after "2." starts with the space).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from llm_planner_ros.llm.base import InvalidRequestError, cut_at_stop
from llm_planner_ros.llm.grammar import GrammarCompiler, GrammarMatcher
from llm_planner_ros.llm.tokenization import bias_token_ids
from llm_planner_ros.llm.tree_cache import TreeKVCache


@dataclass(frozen=True)
class Sample:
    """One continuation: its text, the mean log-prob of the counted tokens (module docstring), and every
    sampled token with the model's log-prob of it (including a final end-of-sequence token)."""

    text: str
    mean_log_prob: float
    tokens: tuple[int, ...]
    token_log_probs: tuple[float, ...]


# 8,192 tokens keep a batch's branch bookkeeping near 64 MB and its K/V under 0.4 GB on SmolLM2.
SAMPLE_BATCH_TOKENS = 8192


class PackedSampler:
    """Draws continuations of prompts from a model behind a :class:`TreeKVCache`.

    ``batch_tokens`` bounds the tokens sampled together (module docstring). Not thread-safe: the owner
    serialises calls. ``generator`` makes sampling reproducible.
    """

    def __init__(
        self,
        cache: TreeKVCache,
        tokenizer: Any,
        vocab_size: int,
        eos_ids: set[int],
        generator: torch.Generator,
        batch_tokens: int = SAMPLE_BATCH_TOKENS,
    ) -> None:
        if batch_tokens < 1:
            raise ValueError(f"batch_tokens must be at least 1, got {batch_tokens}")
        self._batch_tokens = batch_tokens
        self._cache = cache
        self._tokenizer = tokenizer
        self._vocab_size = vocab_size
        self._eos_ids = eos_ids
        self._generator = generator
        self._grammars = GrammarCompiler(tokenizer, vocab_size, eos_ids)
        self._token_texts: list[str] | None = None

    def sample(
        self,
        prompt: str,
        n: int,
        max_tokens: int,
        temperature: float,
        top_p: float,
        stop: Sequence[str],
        logit_bias: Mapping[str, float] | None,
        grammar: str | None = None,
    ) -> list[Sample]:
        """``n`` samples; see the module docstring for the policies."""
        # Compiled before the prompt runs, so a bad grammar costs no forward pass.
        matchers = self._grammars.matchers(grammar, n) if grammar is not None else None
        healed, first_allowed = self._healing(prompt) if grammar is None else ("", None)
        prompt_ids = self._tokenizer(prompt[: len(prompt) - len(healed)])["input_ids"]
        # The last sampled token is never fed back, hence the - 1.
        needed = len(prompt_ids) + max_tokens - 1
        if needed > self._cache.context_window:
            raise InvalidRequestError(
                f"the prompt ({len(prompt_ids)} tokens) plus max_tokens ({max_tokens}) needs {needed} positions "
                "but the "
                f"model's context window is {self._cache.context_window} tokens: lower max_tokens or shorten the prompt"
            )
        reused = self._cache.reuse(prompt_ids)
        fresh = self._cache.prefill(prompt_ids[reused:], self._batch_tokens, self._batch_tokens)
        first = self._cache.extend(fresh, list(range(-1, len(fresh) - 1)), [len(fresh) - 1])
        self._cache.commit(len(fresh))
        bias = self._bias_vector(logit_bias)
        per_batch = max(1, self._batch_tokens // max_tokens)
        samples: list[Sample] = []
        for start in range(0, n, per_batch):
            count = min(per_batch, n - start)
            batch_matchers = None if matchers is None else matchers[start : start + count]
            samples += self._sample_batch(
                first, count, healed, first_allowed, max_tokens, temperature, top_p, stop, bias, batch_matchers
            )
        return samples

    def _sample_batch(
        self,
        first: torch.Tensor,
        n: int,
        healed: str,
        first_allowed: torch.Tensor | None,
        max_tokens: int,
        temperature: float,
        top_p: float,
        stop: Sequence[str],
        bias: torch.Tensor | None,
        matchers: list[GrammarMatcher] | None,
    ) -> list[Sample]:
        """``n`` samples decoded together from the committed prompt, whose last log-prob row is ``first``;
        ``matchers`` (one per sample) restrict each sample's tokens to its grammar."""
        tokens: list[list[int]] = [[] for _ in range(n)]
        log_probs: list[list[float]] = [[] for _ in range(n)]
        node = [-1] * n
        active = list(range(n))
        rows = first.expand(n, -1)
        allowed = first_allowed
        try:
            while active:
                if matchers is not None:
                    allowed = torch.stack([matchers[sample].allowed() for sample in active])
                chosen = self._choose(rows, bias, allowed, temperature, top_p)
                allowed = None
                still = []
                for row, sample in enumerate(active):
                    token = chosen[row]
                    if matchers is not None:
                        matchers[sample].take(token)
                    tokens[sample].append(token)
                    log_probs[sample].append(float(rows[row, token]))
                    if not self._finished(tokens[sample], healed, stop, max_tokens):
                        still.append(sample)
                if not still:
                    break
                base = self._cache.branch_size
                rows = self._cache.extend(
                    [tokens[s][-1] for s in still], [node[s] for s in still], list(range(len(still)))
                )
                for offset, sample in enumerate(still):
                    node[sample] = base + offset
                active = still
        finally:
            self._cache.commit(0)
        return [self._result(tokens[s], log_probs[s], healed, stop) for s in range(n)]

    def _choose(
        self,
        rows: torch.Tensor,
        bias: torch.Tensor | None,
        allowed: torch.Tensor | None,
        temperature: float,
        top_p: float,
    ) -> list[int]:
        scores = rows.detach().to("cpu", copy=True)
        if bias is not None:
            scores += bias
        if allowed is not None:
            # One row for all samples (healing) or one per sample (grammar).
            scores.masked_fill_(~allowed, -math.inf)
        if temperature == 0:
            return scores.argmax(dim=-1).tolist()
        probs = torch.softmax(scores / temperature, dim=-1)
        if top_p < 1:
            ordered, order = probs.sort(dim=-1, descending=True)
            # Keep the smallest head of the sorted distribution whose mass reaches top_p.
            outside = ordered.cumsum(dim=-1) - ordered >= top_p
            ordered[outside] = 0
            probs = torch.zeros_like(probs).scatter_(-1, order, ordered)
        return torch.multinomial(probs, 1, generator=self._generator).squeeze(-1).tolist()

    def _finished(self, tokens: list[int], healed: str, stop: Sequence[str], max_tokens: int) -> bool:
        if tokens[-1] in self._eos_ids or len(tokens) >= max_tokens:
            return True
        return bool(stop) and cut_at_stop(self._visible(tokens, healed), stop)[1] is not None

    def _result(self, tokens: list[int], log_probs: list[float], healed: str, stop: Sequence[str]) -> Sample:
        text, cut = cut_at_stop(self._visible(tokens, healed), stop)
        counted = len(tokens)
        if cut is not None:
            counted = next(k for k in range(1, len(tokens) + 1) if len(self._visible(tokens[:k], healed)) > cut)
        return Sample(text, math.fsum(log_probs[:counted]) / counted, tuple(tokens), tuple(log_probs))

    def _visible(self, tokens: list[int], healed: str) -> str:
        text = self._tokenizer.decode([t for t in tokens if t not in self._eos_ids], skip_special_tokens=True)
        return text[len(healed) :]

    def _bias_vector(self, logit_bias: Mapping[str, float] | None) -> torch.Tensor | None:
        if not logit_bias:
            return None
        vector = torch.zeros(self._vocab_size)
        for token, value in bias_token_ids(self._tokenizer, logit_bias).items():
            if token < self._vocab_size:
                vector[token] += value
        return vector

    def _healing(self, prompt: str) -> tuple[str, torch.Tensor | None]:
        """The prompt's trailing spaces to heal and the first tokens allowed then ("", None: no healing,
        also when no token of the vocabulary starts with those spaces)."""
        spaces = prompt[len(prompt.rstrip(" ")) :]
        if not spaces or spaces == prompt:
            return "", None
        if self._token_texts is None:
            self._token_texts = self._tokenizer.batch_decode([[token] for token in range(len(self._tokenizer))])
        matching = [t for t, text in enumerate(self._token_texts) if t < self._vocab_size and text.startswith(spaces)]
        if not matching:
            return "", None
        allowed = torch.zeros(self._vocab_size, dtype=torch.bool)
        allowed[matching] = True
        return spaces, allowed

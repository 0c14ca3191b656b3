"""Scoring many completions of one prompt in one forward pass that shares the prompt's K/V cache.

How a call runs (see ``tree_cache`` for the cache, ``tokenization`` for the token boundary):

1. Every candidate is tokenized jointly with the prompt and split into context and completion tokens.
   The shared context is the longest token prefix common to all candidates' contexts.
2. The cache keeps its longest common prefix with the shared context: the prompt of the previous
   call (SayCan's previous step, or the same few-shot header under another instruction) is not
   recomputed; only its new tokens are.
3. The new shared-context tokens and every candidate's remaining tokens are arranged as a trie
   (candidates that start alike, "pick up the ...", share their first tokens) and computed in one
   packed forward pass over the cache. A trie node is computed only if it has children: the last
   token of a candidate is scored from its parent's logits and never needs a forward of its own.
4. The shared context is committed to the cache for the next call; the candidate branches are dropped.

Memory is bounded by ``batch_tokens``, the most tokens one forward pass takes: a forward's attention
mask, activations and log-prob rows (one 49k-wide row per scored position on SmolLM2, ~200 KB each)
grow with its token count, so 1,000 candidates in one forward took 8 GB. Candidates are split, in
order, into batches of at most that many tokens, each its own trie rooted at the last shared-context
token (whose logits score the candidates' first tokens); a new context longer than the budget is
committed in chunks first. SayCan's ~51 candidates (~300 tokens) fit one forward with its new context.

The result equals one full forward pass per candidate over its joint tokens (``naive``) up to float
rounding; the test suite checks 1e-3 nats on the embedded model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from llm_planner_ros.llm.base import InvalidRequestError
from llm_planner_ros.llm.tokenization import SplitCompletion, shared_context, split_completions
from llm_planner_ros.llm.tree_cache import TreeKVCache


class _TokenTrie:
    """Token sequences merged on common prefixes; nodes numbered in creation order (parents first)."""

    def __init__(self) -> None:
        self.tokens: list[int] = []
        self.parents: list[int] = []
        self.has_children: list[bool] = []
        self._index: dict[tuple[int, int], int] = {}

    def add(self, parent: int, token: int) -> int:
        """The node for ``token`` under ``parent`` (-1: the root), created if new."""
        key = (parent, token)
        node = self._index.get(key)
        if node is None:
            node = self._index[key] = len(self.tokens)
            self.tokens.append(token)
            self.parents.append(parent)
            self.has_children.append(False)
            if parent >= 0:
                self.has_children[parent] = True
        return node

    def add_path(self, parent: int, tokens: Sequence[int]) -> list[int]:
        nodes = []
        for token in tokens:
            parent = self.add(parent, token)
            nodes.append(parent)
        return nodes


# 1,024 tokens: a forward's log-prob rows take 0.2 GB with SmolLM2's 49k vocabulary, and SayCan's
# whole candidate list with its new prompt tokens still fits one forward.
SCORE_BATCH_TOKENS = 1024


class PrefixSharingScorer:
    """Per-token log p(completion | prompt) for a batch of completions, reusing the cache across calls.

    ``batch_tokens`` bounds the tokens of one forward pass (module docstring); a candidate longer than
    it still gets a forward of its own. Not thread-safe: the owner serialises calls (the cache is
    shared state).
    """

    def __init__(self, cache: TreeKVCache, tokenizer: Any, batch_tokens: int = SCORE_BATCH_TOKENS) -> None:
        if batch_tokens < 2:
            raise ValueError(f"batch_tokens must be at least 2 (a root and a candidate token), got {batch_tokens}")
        self._cache = cache
        self._tokenizer = tokenizer
        self._batch_tokens = batch_tokens

    def token_log_probs(self, prompt: str, completions: Sequence[str]) -> list[list[float]]:
        """For each completion, the log-probs of its tokens (boundary policy: ``tokenization``)."""
        splits = split_completions(self._tokenizer, prompt, completions)
        shared = shared_context(splits)
        if not shared:
            raise InvalidRequestError(
                "the candidates' joint tokenizations differ from the first token on, so they share no context: "
                "end the prompt at a word boundary (e.g. with a space or a newline)"
            )
        reused = self._cache.reuse(shared)
        # Every batch's trie has the last shared token as its root (the 1 of each batch).
        costs = [len(split) - len(shared) for split in splits]
        batches = _batches(costs, self._batch_tokens - 1)
        # The new context joins the first batch's forward, all of it when it fits (the usual case).
        room = max(0, self._batch_tokens - 1 - sum(costs[c] for c in batches[0]))
        head = self._cache.prefill(shared[reused:-1], room, self._batch_tokens)

        result: list[list[float]] = [[] for _ in splits]
        for number, batch in enumerate(batches):
            trie = _TokenTrie()
            chain = trie.add_path(-1, [*head, shared[-1]] if number == 0 else [shared[-1]])
            scored = [self._add_candidate(trie, chain[-1], splits[c], len(shared)) for c in batch]
            for candidate, values in zip(batch, self._forward(trie, scored), strict=True):
                result[candidate] = values
            # The root is committed only after the last batch: each batch recomputes it for its logits.
            self._cache.commit(len(chain) if number == len(batches) - 1 else len(chain) - 1)
        return result

    def _forward(self, trie: _TokenTrie, scored: list[list[int]]) -> list[list[float]]:
        """One forward over ``trie``; the log-probs of each candidate's completion nodes ``scored``."""
        # Only nodes with children go through the model (leaves are scored from their parent's row).
        computed = [node for node in range(len(trie.tokens)) if trie.has_children[node]]
        slot = {node: position for position, node in enumerate(computed)}
        rows = sorted({slot[trie.parents[node]] for nodes in scored for node in nodes})
        row_of = {position: row for row, position in enumerate(rows)}
        log_probs = self._cache.extend(
            [trie.tokens[node] for node in computed],
            [slot.get(trie.parents[node], -1) for node in computed],
            rows,
        )
        flat_nodes = [node for nodes in scored for node in nodes]
        picked = log_probs[
            torch.tensor([row_of[slot[trie.parents[node]]] for node in flat_nodes]),
            torch.tensor([trie.tokens[node] for node in flat_nodes]),
        ].tolist()
        result, start = [], 0
        for nodes in scored:
            result.append(picked[start : start + len(nodes)])
            start += len(nodes)
        return result

    @staticmethod
    def _add_candidate(trie: _TokenTrie, chain_end: int, split: SplitCompletion, shared: int) -> list[int]:
        """Add a candidate's tokens after the shared context; returns the nodes of its completion tokens."""
        context_end = trie.add_path(chain_end, split.context[shared:])
        return trie.add_path(context_end[-1] if context_end else chain_end, split.completion)


def _batches(costs: Sequence[int], budget: int) -> list[list[int]]:
    """Consecutive indices of ``costs`` grouped so that each group's total is at most ``budget`` (a
    single cost above it gets a group of its own)."""
    batches: list[list[int]] = [[]]
    total = 0
    for index, cost in enumerate(costs):
        if batches[-1] and total + cost > budget:
            batches.append([])
            total = 0
        batches[-1].append(index)
        total += cost
    return batches

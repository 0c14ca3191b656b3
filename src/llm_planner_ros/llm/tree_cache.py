"""A K/V cache of committed token sequences, extended by token trees in single packed forward passes.

Why: SayCan scores ~50 skill texts after the same ~1000-token prompt, at every step, and each step's
prompt extends the last one. Running the prompt once per candidate costs ~50 full forwards; copying
its cache into a batch of 50 still moves 50 copies of it through every layer. Here the candidates
never get a batch row of their own: their tokens are packed into ONE sequence of batch size 1 placed
after the committed prompt, each token attending to the whole committed cache and to its own
ancestors only (a 4D additive attention mask), at the position it would have in its own sequence
(explicit position ids). The committed K/V are stored once and read by every branch, never copied per
branch; the branch tokens form a tree, so a token shared by several branches is computed once.

Several committed sequences (``slots``): clients whose prompts differ in their tails (robots sharing
one model service, each with its own scene and instruction after the same examples) would otherwise
evict each other's tail at every call and recompute it. The cache keeps up to ``slots`` committed
sequences; a call continues the one sharing the longest token prefix with its context. When that
would cut a sequence short by more than ``FORK_MIN_TOKENS`` (a different tail), the call forks the
shared part into a free slot, or into the least recently used one, and the other sequence stays
whole for its client's next call.
Each slot holds its own K/V (about 46 KB per token for SmolLM2-135M), so memory is bounded by
``slots`` times the longest prompt.

Lifecycle of one call:

1. ``reuse(context)``: pick the slot (above) and keep the cached K/V of the longest common token
   prefix of its sequence and ``context`` (at least one token of ``context`` is left to compute,
   because its logits are needed), drop the rest and any branches left over.
2. ``prefill(tokens, keep, chunk)``, when the new context is long: commit all but its last ``keep``
   tokens in forwards of at most ``chunk`` tokens, so no forward's memory grows with the prompt.
3. ``extend(tokens, parents, logits_at)``, once or more: one forward over new tokens, token i being a
   child of branch token ``parents[i]`` (-1: of the committed sequence's end). Returns log-probs at
   the requested rows.
4. ``commit(count)``: the first ``count`` branch tokens (which must form a chain from the committed
   end) join the committed sequence; every other branch token is dropped from the cache.

If a forward fails the slot's cache is dropped (it may be half-updated), so the next call recomputes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from llm_planner_ros.llm.base import InvalidRequestError, ModelLoadError
from llm_planner_ros.llm.tokenization import common_prefix_length

# A call that would cut a sequence by at most this many tokens continues it in place: a prompt that
# extends the last one often re-tokenizes its last token or two, and a new instruction after the same
# scene changes a few; recomputing them is cheaper than a slot, and another client's tail (its scene
# line and instruction) is longer.
FORK_MIN_TOKENS = 16


@dataclass
class _Slot:
    """One committed token sequence and its K/V; ``used`` orders slots by their last call."""

    cache: Any
    committed: list[int] = field(default_factory=list)
    used: int = 0


class TreeKVCache:
    """Committed token sequences of a causal LM with their K/V (up to ``slots``), plus the branches
    of the current call on the sequence it continues."""

    def __init__(self, model: Any, context_window: int, slots: int = 1) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, got {slots}")
        self._model = model
        self.context_window = context_window
        self.slots = slots
        self._calls = 0
        self._slots: list[_Slot] = []
        self._active = self._new_slot()
        self._reset_branches()

    @property
    def slots_used(self) -> int:
        """How many committed sequences the cache holds."""
        return len(self._slots)

    @property
    def committed(self) -> tuple[int, ...]:
        """The token ids whose K/V are cached and kept between calls."""
        return tuple(self._committed)

    @property
    def branch_size(self) -> int:
        """How many branch tokens the cache holds since the last commit (the next one gets this index)."""
        return len(self._branch_tokens)

    def reuse(self, context: Sequence[int]) -> int:
        """Continue the slot sharing the longest prefix with ``context`` (module docstring), keeping that
        prefix (all but the context's last token at most); returns its length."""
        if not context:
            raise ValueError("reuse() needs a non-empty context")
        self.commit(0)
        shared = [min(common_prefix_length(slot.committed, context), len(context) - 1) for slot in self._slots]
        best = max(range(len(self._slots)), key=lambda i: (shared[i], self._slots[i].used))
        keep = shared[best]
        source = self._slots[best]
        target = source
        if len(source.committed) - keep > FORK_MIN_TOKENS:
            # Cutting ``source`` short would lose another client's tail: fork into a free or the oldest slot.
            if len(self._slots) < self.slots:
                target = self._new_slot()
            else:
                target = min(self._slots, key=lambda slot: slot.used)
            if target is not source:
                target.cache = self._copy(source.cache, keep)
                target.committed = source.committed[:keep]
        self._calls += 1
        target.used = self._calls
        self._active = target
        self._truncate(keep)
        del self._committed[keep:]
        return keep

    def extend(self, tokens: Sequence[int], parents: Sequence[int], logits_at: Sequence[int]) -> torch.Tensor:
        """One packed forward over ``tokens``; log-softmax rows (float32, [len(logits_at), vocab]).

        ``parents[i]`` indexes all branch tokens since the last commit, this call's included (it must
        be smaller than the token's own index), or is -1 for a child of the committed sequence's end.
        ``logits_at`` indexes this call's tokens. InvalidRequestError when a position would reach the
        context window.
        """
        if len(tokens) != len(parents):
            raise ValueError(f"{len(tokens)} tokens but {len(parents)} parents")
        committed, before = len(self._committed), len(self._branch_tokens)
        total = before + len(tokens)
        ancestors = torch.zeros(total, total, dtype=torch.bool)
        ancestors[:before, :before] = self._ancestors
        depth = list(self._branch_depth)
        for offset, parent in enumerate(parents):
            index = before + offset
            if not -1 <= parent < index:
                raise ValueError(f"branch token {index} has parent {parent}: parents must come before children")
            if parent >= 0:
                ancestors[index] = ancestors[parent]
            ancestors[index, index] = True
            depth.append(0 if parent < 0 else depth[parent] + 1)
        positions = [committed + d for d in depth[before:]]
        if positions:
            self._check_window(max(positions) + 1)
        device, dtype = self._model.device, self._model.dtype
        # Additive mask: 0 where a query may attend, the dtype's minimum elsewhere (works with every
        # attention implementation, unlike a boolean mask that eager attention would add as 0/1).
        mask = torch.zeros(1, 1, len(tokens), committed + total, dtype=dtype, device=device)
        mask[0, 0, :, committed:].masked_fill_(~ancestors[before:].to(device), torch.finfo(dtype).min)
        try:
            with torch.inference_mode():
                output = self._model(
                    input_ids=torch.tensor([list(tokens)], device=device),
                    attention_mask=mask,
                    position_ids=torch.tensor([positions], device=device),
                    past_key_values=self._cache,
                    use_cache=True,
                    logits_to_keep=torch.tensor(list(logits_at), dtype=torch.long, device=device),
                )
                logits = output.logits[0].float()
                # In place: a vocabulary-wide row per scored token is the largest buffer of a forward.
                log_probs = logits.sub_(torch.logsumexp(logits, dim=-1, keepdim=True))
        except BaseException:
            self._active.cache, self._active.committed = self._empty_cache(), []
            self._reset_branches()
            raise
        self._branch_tokens.extend(tokens)
        self._branch_depth = depth
        self._ancestors = ancestors
        return log_probs

    def prefill(self, tokens: Sequence[int], keep: int, chunk: int) -> Sequence[int]:
        """Commit all but the last ``keep`` of ``tokens`` in forwards of at most ``chunk`` tokens (no
        logits); returns the last ``keep`` tokens, for the caller's own forward.

        Why chunks: one forward's attention mask and activations grow with its token count times the
        cache length, so a long new prompt in one forward needs memory quadratic in its length.
        """
        # Checked before any chunk runs: a prompt beyond the window must not cost a window's worth of forwards.
        self._check_window(len(self._committed) + len(tokens))
        cut = max(0, len(tokens) - keep)
        for start in range(0, cut, chunk):
            part = tokens[start : min(start + chunk, cut)]
            self.extend(part, list(range(-1, len(part) - 1)), [])
            self.commit(len(part))
        return tokens[cut:]

    def commit(self, count: int) -> None:
        """Move the first ``count`` branch tokens into the committed sequence; drop all other branch tokens."""
        if any(depth != index for index, depth in enumerate(self._branch_depth[:count])):
            raise ValueError(f"the first {count} branch tokens are not a chain from the committed sequence's end")
        self._committed.extend(self._branch_tokens[:count])
        self._truncate(len(self._committed))
        self._reset_branches()

    def _check_window(self, positions: int) -> None:
        if positions > self.context_window:
            raise InvalidRequestError(
                f"the prompt and its continuation need {positions} positions but the model's context window "
                f"is {self.context_window} tokens: shorten the prompt (e.g. fewer examples) or the continuation"
            )

    @property
    def _cache(self) -> Any:
        return self._active.cache

    @property
    def _committed(self) -> list[int]:
        return self._active.committed

    def _truncate(self, length: int) -> None:
        surplus = self._cache.get_seq_length() - length
        if surplus > 0:
            # Cropping slices the layers' tensors (views): no copy of what is kept.
            self._cache.crop(-surplus)

    def _new_slot(self) -> _Slot:
        slot = _Slot(self._empty_cache())
        self._slots.append(slot)
        return slot

    def _copy(self, source: Any, length: int) -> Any:
        """A new cache holding the first ``length`` positions of ``source`` (cloned: the two then grow apart)."""
        cache = self._empty_cache()
        if length > 0:
            for index, layer in enumerate(source.layers):
                cache.update(layer.keys[..., :length, :].clone(), layer.values[..., :length, :].clone(), index)
        return cache

    def _empty_cache(self) -> Any:
        from transformers import DynamicCache
        from transformers.cache_utils import DynamicLayer

        cache = DynamicCache(config=self._model.config)
        unsupported = {type(layer).__name__ for layer in cache.layers if type(layer) is not DynamicLayer}
        if unsupported:
            raise ModelLoadError(
                f"the model's cache uses {', '.join(sorted(unsupported))}: prefix-shared scoring supports models whose "
                "layers all use full attention (DynamicLayer); pick a model without sliding-window or linear attention"
            )
        return cache

    def _reset_branches(self) -> None:
        self._branch_tokens: list[int] = []
        self._branch_depth: list[int] = []
        self._ancestors = torch.zeros(0, 0, dtype=torch.bool)

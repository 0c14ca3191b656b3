"""The ``hf`` backend: a local Hugging Face causal LM, scored and sampled in this process.

Scoring shares the prompt's K/V cache across candidates and across calls (``prefix_scorer``);
sampling runs as branches of the same cache (``sampling``). The cache keeps ``cache_slots`` prompts,
so clients with different prompts (several robots) each find theirs cached (``tree_cache``). One lock
serialises calls, because the cache is state shared by all of them. Loading (folders, GGUF, the
embedded default) is ``hf_loading``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from llm_planner_ros.llm.base import (
    GenerationResult,
    LanguageModel,
    MergedAdapter,
    RankedScores,
    RankRequest,
    ScoreResult,
    check_generate_request,
    check_rank_request,
    check_score_request,
)
from llm_planner_ros.llm.prefix_scorer import SCORE_BATCH_TOKENS, PrefixSharingScorer
from llm_planner_ros.llm.ranked_scorer import RankedScorer
from llm_planner_ros.llm.sampling import SAMPLE_BATCH_TOKENS, PackedSampler
from llm_planner_ros.llm.tree_cache import TreeKVCache


class HFLanguageModel(LanguageModel):
    """A loaded causal LM (float32, eval mode) with its fast tokenizer.

    ``context_window`` defaults to the model's ``max_position_embeddings``; ``seed`` seeds sampling, so
    the same sequence of calls gives the same samples. ``cache_slots``: prompts whose K/V are kept
    between calls (``tree_cache``); with more than one, ranked requests with different prompts run
    one after the other, each continuing its own cached prompt, instead of in shared forwards that
    recompute every prompt's tail (the better trade on a CPU; 1 batches them, which suits a GPU).
    ``score_batch_tokens`` and ``sample_batch_tokens`` bound the tokens of one scoring forward and of
    one batch of samples (the memory of a call; ``prefix_scorer``, ``sampling``).
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        name: str,
        context_window: int | None = None,
        seed: int = 0,
        score_batch_tokens: int = SCORE_BATCH_TOKENS,
        sample_batch_tokens: int = SAMPLE_BATCH_TOKENS,
        cache_slots: int = 1,
        adapter: Path | None = None,
    ) -> None:
        self._name = name
        self._adapter = MergedAdapter.of_file(adapter)
        self._lock = threading.Lock()
        window = context_window or getattr(model.config, "max_position_embeddings", None)
        if not window:
            raise ValueError(f"{name} does not state its context window: pass context_window")
        self._cache = TreeKVCache(model.eval(), int(window), cache_slots)
        self._scorer = PrefixSharingScorer(self._cache, tokenizer, score_batch_tokens)
        self._ranked = RankedScorer(self._cache, tokenizer, score_batch_tokens)
        generator = torch.Generator().manual_seed(seed)
        self._sampler = PackedSampler(
            self._cache, tokenizer, model.config.vocab_size, _eos_ids(model, tokenizer), generator, sample_batch_tokens
        )

    @property
    def name(self) -> str:
        return self._name

    @property
    def adapter(self) -> MergedAdapter:
        return self._adapter

    @property
    def context_window(self) -> int:
        return self._cache.context_window

    @property
    def cached_prompts(self) -> int:
        """How many prompts' K/V the cache holds now (at most ``cache_slots``)."""
        return self._cache.slots_used

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        check_score_request(prompt, completions)
        with self._lock:
            terms = self._scorer.token_log_probs(prompt, completions)
        return ScoreResult.from_token_log_probs(terms, per_token)

    def score_ranked(self, requests: Sequence[RankRequest]) -> list[RankedScores]:
        """Branch and bound over the candidates' token trie, all requests in the same forwards
        (``ranked_scorer``): exact top-``keep`` of each request at a fraction of the tokens."""
        for request in requests:
            check_rank_request(request)
        if not requests:
            return []
        if self._cache.slots == 1:
            with self._lock:
                return self._ranked.rank(requests)
        by_prompt: dict[str, list[int]] = {}
        for index, request in enumerate(requests):
            by_prompt.setdefault(request.prompt, []).append(index)
        answers: dict[int, RankedScores] = {}
        with self._lock:
            for indices in by_prompt.values():
                answers.update(zip(indices, self._ranked.rank([requests[i] for i in indices]), strict=True))
        return [answers[index] for index in range(len(requests))]

    def generate(
        self,
        prompt: str,
        n: int = 1,
        max_tokens: int = 64,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
        logit_bias: Mapping[str, float] | None = None,
        grammar: str | None = None,
    ) -> GenerationResult:
        check_generate_request(prompt, n, max_tokens, temperature, top_p, stop, logit_bias, grammar)
        with self._lock:
            samples = self._sampler.sample(prompt, n, max_tokens, temperature, top_p, stop, logit_bias, grammar)
        return GenerationResult(tuple(s.text for s in samples), tuple(s.mean_log_prob for s in samples))


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    """End-of-sequence ids: the tokenizer's and the generation config's (an int or a list)."""
    configured = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    ids = configured if isinstance(configured, list) else [configured]
    return {i for i in [*ids, tokenizer.eos_token_id] if i is not None}

"""Weighted ranking of completions: score only the candidates that can reach the top ``keep``.

SayCan ranks every skill by ``p_LLM(skill) x affordance(skill)`` (arXiv 2204.01691, eq. 1) and keeps
the best (greedy) and a table of the ``keep`` best. A rank request gives the prompt, the candidate
texts, one non-negative weight per candidate (the affordance) and ``keep``; the answer holds the
exact log-probability of every candidate that can be among the ``keep`` best and None for the
others, which are provably outside them.

Why that is exact (the bound): a candidate's log-probability is a sum of token log-probs, each <= 0,
so the partial sum over its first tokens is an upper bound of the whole, and ``exp(partial) x
weight`` bounds its weighted score (with no token scored, the bound is the weight itself, since
p <= 1). A candidate, or a whole subtree of candidates sharing their first tokens, is dropped once
its bound is below the ``keep``-th best weighted score already known, by a margin of
``PRUNE_MARGIN_NATS`` so that float rounding between differently batched forwards (~1e-5 nats)
cannot flip a decision. The ``keep`` best of the answer are then the ``keep`` best of scoring every
candidate, in the same order (``ranked_indices``: weighted score descending, candidate index
ascending on ties, which is Python's stable sort of the full list).

Normalisation: SayCan's product uses the raw p_LLM. A softmax over the candidates' scores would
divide every candidate by the same sum, which changes no ranking, so the bound applies to the ranks
under either; the normalised values themselves need every candidate's score and are not computed.

Zero weights: a weight-0 candidate has weighted score 0 whatever its text's probability, so it can
enter the ``keep`` best only when fewer than ``keep`` candidates have a positive weight; then the
first such candidates in index order are scored (the exhaustive order), the rest never.

Backends: the ``hf`` backend searches the candidates' token trie best-first and prunes subtrees
(``ranked_scorer``); every other backend scores all candidates (``LanguageModel.score_ranked``'s
default), which is exact too, just not faster.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from llm_planner_ros.llm.base import RankRequest

# 1e-3 nats: the tolerance the test suite holds scores to across batchings (measured ~1e-5).
PRUNE_MARGIN_NATS = 1e-3


def candidates_to_search(request: RankRequest) -> list[int]:
    """The candidates a ranking must consider: every positive weight, plus the first zero-weight
    candidates (index order) when fewer than ``keep`` weights are positive (module docstring)."""
    positive = [i for i, weight in enumerate(request.weights) if weight > 0]
    missing = request.keep - len(positive)
    if missing <= 0:
        return positive
    zeros = [i for i, weight in enumerate(request.weights) if weight <= 0][:missing]
    return sorted(positive + zeros)


def ranked_indices(log_probs: Sequence[float | None], weights: Sequence[float]) -> list[int]:
    """Scored candidates best first: weighted score descending, index ascending on ties."""
    scored = [i for i, value in enumerate(log_probs) if value is not None]
    return sorted(scored, key=lambda i: (-math.exp(log_probs[i]) * weights[i], i))  # type: ignore[operator]


class TopKeeper:
    """The ``keep`` best weighted scores known so far, and whether a bound can still reach them."""

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._best: list[float] = []  # a min-heap of the best weighted scores

    def add(self, weighted: float) -> None:
        if len(self._best) < self._keep:
            heapq.heappush(self._best, weighted)
        elif weighted > self._best[0]:
            heapq.heapreplace(self._best, weighted)

    def excludes(self, log_bound: float) -> bool:
        """True when a candidate whose weighted score is at most ``exp(log_bound)`` cannot be among
        the ``keep`` best (it is below the keep-th best by more than the margin)."""
        if len(self._best) < self._keep or self._best[0] <= 0.0:
            return False
        return log_bound + PRUNE_MARGIN_NATS < math.log(self._best[0])


def log_weight(weight: float) -> float:
    return math.log(weight) if weight > 0 else -math.inf

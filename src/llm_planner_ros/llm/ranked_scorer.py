"""Branch and bound over the candidates' token trie: exact weighted top-k with few forwards.

The ``hf`` backend's answer to rank requests (``ranking``): every candidate that can be among the
``keep`` best is scored exactly, the others are pruned, whole subtrees at a time. How a call runs:

1. Each request's candidates to consider (``ranking.candidates_to_search``: the positive weights) are
   tokenized jointly with its prompt (``tokenization``); the context shared by all requests' candidates
   is reused from the cache and its new tokens are prefilled, as in ``prefix_scorer``.
2. The rest of every candidate (its request's own context tail, then its completion tokens) goes into
   one token trie. Each request has its own subtree under the shared root, so several planners' prompts
   (one robot each) run in the same forwards. Every node knows the largest weight below it.
3. Best-first search: a node whose log-prob is known (its parent was computed) has the bound
   ``partial log-prob + log(max weight below it)``; the frontier's best nodes, at most ``expand`` per
   forward, are computed in one packed forward over the cache (``TreeKVCache.extend``: each attends to
   the prompt and its own ancestors), which gives the log-probs of all their children. A candidate is
   done when its last token's log-prob is known; a node whose bound cannot reach its request's
   ``keep``-th best (``ranking.TopKeeper``) is dropped with everything under it.
4. A selected node whose inner subtree is small (``LOOKAHEAD_TOKENS``) takes that subtree into the
   same forward (a few tokens cost less than another forward); a request that can prune nothing
   (``keep`` >= its candidates, e.g. a plain score) or whose trie is small (``WHOLE_BELOW_TOKENS``)
   always does, as ``prefix_scorer`` does: its whole trie goes into the first forward. A request's
   own prompt tail (batched requests share only their common prefix) cannot be pruned before its
   end, so it goes into one forward too, with the first completion words under it.
5. The shared context is committed for the next call; every branch is dropped.

Memory is bounded by the forward size (``expand`` nodes, or ``batch_tokens`` for subtrees): one
vocabulary-wide log-prob row per computed node. The cache's branch bookkeeping grows with the nodes
computed in the call (a bool matrix of their count squared: 9 MB for 3,000 nodes).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import Any

from llm_planner_ros.llm.base import InvalidRequestError, RankedScores, RankRequest
from llm_planner_ros.llm.prefix_scorer import SCORE_BATCH_TOKENS
from llm_planner_ros.llm.ranking import TopKeeper, candidates_to_search, log_weight
from llm_planner_ros.llm.tokenization import shared_context, split_completions
from llm_planner_ros.llm.tree_cache import TreeKVCache

# Nodes per forward while searching: a forward costs a fixed ~10-20 ms on the CPU plus ~1.5 ms per
# token, so a few dozen nodes per forward keep the number of forwards (the trie's depth) low without
# computing many nodes that a higher threshold would have pruned.
EXPAND_PER_FORWARD = 48
# A frontier node whose inner subtree has at most this many nodes ("bring it to you", an object's
# last tokens) is computed with its whole subtree in one forward: a few more tokens cost less than
# another forward over the cache.
LOOKAHEAD_TOKENS = 4
# A request whose candidates' trie has at most this many inner nodes is computed whole, in one forward:
# on the CPU a forward's fixed cost is worth ~20 tokens, so pruning a small trie costs more than it saves.
WHOLE_BELOW_TOKENS = 64


class _Trie:
    """The candidates' remaining tokens under one root (node 0, the last shared-context token)."""

    def __init__(self) -> None:
        self.tokens: list[int] = [-1]
        self.parents: list[int] = [-1]
        self.scored: list[bool] = [False]  # a completion token (its log-prob counts) or context
        self.group: list[int] = [-1]
        self.children: list[list[int]] = [[]]
        self.max_log_weight: list[float] = [-math.inf]
        self.ends: list[list[tuple[int, int]]] = [[]]  # (group, candidate) ending at the node
        self._index: dict[tuple[int, int, bool, int], int] = {}

    def add(self, group: int, candidate: int, context: Sequence[int], completion: Sequence[int], weight: float) -> None:
        node = 0
        for token, scored in [*((t, False) for t in context), *((t, True) for t in completion)]:
            key = (node, token, scored, group if node == 0 else -1)
            child = self._index.get(key)
            if child is None:
                child = self._index[key] = len(self.tokens)
                self.tokens.append(token)
                self.parents.append(node)
                self.scored.append(scored)
                self.group.append(group)
                self.children.append([])
                self.max_log_weight.append(-math.inf)
                self.ends.append([])
                self.children[node].append(child)
            node = child
            self.max_log_weight[node] = max(self.max_log_weight[node], weight)
        self.ends[node].append((group, candidate))


class RankedScorer:
    """Exact weighted top-k of one or more rank requests in shared forwards (module docstring).

    Not thread-safe: the owner serialises calls (the cache is shared state).
    """

    def __init__(
        self,
        cache: TreeKVCache,
        tokenizer: Any,
        batch_tokens: int = SCORE_BATCH_TOKENS,
        expand: int = EXPAND_PER_FORWARD,
    ) -> None:
        if expand < 1 or batch_tokens < 2:
            raise ValueError(f"expand must be >= 1 and batch_tokens >= 2, got {expand} and {batch_tokens}")
        self._cache = cache
        self._tokenizer = tokenizer
        self._batch_tokens = batch_tokens
        self._expand = expand

    def rank(self, requests: Sequence[RankRequest]) -> list[RankedScores]:
        chosen = [candidates_to_search(request) for request in requests]
        splits = [
            split_completions(self._tokenizer, request.prompt, [request.completions[i] for i in indices])
            for request, indices in zip(requests, chosen, strict=True)
        ]
        shared = shared_context(split for group in splits for split in group)
        if not shared:
            raise InvalidRequestError(
                "the candidates' joint tokenizations differ from the first token on, so they share no context: "
                "end the prompt at a word boundary (e.g. with a space or a newline)"
            )
        trie = _Trie()
        for group, (request, indices, group_splits) in enumerate(zip(requests, chosen, splits, strict=True)):
            for candidate, split in zip(indices, group_splits, strict=True):
                trie.add(
                    group,
                    candidate,
                    split.context[len(shared) :],
                    split.completion,
                    log_weight(request.weights[candidate]),
                )
        reused = self._cache.reuse(shared)
        head = self._cache.prefill(shared[reused:-1], self._batch_tokens // 2, self._batch_tokens)
        search = _Search(self._cache, trie, requests, chosen, self._batch_tokens, self._expand)
        try:
            computed = search.run(head, shared[-1])
        finally:
            # The shared context stays for the next call; every candidate branch is dropped.
            self._cache.commit(len(head) + 1 if self._cache.branch_size > len(head) else 0)
        return [search.result(group, computed) for group in range(len(requests))]


class _Search:
    """One best-first search over ``trie`` (see the module docstring)."""

    def __init__(
        self,
        cache: TreeKVCache,
        trie: _Trie,
        requests: Sequence[RankRequest],
        chosen: Sequence[Sequence[int]],
        batch_tokens: int,
        expand: int,
    ) -> None:
        self._cache = cache
        self._trie = trie
        self._requests = requests
        self._batch_tokens = batch_tokens
        self._expand = expand
        size = len(trie.tokens)
        self._log_prob = [0.0] * size  # of the completion tokens from the root to the node
        self._term = [0.0] * size
        self._branch = [-1] * size  # the node's index among the cache's branch tokens, once computed
        self._keepers = [TopKeeper(request.keep) for request in requests]
        # A request that keeps all it considers prunes nothing, and pruning a small trie saves less than
        # the forwards it costs: such a request's subtrees go into forwards whole.
        inner = [0] * len(requests)
        for node in range(1, size):
            inner[trie.group[node]] += bool(trie.children[node])
        self._whole = [
            request.keep >= len(indices) or inner[group] <= WHOLE_BELOW_TOKENS
            for group, (request, indices) in enumerate(zip(requests, chosen, strict=True))
        ]
        self._done: dict[tuple[int, int], tuple[float, ...]] = {}
        self._frontier: list[tuple[float, int]] = []

    def run(self, head: Sequence[int], root_token: int) -> int:
        """Search until the frontier is empty; returns the tokens computed."""
        trie = self._trie
        trie.tokens[0] = root_token
        chain = [*head, root_token]
        root = len(chain) - 1
        # The root's children (the skills' first words) join the first forward: nothing can be pruned
        # before the first candidates are scored, and a forward costs more than a few tokens.
        first: list[int] = []
        for child in trie.children[0]:
            if trie.children[child]:
                room = max(1, self._batch_tokens - len(first))
                subtree = self._inner_subtree(child, room) if self._whole[trie.group[child]] else []
                first.extend(subtree if 0 < len(subtree) <= room else self._with_context(child, room))
        self._branch[0] = root
        for offset, child in enumerate(first, start=1):
            self._branch[child] = root + offset
        rows = self._cache.extend(
            [*chain, *(trie.tokens[child] for child in first)],
            [*range(-1, root), *(self._branch[trie.parents[child]] for child in first)],
            list(range(root, root + 1 + len(first))),
        )
        computed = len(chain) + len(first)
        for row, node in enumerate([0, *first]):
            self._expanded(node, rows[row])
        selected = self._select()
        while selected:
            start = self._cache.branch_size
            for offset, node in enumerate(selected):
                self._branch[node] = start + offset
            tokens = [trie.tokens[node] for node in selected]
            parents = [self._branch[trie.parents[node]] for node in selected]
            rows = self._cache.extend(tokens, parents, list(range(len(selected))))
            for row, node in enumerate(selected):
                self._expanded(node, rows[row])
            computed += len(selected)
            selected = self._select()
        return computed

    def _expanded(self, node: int, row: Any) -> None:
        """``node`` was computed: its children's log-probs are known from ``row``."""
        trie = self._trie
        children = trie.children[node]
        if not children:
            return
        values = row[[trie.tokens[child] for child in children]].tolist()
        for child, value in zip(children, values, strict=True):
            self._term[child] = value if trie.scored[child] else 0.0
            self._log_prob[child] = self._log_prob[node] + self._term[child]
            for group, candidate in trie.ends[child]:
                terms = self._path_terms(child)
                self._done[(group, candidate)] = terms
                self._keepers[group].add(math.exp(math.fsum(terms)) * self._requests[group].weights[candidate])
            if trie.children[child] and self._branch[child] < 0:
                bound = self._log_prob[child] + trie.max_log_weight[child]
                heapq.heappush(self._frontier, (-bound, child))

    def _select(self) -> list[int]:
        """The next forward's nodes: the best frontier nodes that can still matter (parents first)."""
        trie = self._trie
        selected: list[int] = []
        while self._frontier and len(selected) < self._expand:
            negative_bound, node = heapq.heappop(self._frontier)
            group = trie.group[node]
            if self._keepers[group].excludes(-negative_bound):
                continue
            limit = self._batch_tokens if self._whole[group] else LOOKAHEAD_TOKENS
            subtree = self._inner_subtree(node, limit)
            if len(subtree) > limit:
                # Too large for one forward: the node (with its prompt tail) now, its children later.
                selected.extend(self._with_context(node, max(1, self._batch_tokens - len(selected))))
            elif selected and len(selected) + len(subtree) > self._batch_tokens:
                heapq.heappush(self._frontier, (negative_bound, node))
                break
            else:
                selected.extend(subtree)
        return selected

    def _with_context(self, node: int, room: int) -> list[int]:
        """``node`` and, where it is a request's own prompt tail (context, whose log-probs do not count,
        so nothing below it can be pruned before its end), every inner node of that tail with the
        first completion words under it; at most ``room`` nodes, parents first."""
        trie = self._trie
        order, stack = [], [node]
        while stack and len(order) < room:
            current = stack.pop()
            order.append(current)
            if not trie.scored[current]:
                stack.extend(child for child in reversed(trie.children[current]) if trie.children[child])
        return order

    def _inner_subtree(self, node: int, limit: int) -> list[int]:
        """``node`` and every descendant that has children, parents before children (the walk stops
        once it has more than ``limit`` nodes)."""
        trie = self._trie
        order, stack = [], [node]
        while stack and len(order) <= limit:
            current = stack.pop()
            order.append(current)
            stack.extend(child for child in reversed(trie.children[current]) if trie.children[child])
        return order

    def _path_terms(self, node: int) -> tuple[float, ...]:
        """The completion-token log-probs from the root down to ``node``."""
        trie = self._trie
        terms = []
        while node > 0:
            if trie.scored[node]:
                terms.append(self._term[node])
            node = trie.parents[node]
        return tuple(reversed(terms))

    def result(self, group: int, computed: int) -> RankedScores:
        count = len(self._requests[group].completions)
        terms = [self._done.get((group, candidate)) for candidate in range(count)]
        return RankedScores(
            tuple(math.fsum(t) if t is not None else None for t in terms),
            tuple(terms),
            computed,
        )

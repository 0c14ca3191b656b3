"""k-nearest-neighbour retrieval of in-context examples by sentence embedding of their task text.

LLM-Planner (arXiv 2212.04088, section 4.3) retrieves the K training examples whose instructions
are closest to the test instruction; the zero-shot planner (Huang et al., arXiv 2201.07207, section 3.4)
retrieves the single most similar demonstration. The paper ranks by Euclidean distance between BERT
embeddings; the embedder here returns unit vectors, for which Euclidean distance and cosine similarity
give the same order, so ranking is by cosine (a dot product).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import numpy as np

from llm_planner_ros.llm.base import Embedder

T = TypeVar("T")


class KnnRetriever(Generic[T]):
    """A fixed pool of examples, embedded once by their task text, queried for the nearest ones.

    ``nearest(query, k)`` gives up to ``k`` examples, most similar first; ties keep pool order, so the
    same query always retrieves the same examples.
    """

    def __init__(self, examples: Sequence[T], task_of: Callable[[T], str], embedder: Embedder) -> None:
        if not examples:
            raise ValueError("the retrieval pool is empty: give at least one example")
        self._examples = list(examples)
        self._embedder = embedder
        self._vectors = np.asarray(embedder.embed([task_of(example) for example in self._examples]))

    def __len__(self) -> int:
        return len(self._examples)

    def nearest(self, query: str, k: int) -> list[T]:
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        return [example for example, _ in self.ranked(query)[:k]]

    def ranked(self, query: str) -> list[tuple[T, float]]:
        """Every example with its cosine similarity to ``query``, most similar first."""
        similarities = self._vectors @ np.asarray(self._embedder.embed([query]))[0]
        order = np.argsort(-similarities, kind="stable")
        return [(self._examples[i], float(similarities[i])) for i in order]

"""Retrieval of the bank examples most similar to an instruction, for the SayCan prompt.

The paper's prompt holds 17 fixed examples (SayCan, arXiv 2204.01691, Listing 1); a 540B model generalises
from those, a 135M model copies what is closest. So the prompt's examples are chosen per instruction:
the k examples of the generated bank (``saycan_bank``) whose instructions are nearest in sentence-
embedding space (the embedded all-MiniLM-L6-v2; cosine similarity, as ``knn_retriever`` ranks).

Embedding a bank of thousands of instructions takes minutes on a small CPU, so the vectors are cached
next to the bank (``<bank>.vectors.npz``, float16), keyed by the embedder's name and a digest of the
instructions: a changed bank or another embedder recomputes them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.planning.saycan.bank import PlanExample


class ExampleRetriever:
    """The bank's examples, embedded once by instruction, queried for the nearest ones.

    ``nearest(instruction, k)`` gives up to ``k`` examples, most similar first; ties keep bank order.
    """

    def __init__(self, examples: Sequence[PlanExample], embedder: Embedder, cache: Path | None = None) -> None:
        if not examples:
            raise ValueError("the example bank is empty: generate it with `llm-planner train saycan-bank`")
        self._examples = list(examples)
        self._embedder = embedder
        self._vectors = _vectors([example.instruction for example in self._examples], embedder, cache)

    def __len__(self) -> int:
        return len(self._examples)

    def nearest(self, instruction: str, k: int) -> list[PlanExample]:
        return self.nearest_many([instruction], k)[0]

    def nearest_many(self, instructions: Sequence[str], k: int) -> list[list[PlanExample]]:
        """``nearest`` for many instructions, embedded in one batch (much faster than one by one)."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        queries = np.asarray(self._embedder.embed(list(instructions)), dtype=np.float32)
        similarities = queries @ self._vectors.T
        return [[self._examples[i] for i in np.argsort(-row, kind="stable")[:k]] for row in similarities]


def _vectors(texts: list[str], embedder: Embedder, cache: Path | None) -> np.ndarray:
    """Unit rows for ``texts``: from ``cache`` when it matches, else embedded (and cached when possible)."""
    key = hashlib.sha256("\n".join([embedder.name, *texts]).encode("utf-8")).hexdigest()
    if cache is not None and cache.is_file():
        with np.load(cache) as stored:
            if str(stored["key"]) == key:
                return stored["vectors"].astype(np.float32)
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    if cache is not None:
        try:
            np.savez(cache, key=np.array(key), vectors=vectors.astype(np.float16))
        except OSError:
            pass  # a read-only install still works; it only embeds again next time
    return vectors

"""The embedded detector: depth proposals labelled by the region encoder against text embeddings.

Needs no detector weights beyond the project's small region encoder: regions come from
``llm_planner_ros.perception.proposals``, their embeddings from ``llm_planner_ros.perception.region_encoder``, and
each query's score is
the cosine similarity of the region's embedding and the query's sentence embedding (clipped to [0, 1]),
so any name or synonym can be asked for without retraining. With an encoder that learned a background
embedding (ViLD's background class), a region more similar to it than to every query is dropped: the
proposals also find parts of the robot and furniture edges that are no object.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.perception.detection import Detection, View
from llm_planner_ros.perception.proposals import ProposalConfig, propose
from llm_planner_ros.perception.region_encoder import RegionEncoder, region_features


class TextEmbeddings:
    """Sentence embeddings of query texts, each computed once."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._cache: dict[str, np.ndarray] = {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        missing = [text for text in dict.fromkeys(texts) if text not in self._cache]
        if missing:
            self._cache.update(zip(missing, self._embedder.embed(missing), strict=True))
        return np.stack([self._cache[text] for text in texts]) if texts else np.zeros((0, 384), np.float32)


class EmbeddedDetector:
    """Proposals from depth, labels by region-text cosine similarity."""

    def __init__(self, encoder: RegionEncoder, text: TextEmbeddings, proposals: ProposalConfig) -> None:
        self._encoder = encoder
        self._text = text
        self._proposals = proposals

    @property
    def name(self) -> str:
        return "embedded"

    def detect(self, view: View, queries: Sequence[str]) -> list[Detection]:
        if not queries:
            return []
        found = []
        for proposal in propose(view.depth, view.intrinsics, view.camera, self._proposals):
            features = region_features(view, proposal.mask)
            if features is not None:
                found.append((proposal, features))
        if not found:
            return []
        embeddings = self._encoder.embed(np.stack([features for _, features in found]))
        similarity = embeddings @ self._text(list(queries)).T
        background = self._encoder.background_embedding()
        is_object = (
            np.ones(len(found), bool) if background is None else similarity.max(axis=1) > embeddings @ background
        )
        scores = np.clip(similarity, 0.0, 1.0)
        return [
            Detection(proposal.box, scores[index], tuple(queries), proposal.mask)
            for index, (proposal, _) in enumerate(found)
            if is_object[index]
        ]

"""The learned model that tells a task from a request to hold back on (stop, out of scope, unsafe).

A multinomial logistic regression over three kinds of feature of a request:
- its sentence embedding (the embedded all-MiniLM-L6-v2, the one the planner already loads);
- its word unigrams and bigrams, hashed (``HASH_DIM`` buckets), so that "at me" or "don't" weigh on
  their own where an embedding blurs them;
- how close it comes to what the domain's robot can do: the largest and the mean of the three largest
  cosine similarities with the domain's skill phrases (skill texts and ``requests``). This is what makes
  "out of scope" relative to a domain: "wipe the desk" is a task where a skill wipes, and out of scope
  where none does.

The weights are trained on requests generated across many domains (``training.hold_back_training``) and
stored as plain arrays (``.npz``, no pickle). ``classify`` is one embedding and a matrix product.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.planning.hold_back.requests import RequestKind

HASH_DIM = 2048
SCOPE_FEATURES = 2
# The kinds the model tells apart; MISSING is decided by grounding the request's names in the scene.
CLASSES = (RequestKind.TASK, RequestKind.STOP, RequestKind.OUT_OF_SCOPE, RequestKind.UNSAFE)
_TOKEN = re.compile(r"[a-z0-9']+")


class HoldBackModelError(RuntimeError):
    """A weight file that is missing or not a hold-back model; the message names the file and the fix."""


@dataclass(frozen=True)
class Classification:
    """The model's probability of each kind (``CLASSES`` order) and the most probable kind."""

    probabilities: tuple[float, ...]

    @property
    def kind(self) -> RequestKind:
        return CLASSES[int(np.argmax(self.probabilities))]

    def probability(self, kind: RequestKind) -> float:
        return self.probabilities[CLASSES.index(kind)]


class DomainScope:
    """The unit embeddings of a domain's skill phrases, computed once: the "what can this robot do"
    that a request is compared with."""

    def __init__(self, embedder: Embedder, skill_phrases: Sequence[str]) -> None:
        if not skill_phrases:
            raise ValueError("a domain without skill phrases has no scope to compare requests with")
        self.vectors = np.asarray(embedder.embed(list(skill_phrases)), dtype=np.float32)

    def features(self, request_vectors: np.ndarray) -> np.ndarray:
        """(n, SCOPE_FEATURES): the largest similarity and the mean of the three largest, per request."""
        similarities = request_vectors @ self.vectors.T
        top = np.sort(similarities, axis=1)[:, ::-1][:, :3]
        return np.stack([top[:, 0], top.mean(axis=1)], axis=1)


def hashed_ngrams(texts: Sequence[str]) -> np.ndarray:
    """(n, HASH_DIM) binary word unigram and bigram indicators, each row scaled to unit length."""
    out = np.zeros((len(texts), HASH_DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        words = _TOKEN.findall(text.lower().replace("\u2019", "'"))
        grams = [*words, *(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))]
        for gram in grams:
            out[row, zlib.crc32(gram.encode("utf-8")) % HASH_DIM] = 1.0
        norm = float(np.linalg.norm(out[row]))
        if norm:
            out[row] /= norm
    return out


def features(embedder: Embedder, texts: Sequence[str], scope: DomainScope) -> np.ndarray:
    """The model's input rows for ``texts`` in a domain: embedding, hashed n-grams, scope similarities."""
    vectors = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    return np.concatenate([vectors, hashed_ngrams(texts), scope.features(vectors)], axis=1)


@dataclass(frozen=True)
class HoldBackModel:
    """Softmax weights over ``features`` rows; ``embedder`` names the embedding they were trained with."""

    weights: np.ndarray  # (n_features, len(CLASSES))
    bias: np.ndarray  # (len(CLASSES),)
    embedder: str

    def classify(self, rows: np.ndarray) -> list[Classification]:
        logits = rows @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        return [Classification(tuple(float(p) for p in row)) for row in probabilities]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            path,
            weights=self.weights.astype(np.float32),
            bias=self.bias.astype(np.float32),
            classes=np.array([kind.value for kind in CLASSES]),
            embedder=np.array(self.embedder),
            hash_dim=np.array(HASH_DIM),
        )

    @classmethod
    def load(cls, path: Path) -> HoldBackModel:
        if not path.is_file():
            raise HoldBackModelError(
                f"hold-back model not found at {path}: run `llm-planner train hold-back` "
                "(data/hold_back/README.md), or set the planner's hold_back parameter to false"
            )
        try:
            with np.load(path, allow_pickle=False) as data:
                weights, bias = data["weights"], data["bias"]
                classes = tuple(str(name) for name in data["classes"])
                embedder, hash_dim = str(data["embedder"]), int(data["hash_dim"])
        except (OSError, ValueError, KeyError) as error:
            raise HoldBackModelError(f"{path} is not a hold-back model ({error}): train it again") from error
        expected = tuple(kind.value for kind in CLASSES)
        width = weights.shape[0] if weights.ndim == 2 else -1
        if classes != expected or hash_dim != HASH_DIM or width <= HASH_DIM + SCOPE_FEATURES:
            raise HoldBackModelError(
                f"{path} was trained for another feature layout (classes {classes}, {hash_dim} hash buckets): "
                "train it again with this version"
            )
        return cls(weights, bias, embedder)

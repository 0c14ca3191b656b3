"""The value-function models as plain arrays: per family an ensemble of gradient-boosted tree models,
their weight file, and a batched numpy forward pass (so a server needs neither scikit-learn nor torch;
``training`` fits them with scikit-learn).

A weight file is one ``.npz`` (``np.load`` with ``allow_pickle=False``): for each family and member k
the member's trees, concatenated: ``<family>/<k>/feature`` (the feature a node splits on, -1 at a
leaf), ``threshold`` (go left when the feature is <= it), ``left``, ``right`` (child node indices into
the same arrays), ``value`` (a leaf's contribution to the log-odds, learning rate included),
``roots`` (each tree's root node) and ``base`` (the log-odds before any tree); and ``meta``: JSON with
the format, ``feature_version``, each family's feature names and the training record.
``load_value_functions`` refuses a file whose format, feature version or feature names differ from
the code's, with the command that rebuilds it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from llm_planner_ros.value_functions.features import FEATURE_VERSION, Featurizer

FORMAT = "llm_planner_ros.value_functions/3"
REBUILD = "rebuild it with `llm-planner train value-functions` (docs/value_functions.md)"
TREE_ARRAYS = ("feature", "threshold", "left", "right", "value", "roots", "base")


class WeightFileError(ValueError):
    """The weight file is missing, unreadable or was made for other features; the message says how to fix it."""


@dataclass(frozen=True)
class BoostedTrees:
    """One gradient-boosted model: p = sigmoid(base + sum of each tree's leaf value); arrays as in the
    module docstring. Thresholds are float64 and features float32, as scikit-learn compares them, so
    the answers equal the fitted model's."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    base: float

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        return _sigmoid(Forest((self,)).log_odds(features)[:, 0])

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: np.asarray(getattr(self, name)) for name in TREE_ARRAYS}


@dataclass(frozen=True)
class FamilyEnsemble:
    """A family's models fitted from different seeds (each on its own row subsamples); its probability
    is their mean, which removes part of each model's variance (docs/value_functions.md)."""

    members: tuple[BoostedTrees, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_forest", Forest(self.members))

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        forest: Forest = self._forest  # type: ignore[attr-defined]
        return _sigmoid(forest.log_odds(features)).mean(axis=1)


class Forest:
    """The trees of several models as one node table, for one traversal of all of them: a leaf points
    to itself (so every row descends the same number of levels without a mask), and ``log_odds`` sums
    each model's leaves. One traversal instead of one per model keeps a batch's numpy calls few."""

    def __init__(self, models: tuple[BoostedTrees, ...]) -> None:
        offsets = np.cumsum([0, *(len(m.feature) for m in models)])
        leaf = np.concatenate([m.feature < 0 for m in models])
        own = np.arange(len(leaf), dtype=np.int32)
        self.feature = np.where(leaf, 0, np.concatenate([m.feature for m in models]))
        self.threshold = np.concatenate([m.threshold for m in models])
        self.left = np.where(leaf, own, np.concatenate([m.left + o for m, o in zip(models, offsets, strict=False)]))
        self.right = np.where(leaf, own, np.concatenate([m.right + o for m, o in zip(models, offsets, strict=False)]))
        self.value = np.concatenate([m.value for m in models])
        self.roots = np.concatenate([m.roots + o for m, o in zip(models, offsets, strict=False)]).astype(np.intp)
        self.starts = np.cumsum([0, *(len(m.roots) for m in models)])[:-1]
        self.bases = np.array([m.base for m in models])
        self.depth = 0
        level = self.roots
        while not leaf[level].all():
            level = np.concatenate([self.left[level][~leaf[level]], self.right[level][~leaf[level]]])
            self.depth += 1

    def log_odds(self, features: np.ndarray) -> np.ndarray:
        """(rows, models): each model's log-odds for each row of ``features``."""
        x = np.asarray(features, dtype=np.float32)
        rows = np.arange(len(x))[:, None]
        nodes = np.broadcast_to(self.roots, (len(x), len(self.roots)))
        for _ in range(self.depth):
            go_left = x[rows, self.feature[nodes]] <= self.threshold[nodes]
            nodes = np.where(go_left, self.left[nodes], self.right[nodes])
        return np.add.reduceat(self.value[nodes], self.starts, axis=1) + self.bases


def _sigmoid(log_odds: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-log_odds))


def save_value_functions(path: Path, models: dict[str, FamilyEnsemble], featurizer: Featurizer, record: Any) -> None:
    arrays: dict[str, np.ndarray] = {}
    for family, ensemble in models.items():
        for k, member in enumerate(ensemble.members):
            for name, values in member.arrays().items():
                arrays[f"{family}/{k}/{name}"] = values
    meta = {
        "format": FORMAT,
        "feature_version": FEATURE_VERSION,
        "features": {family: featurizer.names(family) for family in models},
        "record": record,
    }
    arrays["meta"] = np.array(json.dumps(meta))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        np.savez_compressed(file, **arrays)


def load_value_functions(path: str | Path, featurizer: Featurizer) -> tuple[dict[str, FamilyEnsemble], dict[str, Any]]:
    """The models of a weight file and its metadata; WeightFileError when it cannot serve ``featurizer``."""
    path = Path(path)
    if not path.is_file():
        raise WeightFileError(
            f"value-function weights not found at {path}: {REBUILD}, or give the affordance servers "
            "backend: analytic, which needs none"
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        meta = json.loads(str(arrays.pop("meta")))
    except (OSError, ValueError, KeyError) as error:
        raise WeightFileError(f"{path} is not a value-function weight file ({error}): {REBUILD}") from error
    if meta.get("format") != FORMAT or meta.get("feature_version") != FEATURE_VERSION:
        raise WeightFileError(
            f"{path} has format {meta.get('format')!r}, feature version {meta.get('feature_version')}; this code "
            f"reads {FORMAT!r}, feature version {FEATURE_VERSION}: {REBUILD}"
        )
    models = {}
    for family, names in meta["features"].items():
        expected = featurizer.names(family)
        if names != expected:
            differing = sorted(set(names) ^ set(expected))[:6] or ["(order)"]
            raise WeightFileError(
                f"{path}: the {family} model was trained on {len(names)} features, this kitchen has "
                f"{len(expected)} (differing: {', '.join(differing)}); {REBUILD} for this world file"
            )
        members = []
        for k in range(sum(1 for name in arrays if name.startswith(f"{family}/") and name.endswith("/base"))):
            try:
                member = BoostedTrees(
                    *(arrays[f"{family}/{k}/{name}"] for name in TREE_ARRAYS[:-1]),
                    float(arrays[f"{family}/{k}/base"]),
                )
            except KeyError as error:
                raise WeightFileError(f"{path}: the {family} model {k} lacks {error}: {REBUILD}") from error
            if member.feature.max(initial=-1) >= len(expected):
                raise WeightFileError(f"{path}: the {family} model {k} splits on a feature it does not have: {REBUILD}")
            members.append(member)
        if not members:
            raise WeightFileError(f"{path}: no {family} model in the file: {REBUILD}")
        models[family] = FamilyEnsemble(tuple(members))
    return models, meta

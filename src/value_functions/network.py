"""The value-function networks as plain arrays: per family an ensemble of small MLPs, its weight file,
and a batched numpy forward pass (so a server needs no torch; ``training`` fits them with torch).

A weight file is one ``.npz`` (``np.load`` with ``allow_pickle=False``): for each family and member k
``<family>/<k>/W0``, ``<family>/<k>/b0``, ... (layer weights), ``<family>/<k>/mean`` and
``<family>/<k>/std`` (input standardisation), and ``meta``: JSON with the format, ``feature_version``,
each family's feature names and the training record. ``load_value_functions`` refuses a file whose
format, feature version or feature names differ from the code's, with the command that rebuilds it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from value_functions.features import FEATURE_VERSION, Featurizer

FORMAT = "llm_planner_ros.value_functions/2"
REBUILD = "rebuild it with `python -m value_functions.training` (docs/value_functions.md)"


class WeightFileError(ValueError):
    """The weight file is missing, unreadable or was made for other features; the message says how to fix it."""


@dataclass(frozen=True)
class FamilyNetwork:
    """One family's MLP: ReLU hidden layers, a sigmoid output; inputs standardised by ``mean``/``std``."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    mean: np.ndarray
    std: np.ndarray

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        hidden = (features - self.mean) / self.std
        for index, (weight, bias) in enumerate(zip(self.weights, self.biases, strict=True)):
            hidden = hidden @ weight + bias
            if index < len(self.weights) - 1:
                hidden = np.maximum(hidden, 0.0)
        return 1.0 / (1.0 + np.exp(-hidden[:, 0]))


@dataclass(frozen=True)
class FamilyEnsemble:
    """A family's MLPs fitted from different seeds; its probability is their mean. Averaging removes
    part of each network's variance, which lowers the Brier score (docs/value_functions.md)."""

    members: tuple[FamilyNetwork, ...]

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        return np.mean([member.probabilities(features) for member in self.members], axis=0)


def save_value_functions(path: Path, networks: dict[str, FamilyEnsemble], featurizer: Featurizer, record: Any) -> None:
    arrays: dict[str, np.ndarray] = {}
    for family, ensemble in networks.items():
        for k, network in enumerate(ensemble.members):
            prefix = f"{family}/{k}"
            for index, (weight, bias) in enumerate(zip(network.weights, network.biases, strict=True)):
                arrays[f"{prefix}/W{index}"] = weight
                arrays[f"{prefix}/b{index}"] = bias
            arrays[f"{prefix}/mean"], arrays[f"{prefix}/std"] = network.mean, network.std
    meta = {
        "format": FORMAT,
        "feature_version": FEATURE_VERSION,
        "features": {family: featurizer.names(family) for family in networks},
        "record": record,
    }
    arrays["meta"] = np.array(json.dumps(meta))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        np.savez(file, **arrays)


def load_value_functions(path: str | Path, featurizer: Featurizer) -> tuple[dict[str, FamilyEnsemble], dict[str, Any]]:
    """The networks of a weight file and its metadata; WeightFileError when it cannot serve ``featurizer``."""
    path = Path(path)
    if not path.is_file():
        raise WeightFileError(f"value-function weights not found at {path}: {REBUILD}")
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
    networks = {}
    for family, names in meta["features"].items():
        expected = featurizer.names(family)
        if names != expected:
            differing = sorted(set(names) ^ set(expected))[:6] or ["(order)"]
            raise WeightFileError(
                f"{path}: the {family} network was trained on {len(names)} features, this kitchen has "
                f"{len(expected)} (differing: {', '.join(differing)}); {REBUILD} for this world file"
            )
        members = []
        for k in range(sum(1 for name in arrays if name.startswith(f"{family}/") and name.endswith("/mean"))):
            prefix = f"{family}/{k}"
            layers = sum(1 for name in arrays if name.startswith(f"{prefix}/W"))
            network = FamilyNetwork(
                tuple(arrays[f"{prefix}/W{i}"] for i in range(layers)),
                tuple(arrays[f"{prefix}/b{i}"] for i in range(layers)),
                arrays[f"{prefix}/mean"],
                arrays[f"{prefix}/std"],
            )
            if layers == 0 or network.weights[0].shape[0] != len(expected):
                raise WeightFileError(
                    f"{path}: the {family} network's input width does not match its features: {REBUILD}"
                )
            members.append(network)
        if not members:
            raise WeightFileError(f"{path}: no {family} network in the file: {REBUILD}")
        networks[family] = FamilyEnsemble(tuple(members))
    return networks, meta

"""Shared pieces of the value-function tests: a tiny seeded random weight file and a fixed observation."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kitchen_domain import Kitchen
from value_functions.features import LEARNED_FAMILIES, Featurizer
from value_functions.network import FamilyEnsemble, FamilyNetwork, save_value_functions
from value_functions.observation import Observation, PerceivedObject


def random_weights(
    path: Path, kitchen: Kitchen, seed: int = 0, families: tuple[str, ...] = LEARNED_FAMILIES, members: int = 2
) -> Path:
    """A weight file of ``members`` networks per family, each one 8-unit hidden layer with random
    weights (mechanics, not quality)."""
    rng = np.random.default_rng(seed)
    featurizer = Featurizer(kitchen.config)
    networks = {}
    for family in families:
        width = len(featurizer.names(family))
        networks[family] = FamilyEnsemble(
            tuple(
                FamilyNetwork(
                    (rng.normal(size=(width, 8)).astype(np.float32), rng.normal(size=(8, 1)).astype(np.float32)),
                    (np.zeros(8, np.float32), np.zeros(1, np.float32)),
                    np.zeros(width, np.float32),
                    np.ones(width, np.float32),
                )
                for _ in range(members)
            )
        )
    save_value_functions(path, networks, featurizer, {"test": True})
    return path


def table_observation() -> Observation:
    """The robot at the table with an apple and a coke in front of it, a box on the floor, gripper empty."""
    return Observation(
        (2.5, 3.0),
        "table",
        None,
        None,
        (
            PerceivedObject("apple", (2.45, 3.45, 0.79), (0.075, 0.074, 0.075), "table", 0.9),
            PerceivedObject("coke", (2.65, 3.6, 0.81), (0.066, 0.067, 0.12), "table", 0.8),
            PerceivedObject("obstacle", (3.5, 2.0, 0.25), (0.6, 0.6, 0.5), "", 0.7),
        ),
    )

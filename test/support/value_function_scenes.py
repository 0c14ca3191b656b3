"""Shared pieces of the value-function tests: a tiny seeded random weight file and a fixed observation."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from llm_planner_ros.domain import Domain
from llm_planner_ros.value_functions.boosted_trees import BoostedTrees, FamilyEnsemble, save_value_functions
from llm_planner_ros.value_functions.features import LEARNED_FAMILIES, Featurizer
from llm_planner_ros.value_functions.observation import Observation, PerceivedObject


def random_weights(
    path: Path, kitchen: Domain, seed: int = 0, families: tuple[str, ...] = LEARNED_FAMILIES, members: int = 2
) -> Path:
    """A weight file of ``members`` models per family, each 24 random depth-2 trees (mechanics, not
    quality)."""
    rng = np.random.default_rng(seed)
    featurizer = Featurizer(kitchen.config)
    models = {family: FamilyEnsemble(tuple(random_trees(rng, len(featurizer.names(family))) for _ in range(members)))
              for family in families}  # fmt: skip
    save_value_functions(path, models, featurizer, {"test": True})
    return path


def random_trees(rng: np.random.Generator, width: int, trees: int = 24) -> BoostedTrees:
    """``trees`` full depth-2 trees (7 nodes each: a root, two inner nodes, four leaves) on random features."""
    inner = np.array([0, 1, 2])
    feature, threshold, left, right, value = [], [], [], [], []
    for t in range(trees):
        offset = 7 * t
        feature += [*rng.integers(0, width, 3).tolist(), -1, -1, -1, -1]
        threshold += [*rng.normal(size=3).tolist(), 0.0, 0.0, 0.0, 0.0]
        left += [*(offset + 2 * inner + 1).tolist(), -1, -1, -1, -1]
        right += [*(offset + 2 * inner + 2).tolist(), -1, -1, -1, -1]
        value += [0.0, 0.0, 0.0, *rng.normal(scale=0.5, size=4).tolist()]
    return BoostedTrees(
        np.array(feature, np.int32),
        np.array(threshold, np.float64),
        np.array(left, np.int32),
        np.array(right, np.int32),
        np.array(value, np.float64),
        np.arange(0, 7 * trees, 7, dtype=np.int32),
        float(rng.normal()),
    )


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


def drawer_observation(holding: str | None = None, drawer_open: bool | None = False) -> Observation:
    """The robot at the drawers, a little off its base pose, the drawer in ``drawer_open``, a coke on
    the close counter."""
    return Observation(
        (3.05, 0.55),
        "drawers",
        holding,
        drawer_open,
        (PerceivedObject("coke", (1.2, 0.3, 0.97), (0.066, 0.067, 0.12), "close counter", 0.9),),
    )

"""Fits the per-family value functions (gradient-boosted trees) on collector rollouts, with a fixed
held-out split.

Each rollout falls in ``train``, ``val`` (the number of trees) or ``test`` (only the bench reads it) by
a hash of its (seed, index), so a rollout keeps its split as a file grows or is resumed. Each family is
an ensemble of ``--members`` models fitted from seeds ``seed``, ``seed + 1``, ... (each boosting
stage sees its own random 70 % of the rows); the served probability is their mean
(docs/value_functions.md). Training is staged by family:
after each family the weight file is written, and ``--resume`` keeps the families already in it that
were trained on the same rollouts (a fingerprint of their features and outcomes) and members.

    nice -n 10 llm-planner train value-functions \
        --rollouts data/value_functions/rollouts_seed0.jsonl.gz \
        data/value_functions/rollouts_seed1.jsonl.gz --out domains/saycan_kitchen/value_functions.npz --seed 0
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.skill import DRAWER, GOTO, PICK, PLACE
from llm_planner_ros.value_functions.boosted_trees import (
    BoostedTrees,
    FamilyEnsemble,
    WeightFileError,
    load_value_functions,
    save_value_functions,
)
from llm_planner_ros.value_functions.collector import PERCEPTION, SHARED_LOCALIZATION, SIMULATED, Rollout, load_rollouts
from llm_planner_ros.value_functions.features import LEARNED_FAMILIES, Featurizer
from llm_planner_ros.value_functions.metrics import brier, log_loss, roc_auc
from llm_planner_ros.value_functions.observation import Observation

SPLIT_SALT = 0x5A1C
TEST_FRACTION = 0.2
VAL_FRACTION = 0.1


def split_of(rollout: Rollout) -> str:
    draw = random.Random((rollout.seed * 1_000_003 + rollout.index) ^ SPLIT_SALT).random()
    return "test" if draw < TEST_FRACTION else "val" if draw < TEST_FRACTION + VAL_FRACTION else "train"


def served_observation(rollout: Rollout) -> Observation:
    """The rollout's observation as the learned backend is served it on the graph, where the executor
    grasps the first reported instance of a label at the robot's place (``features.pick_target``).

    Perceived picks were made by that executor rule. The simulated collector's scripted pick grasped the
    instance nearest the robot instead: for those, that instance (the nearest in the observation) is
    moved first, so the features describe the object whose pick the outcome records."""
    observation = rollout.observation
    if rollout.family != PICK or rollout.observed_by != SIMULATED:
        return observation
    rx, ry = observation.robot_xy
    same = [o for o in observation.objects if o.label == rollout.argument]
    if not same:
        return observation
    grasped = min(same, key=lambda o: math.hypot(o.position[0] - rx, o.position[1] - ry))
    return replace(observation, objects=(grasped, *(o for o in observation.objects if o is not grasped)))


def family_arrays(
    rollouts: Sequence[Rollout], featurizer: Featurizer, family: str, split: str
) -> tuple[np.ndarray, np.ndarray]:
    rows = [r for r in rollouts if r.family == family and split_of(r) == split]
    features = featurizer.matrix([(served_observation(r), r.argument) for r in rows], family)
    return features, np.array([r.success for r in rows], dtype=bool)


@dataclass(frozen=True)
class TreeSettings:
    """One family's boosting settings; the number of trees is chosen on the validation split."""

    learning_rate: float = 0.03
    max_depth: int = 3
    subsample: float = 0.7
    min_samples_leaf: int = 5
    max_trees: int = 800


# Chosen by 5-fold cross-validation on the train and validation rollouts (never the test split):
# docs/value_functions.md, "How the model was chosen". The drawer's are the pick settings, not chosen
# again (its rollouts came later).
SETTINGS = {
    PICK: TreeSettings(),
    PLACE: TreeSettings(),
    GOTO: TreeSettings(min_samples_leaf=20),
    DRAWER: TreeSettings(),
}


def fit(
    train: tuple[np.ndarray, np.ndarray], val: tuple[np.ndarray, np.ndarray], seed: int, settings: TreeSettings
) -> tuple[BoostedTrees, dict[str, float]]:
    """Gradient boosting on the log-loss; the model is cut to the tree count with the lowest
    validation log-loss. The exported arrays are checked against scikit-learn's own answers."""
    from sklearn.ensemble import GradientBoostingClassifier

    x, y = train
    model = GradientBoostingClassifier(
        n_estimators=settings.max_trees,
        learning_rate=settings.learning_rate,
        max_depth=settings.max_depth,
        subsample=settings.subsample,
        min_samples_leaf=settings.min_samples_leaf,
        random_state=seed,
    ).fit(x, y)
    staged = [p[:, 1] for p in model.staged_predict_proba(val[0])]
    losses = [log_loss(val[1], p) for p in staged]
    trees = int(np.argmin(losses)) + 1
    prior = float(np.clip(y.mean(), 1e-6, 1 - 1e-6))
    member = _export(model.estimators_[:trees, 0], settings.learning_rate, math.log(prior / (1 - prior)))
    if not np.allclose(member.probabilities(val[0]), staged[trees - 1], atol=1e-6):
        raise RuntimeError("exported trees disagree with scikit-learn's model: the tree export is out of date")
    return member, {"trees": trees, "val_log_loss": round(losses[trees - 1], 4)}


def _export(estimators: Sequence[Any], learning_rate: float, base: float) -> BoostedTrees:
    """scikit-learn regression trees as one set of concatenated node arrays (boosted_trees.BoostedTrees)."""
    parts: dict[str, list[np.ndarray]] = {name: [] for name in ("feature", "threshold", "left", "right", "value")}
    roots, offset = [], 0
    for estimator in estimators:
        tree = estimator.tree_
        leaf = tree.children_left < 0
        roots.append(offset)
        parts["feature"].append(np.where(leaf, -1, tree.feature).astype(np.int32))
        parts["threshold"].append(tree.threshold.astype(np.float64))
        parts["left"].append(np.where(leaf, -1, tree.children_left + offset).astype(np.int32))
        parts["right"].append(np.where(leaf, -1, tree.children_right + offset).astype(np.int32))
        parts["value"].append(np.where(leaf, tree.value.reshape(tree.node_count) * learning_rate, 0.0))
        offset += tree.node_count
    arrays = {name: np.concatenate(values) for name, values in parts.items()}
    return BoostedTrees(**arrays, roots=np.asarray(roots, dtype=np.int32), base=base)


def fingerprint(*splits: tuple[np.ndarray, np.ndarray]) -> str:
    """A digest of the splits' features and outcomes: ``--resume`` keeps a family only when its data is
    the same, not merely as large (a rollout file collected again with another pipeline has as many rows)."""
    digest = hashlib.sha256()
    for features, outcomes in splits:
        digest.update(np.ascontiguousarray(features, dtype=np.float32).tobytes())
        digest.update(np.ascontiguousarray(outcomes, dtype=bool).tobytes())
    return digest.hexdigest()[:16]


def fit_ensemble(
    train: tuple[np.ndarray, np.ndarray],
    val: tuple[np.ndarray, np.ndarray],
    seed: int,
    members: int,
    settings: TreeSettings,
    label: str,
) -> tuple[FamilyEnsemble, dict[str, object]]:
    """``members`` models from seeds ``seed``, ``seed + 1``, ...; the summary has each member's tree
    count and the ensemble's validation ROC-AUC and Brier score."""
    fitted = []
    for k in range(members):
        fitted.append(fit(train, val, seed + k, settings))
        print(f"training {label}: member {k}: {fitted[-1][1]}", flush=True)
    ensemble = FamilyEnsemble(tuple(member for member, _ in fitted))
    val_p = ensemble.probabilities(val[0])
    return ensemble, {
        "members": members,
        "settings": asdict(settings),
        "trees": [summary["trees"] for _, summary in fitted],
        "val_roc_auc": round(roc_auc(val[1], val_p) or float("nan"), 4),
        "val_brier": round(brier(val[1], val_p), 4),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train value-functions``."""
    parser.add_argument("--rollouts", type=Path, nargs="+", required=True, help="collector files (.jsonl or .jsonl.gz)")
    parser.add_argument("--out", type=Path, required=True, help="weight file (.npz) to write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--members", type=int, default=5, help="models per family (their mean is served)")
    parser.add_argument("--resume", action="store_true", help="keep families already trained on the same data")


def run(args: argparse.Namespace) -> int:
    """Fit the value functions on collector rollouts, family by family (see the module docstring)."""
    kitchen = load_domain_files()
    featurizer = Featurizer(kitchen.config)
    rollouts = []
    for path in args.rollouts:
        loaded = load_rollouts(path)
        unmoved = sum(r.observed_by == PERCEPTION and r.localization != SHARED_LOCALIZATION for r in loaded)
        if unmoved:
            raise SystemExit(
                f"training: {unmoved} perceived rollouts of {path} were collected with the localization error on "
                "the robot alone: run llm-planner collect relocalize "
                f"{path} --out NEW and train on NEW"
            )
        rollouts += loaded
    models: dict[str, FamilyEnsemble] = {}
    record: dict[str, object] = {
        "command": args.command_line,
        "rollout_files": [p.name for p in args.rollouts],
        "seed": args.seed,
        "model": "gradient-boosted trees (scikit-learn GradientBoostingClassifier)",
        "members": args.members,
        "families": {},
    }
    if args.resume and args.out.exists():
        try:
            models, meta = load_value_functions(args.out, featurizer)
            record["families"] = meta["record"]["families"]
        except WeightFileError as error:
            print(f"training: not resuming from {args.out}: {error}", flush=True)
            models = {}
    for family in LEARNED_FAMILIES:
        train = family_arrays(rollouts, featurizer, family, "train")
        val = family_arrays(rollouts, featurizer, family, "val")
        done = record["families"].get(family, {})  # type: ignore[attr-defined]
        data = fingerprint(train, val)
        if family in models and done.get("data") == data and done.get("members") == args.members:
            print(f"training {family}: kept from {args.out} ({len(train[1])} train rollouts)", flush=True)
            continue
        if len(train[1]) < 20 or len(set(val[1].tolist())) < 2:
            raise SystemExit(f"training {family}: too few rollouts ({len(train[1])} train): collect more first")
        started = time.perf_counter()
        print(
            f"training {family}: {len(train[1])} train, {len(val[1])} val rollouts, {train[1].mean():.2f} succeed",
            flush=True,
        )
        models[family], summary = fit_ensemble(train, val, args.seed, args.members, SETTINGS[family], family)
        summary.update(train=len(train[1]), val=len(val[1]), data=data, seconds=round(time.perf_counter() - started, 1))
        record["families"][family] = summary  # type: ignore[index]
        print(f"training {family}: {summary}", flush=True)
        save_value_functions(args.out, models, featurizer, record)
    print(f"training: wrote {args.out}", flush=True)
    return 0

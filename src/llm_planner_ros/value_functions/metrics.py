"""Quality of success probabilities against outcomes: ROC-AUC, Brier score, log-loss, reliability diagram."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np


def roc_auc(outcomes: Sequence[bool] | np.ndarray, scores: Sequence[float] | np.ndarray) -> float | None:
    """Probability that a random success scores above a random failure (ties count half); None when
    only one class is present (the AUC is undefined)."""
    y = np.asarray(outcomes, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    positives, negatives = int(y.sum()), int((~y).sum())
    if positives == 0 or negatives == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    sorted_scores = s[order]
    # Average ranks over tied scores.
    start = 0
    while start < len(s):
        end = start
        while end + 1 < len(s) and sorted_scores[end + 1] == sorted_scores[start]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return float((ranks[y].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def brier(outcomes: Sequence[bool] | np.ndarray, probabilities: Sequence[float] | np.ndarray) -> float:
    """Mean squared error of the probabilities against the 0/1 outcomes (0 is perfect)."""
    y = np.asarray(outcomes, dtype=np.float64)
    p = np.asarray(probabilities, dtype=np.float64)
    return float(np.mean((p - y) ** 2))


def log_loss(outcomes: np.ndarray, probabilities: np.ndarray) -> float:
    """Mean negative log-likelihood of the 0/1 outcomes (probabilities clipped away from 0 and 1)."""
    p = np.clip(probabilities, 1e-9, 1 - 1e-9)
    return float(-np.mean(np.where(outcomes, np.log(p), np.log(1 - p))))


def reliability(
    outcomes: Sequence[bool] | np.ndarray, probabilities: Sequence[float] | np.ndarray, bins: int = 10
) -> list[tuple[float, float, int]]:
    """(mean predicted, observed success rate, count) of each non-empty equal-width probability bin."""
    y = np.asarray(outcomes, dtype=np.float64)
    p = np.asarray(probabilities, dtype=np.float64)
    index = np.minimum((p * bins).astype(int), bins - 1)
    return [
        (float(p[index == b].mean()), float(y[index == b].mean()), int((index == b).sum()))
        for b in range(bins)
        if (index == b).any()
    ]


def plot_reliability(path: Path, curves: Mapping[str, Mapping[str, list[tuple[float, float, int]]]]) -> None:
    """One panel per family, a line per model (``curves[family][model]``), the diagonal for reference."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = list(curves)
    figure, axes = plt.subplots(1, len(families), figsize=(4.2 * len(families), 4.0), squeeze=False)
    for axis, family in zip(axes[0], families, strict=True):
        axis.plot([0, 1], [0, 1], color="0.7", linestyle="--", label="perfectly calibrated")
        for model, points in curves[family].items():
            axis.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=model)
        axis.set(title=family, xlabel="predicted p(success)", ylabel="observed success rate", xlim=(0, 1), ylim=(0, 1))
        axis.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)

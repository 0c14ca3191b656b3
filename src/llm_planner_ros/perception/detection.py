"""What every detector backend returns, and the interface the pipeline calls.

A backend turns one RGB-D frame and a list of text queries into ``Detection``s: a pixel box, an
optional pixel mask, and one score per query (the label is the best-scoring query). Backends differ in
how they find regions (OWL-ViT/OWLv2 predict boxes; the embedded backend segments depth and colour)
but all rank labels by text queries, so a new name or a synonym needs no retraining.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from llm_planner_ros.perception.geometry import Intrinsics, Transform


class DetectorError(RuntimeError):
    """A detector that cannot load or run; the message says what is missing and how to fix it."""


@dataclass(frozen=True)
class Detection:
    """One region: ``box`` (x0, y0, x1, y1) in pixels, exclusive ends; ``mask`` (H, W) bool or None
    (then the box is the region); ``scores`` one value in [0, 1] per query, in the queries' order."""

    box: tuple[int, int, int, int]
    scores: np.ndarray
    queries: tuple[str, ...]
    mask: np.ndarray | None = None

    @property
    def label(self) -> str:
        return self.queries[int(np.argmax(self.scores))]

    @property
    def score(self) -> float:
        return float(np.max(self.scores))

    def region(self, shape: tuple[int, int]) -> np.ndarray:
        """(H, W) bool: the mask, or the box filled when there is none."""
        if self.mask is not None:
            return self.mask
        region = np.zeros(shape, dtype=bool)
        x0, y0, x1, y1 = self.box
        region[max(y0, 0) : max(y1, 0), max(x0, 0) : max(x1, 0)] = True
        return region


@dataclass(frozen=True)
class View:
    """One RGB-D frame: ``rgb`` (H, W, 3) uint8, ``depth`` (H, W) metres (0 or NaN: unknown), registered
    to the same pinhole ``intrinsics``; ``camera`` maps camera-frame points to the map frame."""

    rgb: np.ndarray
    depth: np.ndarray
    intrinsics: Intrinsics
    camera: Transform


class Detector(Protocol):
    """A detector backend: ``detect`` returns the regions of a view with their scores for ``queries``."""

    @property
    def name(self) -> str: ...

    def detect(self, view: View, queries: Sequence[str]) -> list[Detection]: ...


def box_of(mask: np.ndarray) -> tuple[int, int, int, int]:
    """The tight (x0, y0, x1, y1) box of a non-empty mask, exclusive ends."""
    rows, cols = np.any(mask, axis=1), np.any(mask, axis=0)
    y0, y1 = np.flatnonzero(rows)[[0, -1]]
    x0, x1 = np.flatnonzero(cols)[[0, -1]]
    return (int(x0), int(y0), int(x1) + 1, int(y1) + 1)


def box_iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two pixel boxes."""
    w = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0

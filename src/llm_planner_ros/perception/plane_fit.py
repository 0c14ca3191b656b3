"""The dominant plane of a point cloud by RANSAC, reproducible: the same points give the same plane.

open3d's ``segment_plane`` draws its samples from a process-wide generator that is seeded differently
in every process, so one frame could be lifted differently from one run to the next (an energy bar's
top found as a plane in about 1 process in 150, leaving a 3 cm fragment as the object and a pick that
hits it). Here the samples come from a generator the caller seeds, every hypothesis is scored at once
(numpy), and the winner is refitted to its inliers by least squares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Plane:
    """``normal`` (unit, z >= 0 where the plane is not vertical) and ``offset``: normal . p + offset = 0
    on the plane; ``inliers``: indices of the points within the fit's distance of it."""

    normal: np.ndarray
    offset: float
    inliers: np.ndarray


def fit_plane(points: np.ndarray, distance: float, hypotheses: int, rng: np.random.Generator) -> Plane | None:
    """The plane through the most of ``points`` (N, 3) within ``distance`` (m), tried from
    ``hypotheses`` random triples; None when fewer than three points or every triple is degenerate."""
    if len(points) < 3:
        return None
    triples = points[rng.integers(0, len(points), size=(hypotheses, 3))]
    normals = np.cross(triples[:, 1] - triples[:, 0], triples[:, 2] - triples[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    valid = lengths > 1e-12
    if not valid.any():
        return None
    normals = normals[valid] / lengths[valid, None]
    offsets = -np.einsum("kj,kj->k", normals, triples[valid, 0])
    counts = (np.abs(points @ normals.T + offsets) <= distance).sum(axis=0)
    best = int(np.argmax(counts))
    inliers = np.flatnonzero(np.abs(points @ normals[best] + offsets[best]) <= distance)
    return _refit(points, inliers, distance) if len(inliers) >= 3 else Plane(normals[best], offsets[best], inliers)


def _refit(points: np.ndarray, inliers: np.ndarray, distance: float) -> Plane:
    """The least-squares plane of the inliers (smallest principal axis) and its own inliers."""
    chosen = points[inliers]
    centre = chosen.mean(axis=0)
    normal = np.linalg.svd(chosen - centre, full_matrices=False)[2][-1]
    if normal[2] < 0:
        normal = -normal
    offset = -float(normal @ centre)
    return Plane(normal, offset, np.flatnonzero(np.abs(points @ normal + offset) <= distance))

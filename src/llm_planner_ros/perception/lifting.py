"""A 2D detection lifted to a 3D object in the map frame (open3d).

The region's pixels with depth become a point cloud in the map frame; a horizontal plane holding a
large share of it and lying under the rest (the counter under a box detection) is removed by RANSAC
(``llm_planner_ros.perception.plane_fit``, seeded, so a frame always lifts the same way),
while one with points below it (a sponge's top, seen from above), or with no cluster standing on it
(an energy bar's top), is the object's own top and stays;
DBSCAN keeps the largest cluster, which drops the background seen around the object. The object's
centre and extent are the cluster's axis-aligned bounds in the map frame, its bottom extended down to
the support it stands on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import open3d as o3d

from llm_planner_ros.perception.detection import Detection
from llm_planner_ros.perception.geometry import Intrinsics, Transform, backproject
from llm_planner_ros.perception.plane_fit import fit_plane


@dataclass(frozen=True)
class LiftConfig:
    """``max_points``: the cloud is subsampled to this many points (speed); ``plane_distance`` and
    ``plane_fraction``: RANSAC inlier distance (m) and the inlier share a horizontal plane needs to be
    removed; ``plane_hypotheses``: RANSAC's sampled triples; ``cluster_eps`` (m) and
    ``cluster_min_points``: DBSCAN; ``min_points``: fewer cluster points give no object;
    ``below_fraction``: a plane with more than this share of the other points below it is an object's
    top face, not a support, and is kept."""

    max_points: int = 1500
    plane_distance: float = 0.006
    plane_fraction: float = 0.3
    plane_hypotheses: int = 200
    cluster_eps: float = 0.02
    cluster_min_points: int = 8
    min_points: int = 15
    below_fraction: float = 0.1


@dataclass(frozen=True)
class Lifted:
    """A detection in 3D: ``centre`` and ``extent`` (m, map frame), points kept."""

    detection: Detection
    centre: np.ndarray
    extent: np.ndarray
    points: int


def lift(
    detection: Detection,
    depth: np.ndarray,
    intrinsics: Intrinsics,
    camera: Transform,
    config: LiftConfig,
    seed: int = 0,
) -> Lifted | None:
    """``detection`` in the map frame, or None when its region holds too few points with depth."""
    camera_points = backproject(depth, intrinsics, detection.region(depth.shape))
    if len(camera_points) < config.min_points:
        return None
    rng = np.random.default_rng(seed)
    if len(camera_points) > config.max_points:
        camera_points = camera_points[rng.choice(len(camera_points), config.max_points, replace=False)]
    whole = camera.apply(camera_points)
    cloud, support = whole, None
    # Up to two horizontal planes: the support under a box, and the floor seen past a counter's edge.
    for _ in range(2):
        if len(cloud) < 3 * config.min_points:
            break
        plane = fit_plane(cloud, config.plane_distance, config.plane_hypotheses, rng)
        if plane is None:
            break
        horizontal = abs(plane.normal[2]) > 0.95
        if not horizontal or len(plane.inliers) < config.plane_fraction * len(cloud):
            break
        heights = cloud[:, 2]
        height = float(np.median(heights[plane.inliers]))
        others = np.delete(heights, plane.inliers)
        if np.count_nonzero(others < height - 2 * config.plane_distance) > config.below_fraction * len(others):
            break
        support = height if support is None else max(support, height)
        cloud = np.delete(cloud, plane.inliers, axis=0)
    points = _largest_cluster(cloud, config)
    if points is None and support is not None:
        # Nothing stands on the plane: it was a flat object's top seen from above (an energy bar whose
        # front face shows two pixel rows), not a support.
        points, support = _largest_cluster(whole, config), None
    if points is None:
        return None
    low, high = np.percentile(points, 1, axis=0), np.percentile(points, 99, axis=0)
    if support is not None and 0.0 < low[2] - support < 0.05:
        low[2] = support
    return Lifted(detection, (low + high) / 2.0, high - low, len(points))


def _largest_cluster(cloud: np.ndarray, config: LiftConfig) -> np.ndarray | None:
    """The points of the cloud's largest DBSCAN cluster, or None when it has fewer than ``min_points``."""
    if len(cloud) == 0:
        return None
    points3d = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(cloud))
    labels = np.asarray(points3d.cluster_dbscan(config.cluster_eps, config.cluster_min_points))
    if labels.size == 0 or labels.max() < 0:
        return None
    points = cloud[labels == np.bincount(labels[labels >= 0]).argmax()]
    return points if len(points) >= config.min_points else None

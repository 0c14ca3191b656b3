"""Class-agnostic object proposals from depth (the first half of the embedded, ViLD-like detector).

Horizontal supports (floor, counters, tables) are the heights where many map-frame points gather; a
pixel belongs to an object when it stands 1 to 45 cm above the highest support below it. Depth steps
cut the foreground where one object occludes another, and each connected region of a plausible object
size that stands on its support (support pixels within ``support_margin`` of its footprint: a robot's
own gripper in front of a counter is above the counter's height but not on it) is a proposal. Needs the
camera pose: heights are in the map frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from llm_planner_ros.perception.detection import box_of
from llm_planner_ros.perception.geometry import Intrinsics, Transform, rotate


@dataclass(frozen=True)
class ProposalConfig:
    """``support_fraction``: share of the valid pixels a height bin needs to count as a support;
    ``min_height``/``max_height``: metres above the support an object pixel may be; ``depth_step``:
    jump between neighbours (m, per metre of depth) that separates two objects; ``min_pixels``,
    ``max_extent``: proposals smaller, or wider in the map (m), are dropped; ``support_margin`` (m),
    ``min_support_pixels``: a proposal needs that many support pixels within the margin of its footprint."""

    support_fraction: float = 0.04
    min_height: float = 0.008
    max_height: float = 0.45
    depth_step: float = 0.02
    min_pixels: int = 25
    max_extent: float = 0.4
    support_margin: float = 0.04
    min_support_pixels: int = 10


@dataclass(frozen=True)
class Proposal:
    """A region that stands on a support: its mask, box and the support's height (m, map frame)."""

    mask: np.ndarray
    box: tuple[int, int, int, int]
    support_height: float


def support_heights(z: np.ndarray, fraction: float) -> list[float]:
    """Heights (m) of the horizontal supports among the map-frame heights ``z`` of the valid pixels."""
    if z.size == 0:
        return []
    bins = np.arange(np.floor(z.min() * 100) / 100 - 0.01, z.max() + 0.02, 0.01)
    counts, edges = np.histogram(z, bins=bins)
    # Two neighbouring bins: a plane's noise can straddle a bin edge.
    paired = counts[:-1] + counts[1:] if len(counts) > 1 else counts
    heights = []
    for index in np.flatnonzero(paired >= fraction * z.size):
        if index > 0 and paired[index - 1] >= paired[index]:
            continue
        if index + 1 < len(paired) and paired[index + 1] > paired[index]:
            continue
        chosen = (z >= edges[index]) & (z < edges[min(index + 2, len(edges) - 1)])
        heights.append(float(np.median(z[chosen])))
    return heights


def propose(depth: np.ndarray, intrinsics: Intrinsics, camera: Transform, config: ProposalConfig) -> list[Proposal]:
    """The object proposals of one depth image (``camera``: camera frame to map frame)."""
    valid = np.isfinite(depth) & (depth > 0)
    rays = intrinsics.rays()
    map_points = np.full((*depth.shape, 3), np.nan)
    map_points[valid] = rotate(rays[valid] * depth[valid][:, None], camera.rotation) + camera.translation
    heights_map = map_points[:, :, 2]
    supports = sorted(support_heights(heights_map[valid], config.support_fraction))
    if not supports:
        return []
    levels = np.asarray(supports)
    # The support under each pixel: the highest level at most 1 cm above it.
    index = np.searchsorted(levels, np.nan_to_num(heights_map, nan=-1e9) + 0.01, side="right") - 1
    has_support = valid & (index >= 0)
    under = levels[np.clip(index, 0, len(levels) - 1)]
    above = np.where(has_support, heights_map - under, 0.0)
    foreground = has_support & (above > config.min_height) & (above < config.max_height)
    foreground &= ~_depth_edges(depth, config.depth_step)
    foreground = _open(foreground)
    flat = _horizontal(heights_map)
    count, labels = cv2.connectedComponents(foreground.astype(np.uint8), connectivity=4)
    proposals = []
    for component in range(1, count):
        mask = labels == component
        if int(mask.sum()) < config.min_pixels:
            continue
        cloud = map_points[mask]
        low, high = np.percentile(cloud, 2, axis=0), np.percentile(cloud, 98, axis=0)
        if float((high - low).max()) > config.max_extent:
            continue
        support = float(np.median(under[mask]))
        if not _stands_on(map_points, flat, support, low, high, config):
            continue
        proposals.append(Proposal(mask, box_of(mask), support))
    return proposals


def _stands_on(
    map_points: np.ndarray, flat: np.ndarray, support: float, low: np.ndarray, high: np.ndarray, config: ProposalConfig
) -> bool:
    """Whether the support's horizontal (``flat``) surface shows within ``support_margin`` of the
    footprint ``low``-``high``."""
    margin = config.support_margin
    x, y, z = map_points[:, :, 0], map_points[:, :, 1], map_points[:, :, 2]
    with np.errstate(invalid="ignore"):
        near = (
            flat
            & (np.abs(z - support) < 0.01)
            & (x > low[0] - margin)
            & (x < high[0] + margin)
            & (y > low[1] - margin)
            & (y < high[1] + margin)
        )
    return int(near.sum()) >= config.min_support_pixels


def _open(mask: np.ndarray) -> np.ndarray:
    """``mask`` without its one-pixel specks and lines (a 2 x 2 opening), in place.

    OpenCV anchors an even kernel off centre and does not reflect it for the dilation, so its own
    2 x 2 opening moves every region one pixel right and down: a can's box lost two pixels on its left
    and top, which put its perceived centre 5 mm off at a metre, more than an apple's 3.6 mm of grasp
    clearance. Dilating with the anchor on the other corner undoes the erosion's shift."""
    kernel = np.ones((2, 2), np.uint8)
    return cv2.dilate(cv2.erode(mask.astype(np.uint8), kernel), kernel, anchor=(0, 0)) > 0


def _horizontal(z: np.ndarray) -> np.ndarray:
    """Pixels on a horizontal surface: the height stays within 4 mm two pixels right and two down (a curved
    robot link at a support's height is no support)."""
    flat = np.zeros(z.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        flat[:-2, :-2] = (np.abs(z[:-2, :-2] - z[2:, :-2]) < 0.004) & (np.abs(z[:-2, :-2] - z[:-2, 2:]) < 0.004)
    return flat


def _depth_edges(depth: np.ndarray, step: float) -> np.ndarray:
    """Pixels next to a depth jump larger than ``step`` times the depth (relative: noise grows with range)."""
    padded = np.pad(depth, 1, mode="edge")
    jump = np.zeros(depth.shape, dtype=bool)
    for dy, dx in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        neighbour = padded[1 + dy : 1 + dy + depth.shape[0], 1 + dx : 1 + dx + depth.shape[1]]
        jump |= np.abs(neighbour - depth) > step * np.maximum(depth, 0.3)
    return jump

"""Pinhole cameras rendered headless by PyBullet's TinyRenderer: RGB, metric depth, segmentation.

A ``Frame`` carries the images and the intrinsics (``K`` as in sensor_msgs/CameraInfo) of one render.
The segmentation image holds PyBullet body ids (-1 for the background); the simulation maps them to
object ids for its ground truth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pybullet as pb


@dataclass(frozen=True)
class CameraSpec:
    """Image size (pixels), vertical field of view (degrees) and clipping planes (metres)."""

    name: str
    width: int
    height: int
    fov_deg: float
    near: float = 0.05
    far: float = 10.0

    @property
    def focal_px(self) -> float:
        return (self.height / 2) / math.tan(math.radians(self.fov_deg) / 2)

    def intrinsics(self) -> tuple[float, ...]:
        """Row-major 3x3 camera matrix K (fx = fy, principal point at the image centre)."""
        f = self.focal_px
        return (f, 0.0, self.width / 2, 0.0, f, self.height / 2, 0.0, 0.0, 1.0)


@dataclass(frozen=True)
class Frame:
    """One render: rgb (H, W, 3) uint8, depth (H, W) float32 metres along the optical axis, segmentation
    (H, W) int32 body ids, and where the camera was (eye, target, up in the map frame)."""

    spec: CameraSpec
    rgb: np.ndarray
    depth: np.ndarray
    segmentation: np.ndarray
    eye: tuple[float, float, float]
    target: tuple[float, float, float]


def render(
    client: int,
    spec: CameraSpec,
    eye: Sequence[float],
    target: Sequence[float],
    up: Sequence[float] = (0.0, 0.0, 1.0),
) -> Frame:
    view = pb.computeViewMatrix(list(eye), list(target), list(up), physicsClientId=client)
    projection = pb.computeProjectionMatrixFOV(
        spec.fov_deg, spec.width / spec.height, spec.near, spec.far, physicsClientId=client
    )
    _, _, rgba, depth_buffer, segmentation = pb.getCameraImage(
        spec.width,
        spec.height,
        view,
        projection,
        renderer=pb.ER_TINY_RENDERER,
        physicsClientId=client,
    )
    rgb = np.asarray(rgba, dtype=np.uint8).reshape(spec.height, spec.width, 4)[:, :, :3].copy()
    buffer = np.asarray(depth_buffer, dtype=np.float32).reshape(spec.height, spec.width)
    # The depth buffer is non-linear in [0, 1]; this is its inverse for the projection above.
    depth = spec.far * spec.near / (spec.far - (spec.far - spec.near) * buffer)
    mask = np.asarray(segmentation, dtype=np.int32).reshape(spec.height, spec.width)
    return Frame(spec, rgb, depth.astype(np.float32), mask, tuple(eye), tuple(target))  # type: ignore[arg-type]

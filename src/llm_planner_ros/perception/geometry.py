"""Pinhole cameras and rigid transforms: pixels with depth to points in the map frame.

Camera frames are optical (x right, y down, z forward), as in sensor_msgs/CameraInfo.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Intrinsics:
    """A pinhole camera without distortion: focal lengths and principal point in pixels, image size."""

    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int

    @classmethod
    def from_fov(cls, width: int, height: int, horizontal_fov_deg: float) -> Intrinsics:
        """Square pixels, centred principal point, the given horizontal field of view."""
        focal = width / (2.0 * np.tan(np.radians(horizontal_fov_deg) / 2.0))
        return cls(focal, focal, (width - 1) / 2.0, (height - 1) / 2.0, width, height)

    @classmethod
    def from_k(cls, k: np.ndarray | list[float], width: int, height: int) -> Intrinsics:
        """From a row-major 3x3 camera matrix (CameraInfo.k)."""
        m = np.asarray(k, dtype=float).reshape(3, 3)
        return cls(float(m[0, 0]), float(m[1, 1]), float(m[0, 2]), float(m[1, 2]), int(width), int(height))

    def rays(self) -> np.ndarray:
        """(H, W, 3) ray directions in the camera frame with z = 1 (depth times ray = point)."""
        u, v = np.meshgrid(np.arange(self.width, dtype=np.float32), np.arange(self.height, dtype=np.float32))
        return np.stack([(u - self.cx) / self.fx, (v - self.cy) / self.fy, np.ones_like(u)], axis=-1)


@dataclass(frozen=True)
class Transform:
    """A rigid transform: ``apply(p) = rotation @ p + translation`` (camera frame to map frame here)."""

    rotation: np.ndarray
    translation: np.ndarray

    @classmethod
    def identity(cls) -> Transform:
        return cls(np.eye(3), np.zeros(3))

    @classmethod
    def from_pose(
        cls, position: tuple[float, float, float], quaternion_xyzw: tuple[float, float, float, float]
    ) -> Transform:
        """From a position and a unit quaternion (x, y, z, w), as in geometry_msgs/Pose; ValueError for a
        zero quaternion."""
        q = np.asarray(quaternion_xyzw, dtype=float)
        norm = np.linalg.norm(q)
        if norm < 1e-9:
            raise ValueError("camera pose quaternion is zero: give a unit quaternion (x, y, z, w)")
        x, y, z, w = q / norm
        rotation = np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
            ]
        )
        return cls(rotation, np.asarray(position, dtype=float))

    @classmethod
    def look_at(cls, eye: np.ndarray | list[float], target: np.ndarray | list[float]) -> Transform:
        """The optical camera at ``eye`` looking at ``target`` with the map's z axis up in the image (the
        map's x axis to the right when it looks straight down or up)."""
        eye_v, forward = np.asarray(eye, dtype=float), np.asarray(target, dtype=float) - np.asarray(eye, dtype=float)
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, [0.0, 0.0, 1.0])
        if np.linalg.norm(right) < 1e-6:  # straight down or up (a wrist camera over a grasp): x is right
            right = np.array([1.0, 0.0, 0.0])
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        return cls(np.stack([right, down, forward], axis=1), eye_v)

    def quaternion_xyzw(self) -> tuple[float, float, float, float]:
        """The rotation as a unit quaternion (x, y, z, w), w >= 0. Shepperd's method: the square root is
        taken of the largest of the four diagonal sums, so a rotation near 180 degrees (w near 0: a
        camera looking along -y) keeps the relative signs of x, y and z, which per-component square
        roots with copied signs lose."""
        m = self.rotation
        trace = m[0, 0] + m[1, 1] + m[2, 2]
        if trace > 0.0:
            s = 2.0 * np.sqrt(1.0 + trace)
            q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4.0)
        elif m[0, 0] >= m[1, 1] and m[0, 0] >= m[2, 2]:
            s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
            q = (s / 4.0, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
        elif m[1, 1] >= m[2, 2]:
            s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
            q = ((m[0, 1] + m[1, 0]) / s, s / 4.0, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
        else:
            s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
            q = ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4.0, (m[1, 0] - m[0, 1]) / s)
        unit = np.asarray(q, dtype=float) / np.linalg.norm(q)
        if unit[3] < 0.0:
            unit = -unit
        return (float(unit[0]), float(unit[1]), float(unit[2]), float(unit[3]))

    def apply(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) points mapped through the transform."""
        return rotate(points, self.rotation) + self.translation


def rotate(points: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """(N, 3) points times ``rotation`` transposed; einsum, because small matmuls through BLAS threads
    are several times slower on a loaded machine."""
    return np.einsum("ij,kj->ik", points, rotation)


def backproject(depth: np.ndarray, intrinsics: Intrinsics, mask: np.ndarray | None = None) -> np.ndarray:
    """(N, 3) camera-frame points of the pixels with a valid depth (finite, > 0), inside ``mask`` if given."""
    valid = np.isfinite(depth) & (depth > 0)
    if mask is not None:
        valid &= mask
    v, u = np.nonzero(valid)
    z = depth[v, u].astype(np.float64)
    return np.stack([(u - intrinsics.cx) / intrinsics.fx * z, (v - intrinsics.cy) / intrinsics.fy * z, z], axis=1)

"""Poses as the executors send them: a frame, a position and an orientation quaternion (x, y, z, w)."""

from __future__ import annotations

import math
from dataclasses import dataclass

Quaternion = tuple[float, float, float, float]
"""(x, y, z, w), as geometry_msgs/Quaternion."""


@dataclass(frozen=True)
class Pose:
    """A pose in ``frame``: position in metres, orientation as a unit quaternion (x, y, z, w)."""

    frame: str
    x: float
    y: float
    z: float = 0.0
    orientation: Quaternion = (0.0, 0.0, 0.0, 1.0)

    def shifted(self, dx: float = 0.0, dy: float = 0.0, dz: float = 0.0) -> Pose:
        """The same pose moved by (dx, dy, dz) in its frame."""
        return Pose(self.frame, self.x + dx, self.y + dy, self.z + dz, self.orientation)


def yaw_quaternion(yaw: float) -> Quaternion:
    """The rotation by ``yaw`` radians about z (a base heading on the map)."""
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))


def quaternion_product(a: Quaternion, b: Quaternion) -> Quaternion:
    """The rotation ``b`` followed by ``a`` (the Hamilton product a * b), both (x, y, z, w)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def turned(q: Quaternion, yaw: float) -> Quaternion:
    """The orientation ``q`` turned by ``yaw`` radians about the map's vertical axis."""
    return quaternion_product(yaw_quaternion(yaw), q)


def quaternion_yaw(q: Quaternion) -> float:
    """The heading (rad, about the map's vertical) that ``q`` (x, y, z, w) turns the x axis to."""
    x, y, z, w = q
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def half_turn(angle: float) -> float:
    """``angle`` modulo pi, in (-pi/2, pi/2]: the same axis for a symmetric gripper's fingers."""
    folded = math.remainder(angle, math.pi)
    return math.pi / 2.0 if folded <= -math.pi / 2.0 else folded


Vector = tuple[float, float, float]


def frame_quaternion(x_axis: Vector, y_axis: Vector, z_axis: Vector) -> Quaternion:
    """The rotation whose columns are the given orthonormal axes (right-handed), as a unit quaternion."""
    (m00, m10, m20), (m01, m11, m21), (m02, m12, m22) = x_axis, y_axis, z_axis
    trace = m00 + m11 + m22
    # Shepperd's method: divide by the largest of the four candidates so that no branch loses precision.
    if trace > 0.0:
        s = 2.0 * math.sqrt(1.0 + trace)
        return ((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4.0)
    if m00 > m11 and m00 > m22:
        s = 2.0 * math.sqrt(1.0 + m00 - m11 - m22)
        return (s / 4.0, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s)
    if m11 > m22:
        s = 2.0 * math.sqrt(1.0 + m11 - m00 - m22)
        return ((m01 + m10) / s, s / 4.0, (m12 + m21) / s, (m02 - m20) / s)
    s = 2.0 * math.sqrt(1.0 + m22 - m00 - m11)
    return ((m02 + m20) / s, (m12 + m21) / s, s / 4.0, (m10 - m01) / s)


def rotate(q: Quaternion, v: Vector) -> Vector:
    """The vector ``v`` rotated by the unit quaternion ``q``."""
    x, y, z, w = q
    # v' = v + 2w (u x v) + 2 u x (u x v), with u the quaternion's vector part.
    cx, cy, cz = y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]
    return (
        v[0] + 2.0 * (w * cx + y * cz - z * cy),
        v[1] + 2.0 * (w * cy + z * cx - x * cz),
        v[2] + 2.0 * (w * cz + x * cy - y * cx),
    )

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

"""What a robot has before it runs a skill: perceived objects (noisy) and its own state.

The fields mirror the robot's interfaces, so the same record is built from a physics rollout (the
collector adds perception noise to the simulator's state) and from ROS messages on a robot
(``/scene/objects`` SceneObject: label, centre, axis-aligned size, semantic location, confidence; the
robot-state record: position, place, what the gripper holds, drawer state). Nothing here is a fact
only the simulator knows (no orientation, no contact list, no true ids of hidden objects).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PerceivedObject:
    """One detection: label, centre (map frame, m), axis-aligned size (m), location ("" when none), confidence."""

    label: str
    position: tuple[float, float, float]
    size: tuple[float, float, float]
    location: str = ""
    confidence: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "position": [round(v, 4) for v in self.position],
            "size": [round(v, 4) for v in self.size],
            "location": self.location,
            "confidence": round(self.confidence, 3),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PerceivedObject:
        return cls(
            str(data["label"]),
            _triple(data["position"]),
            _triple(data["size"]),
            str(data.get("location") or ""),
            float(data.get("confidence", 1.0)),
        )


@dataclass(frozen=True)
class Observation:
    """The robot's view before a skill: its position and place, the held label, drawer state, objects."""

    robot_xy: tuple[float, float]
    robot_at: str
    holding_label: str | None
    drawer_open: bool | None
    objects: tuple[PerceivedObject, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "robot_xy": [round(v, 4) for v in self.robot_xy],
            "robot_at": self.robot_at,
            "holding_label": self.holding_label,
            "drawer_open": self.drawer_open,
            "objects": [o.to_dict() for o in self.objects],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Observation:
        x, y = (float(v) for v in data["robot_xy"])
        return cls(
            (x, y),
            str(data["robot_at"]),
            data.get("holding_label"),
            data.get("drawer_open"),
            tuple(PerceivedObject.from_dict(o) for o in data["objects"]),
        )


def _triple(values: Any) -> tuple[float, float, float]:
    a, b, c = (float(v) for v in values)
    return (a, b, c)

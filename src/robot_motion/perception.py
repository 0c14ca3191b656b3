"""Objects as perception reports them (``/scene/objects``, llm_planner_interfaces/SceneObject), and which
one a skill that names only a label ("pick up the coke") means."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kitchen_domain.config import HELD
from robot_motion.geometry import Pose


@dataclass(frozen=True)
class PerceivedObject:
    """One perceived object: id, label, semantic location (a place name, ``robot`` when held), the pose
    of its centre, its height (metres, for setting it down) and ``radius``, half the diagonal of its
    footprint (for keeping clear of it when putting another object down; 0 when not reported)."""

    id: str
    label: str
    location: str
    pose: Pose
    height: float
    radius: float = 0.0

    @property
    def held(self) -> bool:
        return self.location == HELD


def object_to_pick(label: str, objects: Sequence[PerceivedObject], place: str | None) -> PerceivedObject | None:
    """The ``label`` object a pick means: one at the robot's ``place`` when there is one, else the first
    one reported that is not in the gripper; None when perception reports none."""
    candidates = [obj for obj in objects if obj.label == label and not obj.held]
    here = [obj for obj in candidates if place is not None and obj.location == place]
    return (here or candidates or [None])[0]

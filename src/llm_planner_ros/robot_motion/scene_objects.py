"""Objects as perception reports them (``/scene/objects``, llm_planner_interfaces/SceneObject), and which
one a skill that names only a label ("pick up the coke") means."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from llm_planner_ros.domain.config import HELD
from llm_planner_ros.robot_motion.geometry import Pose


@dataclass(frozen=True)
class PerceivedObject:
    """One perceived object: id, label, semantic location (a place name, ``robot`` when held), the pose
    of its centre, its height (metres, for setting it down) and ``footprint``, its extent along the
    pose frame's x and y axes (metres; 0 when not reported)."""

    id: str
    label: str
    location: str
    pose: Pose
    height: float
    footprint: tuple[float, float] = (0.0, 0.0)

    @property
    def radius(self) -> float:
        """Half the diagonal of the footprint: put down keeps this clear of the object."""
        return math.hypot(*self.footprint) / 2.0

    @property
    def held(self) -> bool:
        return self.location == HELD


def object_to_pick(label: str, objects: Sequence[PerceivedObject], place: str | None) -> PerceivedObject | None:
    """The ``label`` object a pick means: one at the robot's ``place`` when there is one, else the first
    one reported that is not in the gripper; None when perception reports none."""
    candidates = [obj for obj in objects if obj.label == label and not obj.held]
    here = [obj for obj in candidates if place is not None and obj.location == place]
    return (here or candidates or [None])[0]


def resting_on(obj: PerceivedObject, surface_z: float, gap: float = 0.05) -> PerceivedObject:
    """``obj`` with its bottom extended down to the surface at ``surface_z`` (same frame) when it is
    reported less than ``gap`` above it, else as reported. A camera looking down sees an object's top and
    front, not where it meets the surface: a 7.4 cm apple on a counter was reported 5 cm tall, so its
    grasp was made for 5 cm and the put down drove it 2.4 cm into the table."""
    bottom = obj.pose.z - obj.height / 2.0
    if not 0.0 < bottom - surface_z < gap:
        return obj
    top = obj.pose.z + obj.height / 2.0
    pose = replace(obj.pose, z=(top + surface_z) / 2.0)
    return replace(obj, pose=pose, height=top - surface_z)

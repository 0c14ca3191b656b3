"""The motions of "pick up the X" from the perceived scene, as the manipulator executor plans them.

One function for every caller that must pick as the robot does: the ``moveit`` executor backend (its
goals go to MoveIt) and the value-function collector's perception-observed rollouts (the same motions
run on the physics kitchen), so a value function learns the failures of the robot's own picks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llm_planner_ros.robot_motion.manipulation import ArmSettings, Motion, grasp_yaw, pick_motion
from llm_planner_ros.robot_motion.navigation import MotionError
from llm_planner_ros.robot_motion.place_map import PlaceMap
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject, object_to_pick, resting_on


@dataclass(frozen=True)
class PickPlan:
    """The object a pick means (as perceived, its bottom extended to the surface it rests on) and the
    motions that pick it."""

    target: PerceivedObject
    motions: list[Motion]


def plan_pick(
    label: str, objects: Sequence[PerceivedObject], place: str | None, places: PlaceMap, settings: ArmSettings
) -> PickPlan:
    """The pick of a ``label`` object by a robot at ``place`` (None: at no known place); MotionError when
    perception reports none. At a place of the map the grasp turns to its heading (``grasp_yaw``) and an
    object lying there is taken to rest on its surface (``resting_on``)."""
    target = object_to_pick(label, objects, place)
    if target is None:
        raise MotionError(f"perception reports no {label} to pick (on /scene/objects)")
    entry = places.place(place) if place is not None else None
    surface = entry.surface if entry is not None else None
    if surface is not None and target.location == place and target.pose.frame == surface.frame:
        target = resting_on(target, surface.z)
    yaw = grasp_yaw(target, entry.heading, settings) if entry is not None else 0.0
    return PickPlan(target, pick_motion(target, settings, yaw))

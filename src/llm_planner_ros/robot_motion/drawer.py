"""The drawer skills as arm motions: open and close the drawer by its handle, put an object in it.

A place's drawer (``Drawer``, from the place map) is its handle's centre while closed, the direction it
opens (``open_yaw``, horizontal, in the map frame), how far it slides (``travel``) and the point on the
open drawer's bottom where objects go (``interior``). With u the opening direction:

open / close (handle H: closed position to open, H + u * travel to close):
  open gripper -> pre-grasp handle (handle_approach_distance in front of H, towards u)
  -> approach handle (the fingertips at H) -> close on handle (must stall on it: ``grasp_failure``)
  -> pull (open: along u) or push (close: against u) by ``travel`` in ``pull_steps`` straight segments
  -> release handle (open gripper) -> retreat (handle_approach_distance along u) -> stow
put the X in the drawer: put down (``place_motion``) on ``interior`` (or a free spot of it).

The hand faces the handle: its approach axis (z) points against u, its fingers close vertically
(``handle_roll`` 0, a horizontal bar handle; pi/2 for a vertical bar). ``grasp_offset`` is the
end-effector link's distance behind the fingertips along that axis, as it is above them in a top-down
grasp.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llm_planner_ros.domain.skill import DRAWER, Skill
from llm_planner_ros.robot_motion.geometry import Pose, Quaternion, frame_quaternion
from llm_planner_ros.robot_motion.manipulation import (
    ArmMove,
    ArmSettings,
    GripperMove,
    LinearMove,
    Motion,
    place_motion,
    stow_motion,
)
from llm_planner_ros.robot_motion.navigation import MotionError
from llm_planner_ros.robot_motion.place_map import Drawer

OPEN, CLOSE, PUT = "open", "close", "put"


@dataclass(frozen=True)
class DrawerSettings:
    """How the arm works a drawer's handle (defaults: a Franka Panda)."""

    handle_approach_distance: float = 0.1
    pull_steps: int = 3
    path_tolerance: float = 0.02
    handle_roll: float = 0.0


def drawer_action(skill: Skill) -> str:
    """Which drawer skill this is: OPEN, CLOSE or PUT (an object in); MotionError for another skill."""
    words = skill.text.split()
    if skill.family == DRAWER and skill.argument and words[0] == "put":
        return PUT
    if skill.family == DRAWER and not skill.argument and words[0] in (OPEN, CLOSE):
        return words[0]
    raise MotionError(
        f"{skill.text!r} is not a drawer skill the arm knows (open the drawer, close the drawer, put the X in the "
        "drawer)"
    )


def handle_orientation(drawer: Drawer, roll: float) -> Quaternion:
    """The hand facing the handle (z against the opening direction), fingers vertical turned by ``roll``."""
    ux, uy, _ = drawer.direction
    z = (-ux, -uy, 0.0)
    # With the fingers' axis (y) straight up, x = y cross z lies horizontal, across the drawer.
    x0, y0 = (uy, -ux, 0.0), (0.0, 0.0, 1.0)
    c, s = math.cos(roll), math.sin(roll)
    x = (c * x0[0] + s * y0[0], c * x0[1] + s * y0[1], c * x0[2] + s * y0[2])
    y = (-s * x0[0] + c * y0[0], -s * x0[1] + c * y0[1], -s * x0[2] + c * y0[2])
    return frame_quaternion(x, y, z)


def drawer_motion(drawer: Drawer, opening: bool, arm: ArmSettings, settings: DrawerSettings) -> list[Motion]:
    """Grasp the handle, pull the drawer open (``opening``) or push it closed, let go, retreat, stow."""
    ux, uy, _ = drawer.direction
    handle = drawer.handle_at(is_open=not opening)
    behind = arm.grasp_offset
    grasp = Pose(
        handle.frame,
        handle.x + ux * behind,
        handle.y + uy * behind,
        handle.z,
        handle_orientation(drawer, settings.handle_roll),
    )
    away = settings.handle_approach_distance
    sign = 1.0 if opening else -1.0
    verb = "pull" if opening else "push"
    steps: list[Motion] = []
    start = grasp
    for index in range(1, settings.pull_steps + 1):
        reach = sign * drawer.travel * index / settings.pull_steps
        end = grasp.shifted(dx=ux * reach, dy=uy * reach)
        steps.append(LinearMove(f"{verb} {index}/{settings.pull_steps}", start, end, settings.path_tolerance))
        start = end
    return [
        GripperMove("open gripper", arm.gripper_open, arm.gripper_max_effort),
        ArmMove("pre-grasp handle", grasp.shifted(dx=ux * away, dy=uy * away)),
        ArmMove("approach handle", grasp),
        GripperMove("close on handle", arm.gripper_closed, arm.gripper_max_effort, grasp=True),
        *steps,
        GripperMove("release handle", arm.gripper_open, arm.gripper_max_effort),
        ArmMove("retreat", start.shifted(dx=ux * away, dy=uy * away)),
        *stow_motion(arm),
    ]


def drawer_skill_motion(
    skill: Skill,
    drawer: Drawer,
    held_height: float,
    arm: ArmSettings,
    settings: DrawerSettings,
    spot: Pose | None = None,
) -> list[Motion]:
    """The motions of a drawer skill: open or close it, or put the held object (``held_height`` tall) in,
    at ``spot`` (a free spot of the interior, ``llm_planner_ros.robot_motion.free_spot``; default: the interior's
    point)."""
    action = drawer_action(skill)
    if action == PUT:
        return place_motion(spot or drawer.interior, held_height, arm)
    return drawer_motion(drawer, action == OPEN, arm, settings)

"""The arm and gripper motions of pick and put down, as end-effector poses and gripper commands.

pick (object of height h whose bottom is at B, top-down grasp at G = B + ``grasp_height(h)``):
  open gripper -> pre-grasp (G + grasp_offset + approach_distance above) -> approach (G + grasp_offset)
  -> close gripper (must hold something: ``grasp_failure``) -> lift (lift_distance up) -> stow
put down (surface point S of the robot's place, held object of height h):
  above surface (S + grasp_height(h) + place_clearance + grasp_offset + approach_distance)
  -> lower (S + grasp_height(h) + place_clearance + grasp_offset) -> release (open gripper)
  -> retreat (lift_distance up) -> stow

The fingertips close ``grasp_depth`` below the object's top (at its centre when it is shorter than twice
that): a tall object grasped at its centre would put the palm into it. They close at least
``finger_reach + surface_clearance`` above the object's bottom, so the fingers never reach into what it
stands on (a flat object perceived 1.8 cm tall, grasped at its centre, put the Panda's fingers 2 mm into
the counter: the gripper closed on the counter and dropped the bar). ``stow`` is a joint goal to
``stow_joints`` (the arm folded over the base, as mobile manipulators drive): after every manipulation
skill the arm is out of the way of the next navigation; no stow step when ``stow_joints`` is empty.

Offsets are along the map's z axis; ``grasp_offset`` is how far the end-effector link sits above the
grasp point (the Panda's ``panda_hand`` is 0.1034 m above its fingertip centre; 0 for a link at the
fingertips). Defaults fit a Franka Panda (``ArmSettings``); other arms set them as executor parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llm_planner_ros.robot_motion.geometry import Pose, Quaternion, half_turn, quaternion_yaw, turned
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject

# The Panda hand pointing straight down (rotated pi about x), fingers across the map's y axis.
TOP_DOWN: Quaternion = (1.0, 0.0, 0.0, 0.0)
PANDA_JOINTS: tuple[str, ...] = tuple(f"panda_joint{i}" for i in range(1, 8))
# Folded low at the base's side, out of the head camera's view (the physics simulation's start pose).
PANDA_STOW: tuple[float, ...] = (math.pi / 2, -1.7, 0.0, -3.0, 0.0, 1.3, math.pi / 4)


@dataclass(frozen=True)
class ArmSettings:
    """Grasp geometry and gripper commands (metres; gripper positions as the gripper action takes them:
    the Panda's is each finger's opening, 0.04 fully open)."""

    grasp_orientation: Quaternion = TOP_DOWN
    grasp_offset: float = 0.1034
    approach_distance: float = 0.12
    lift_distance: float = 0.15
    gripper_open: float = 0.04
    gripper_closed: float = 0.0
    gripper_max_effort: float = 20.0
    # A close that ends this near gripper_closed without stalling met no object.
    empty_grasp_margin: float = 0.002
    # The Panda's fingertips close at most about 3.5 cm below a top before the palm meets it.
    grasp_depth: float = 0.03
    # How far the fingers reach below the grasp point (the Panda's fingertips: 1.1 cm below
    # panda_grasptarget), and the gap kept between them and the surface under a grasped object.
    finger_reach: float = 0.011
    surface_clearance: float = 0.004
    place_clearance: float = 0.01
    # Turn the grasp about the vertical to close across the base's heading (``grasp_yaw``); False keeps
    # grasp_orientation as given (an arm whose wrist cannot turn).
    turn_grasp: bool = True
    # The widest object the open fingers pass around (m; the Panda's: 8 cm).
    max_grasp_width: float = 0.08
    # An object at least this many times as tall as it is wide is grasped along the heading (grasp_yaw).
    tall_ratio: float = 2.0
    # The Panda folded over its base (panda_joint1..7); () for no stow step.
    stow_joints: tuple[float, ...] = PANDA_STOW
    stow_joint_names: tuple[str, ...] = PANDA_JOINTS

    def grasp_height(self, height: float) -> float:
        """Height of the fingertip centre above an object's bottom when grasping an object ``height`` tall
        (0 when no height is reported: the grasp is at the reported pose)."""
        if height <= 0.0:
            return 0.0
        return max(height / 2.0, height - self.grasp_depth, self.finger_reach + self.surface_clearance)


@dataclass(frozen=True)
class ArmMove:
    """Move the end-effector link to ``pose`` (planned and executed by MoveIt)."""

    phase: str
    pose: Pose


@dataclass(frozen=True)
class GripperMove:
    """Command the gripper to ``position``; ``grasp``: this close must end holding an object."""

    phase: str
    position: float
    max_effort: float
    grasp: bool = False


@dataclass(frozen=True)
class JointMove:
    """Move the arm's joints ``names`` to ``positions`` (radians; planned and executed by MoveIt)."""

    phase: str
    names: tuple[str, ...]
    positions: tuple[float, ...]


@dataclass(frozen=True)
class LinearMove:
    """Move the end-effector link in a straight line from ``start`` to ``pose``, its orientation kept (a
    drawer's pull or push): ``tolerance`` is how far (m) the path may leave that line."""

    phase: str
    start: Pose
    pose: Pose
    tolerance: float


Motion = ArmMove | GripperMove | JointMove | LinearMove


def stow_motion(settings: ArmSettings) -> list[Motion]:
    """The stow joint goal, or nothing when no stow pose is set."""
    if not settings.stow_joints:
        return []
    return [JointMove("stow", settings.stow_joint_names, settings.stow_joints)]


def grasp_yaw(target: PerceivedObject, heading: float, settings: ArmSettings) -> float:
    """How far (rad, about the vertical) a pick turns ``grasp_orientation``, whose fingers close along the
    frame's y axis, for a base facing ``heading``: 0 when ``turn_grasp`` is off.

    The fingers close across the heading. The camera on the base sees an object's front only, so its
    perceived centre is least certain along the view: there an error runs along the fingers instead
    of into one of them (a 7.4 cm apple between fingers 8 cm apart has 3 mm to spare a side, and its
    centre was perceived 1.4 cm towards the camera). They close along the heading, as
    ``grasp_orientation`` does at the places of a kitchen laid out along the map's axes, when the
    footprint across it is wider than ``max_grasp_width`` and the one along it narrower (an energy bar
    lying across the view), and for an object ``tall_ratio`` times as tall as wide: a camera looking
    down sees its whole top, which places it in both axes, and the closing fingers centre it (taken
    across, a 20 cm water bottle's pick failed in two of three runs, once knocking it over).

    The footprint is along the axes of the object's pose: a phone lying turned a quarter from the map's
    axes is 7 cm across a base that sees its 14 cm side (read along the map's axes, the fingers closed
    on the 14 cm and the approach hit it)."""
    if not settings.turn_grasp:
        return 0.0
    width_x, width_y = target.footprint
    relative = heading - quaternion_yaw(target.pose.orientation)
    cos, sin = abs(math.cos(relative)), abs(math.sin(relative))
    across, along = sin * width_x + cos * width_y, cos * width_x + sin * width_y
    too_wide = across > settings.max_grasp_width and along < across
    tall = 0.0 < max(width_x, width_y) and target.height >= settings.tall_ratio * max(width_x, width_y)
    return half_turn(heading - math.pi / 2.0 if too_wide or tall else heading)


def release_yaw(heading: float, settings: ArmSettings) -> float:
    """How far (rad, about the vertical) a put down turns ``grasp_orientation`` for a base facing
    ``heading`` (0 when ``turn_grasp`` is off): the fingers open along the heading. The put down's free
    spot lies beside the objects already there, across the heading, where opening fingers would hit
    them (a 7up set down beside a coke: GOAL_IN_COLLISION at 'lower')."""
    return half_turn(heading - math.pi / 2.0) if settings.turn_grasp else 0.0


def pick_motion(target: PerceivedObject, settings: ArmSettings, yaw: float = 0.0) -> list[Motion]:
    """Open, pre-grasp above the object, approach, close on it, lift, stow; the grasp turned by ``yaw``
    about the vertical (``grasp_yaw``)."""
    bottom = target.pose.z - target.height / 2.0
    grasp = Pose(
        target.pose.frame,
        target.pose.x,
        target.pose.y,
        bottom + settings.grasp_height(target.height) + settings.grasp_offset,
        turned(settings.grasp_orientation, yaw),
    )
    return [
        GripperMove("open gripper", settings.gripper_open, settings.gripper_max_effort),
        ArmMove("pre-grasp", grasp.shifted(dz=settings.approach_distance)),
        ArmMove("approach", grasp),
        GripperMove("close gripper", settings.gripper_closed, settings.gripper_max_effort, grasp=True),
        ArmMove("lift", grasp.shifted(dz=settings.lift_distance)),
        *stow_motion(settings),
    ]


def place_motion(surface: Pose, held_height: float, settings: ArmSettings, yaw: float = 0.0) -> list[Motion]:
    """Above the surface, lower until the held object is just above it, release, retreat, stow; the
    hand turned by ``yaw`` about the vertical from ``grasp_orientation``."""
    release = Pose(
        surface.frame,
        surface.x,
        surface.y,
        surface.z + settings.grasp_height(held_height) + settings.place_clearance + settings.grasp_offset,
        turned(settings.grasp_orientation, yaw),
    )
    return [
        ArmMove("above surface", release.shifted(dz=settings.approach_distance)),
        ArmMove("lower", release),
        GripperMove("release", settings.gripper_open, settings.gripper_max_effort),
        ArmMove("retreat", release.shifted(dz=settings.lift_distance)),
        *stow_motion(settings),
    ]


def grasp_failure(position: float, stalled: bool, settings: ArmSettings) -> str | None:
    """Why a grasp close held nothing (None: it holds something). Fingers stopped by an object stall
    before the closed position; fingers that reached it without stalling closed on air."""
    if not stalled and position <= settings.gripper_closed + settings.empty_grasp_margin:
        return f"the gripper closed fully (position {position:.3f}) without stalling: nothing was grasped"
    return None

"""The mobile manipulator: a kinematic base box carrying a Franka Panda arm (pybullet_data franka_panda).

The base is moved kinematically (its pose is set each step; it never slides or tips) and the Panda,
fixed to it, follows. The arm's joints are position-controlled motors, so the arm pushes objects and
is stopped by what it hits. Names of joints and links are the Panda's own (``panda_joint1`` ...).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pybullet as pb
import pybullet_data

from llm_planner_ros.domain.layout import Pose2D
from llm_planner_ros.physics_sim.builder import quaternion_yaw

BASE_SIZE = (0.6, 0.5, 0.6)  # length (forward), width, height: the arm sits at counter-top reach
BASE_CLEARANCE = 0.02  # the base floats above the floor: it is moved, not driven
ARM_MOUNT = (0.15, 0.0)  # the Panda's base on the top of the base, forward of its centre
HEAD_CAMERA = (-0.25, 0.0, 1.7)  # in the base frame: on a mast behind the arm, above it
HEAD_PITCH = math.radians(45)  # looking down
ARM_JOINTS = tuple(range(7))
MOUNT_LINKS = (-1, 0, 1)  # the Panda's links on and just above the base's top: never collide with it
FINGER_JOINTS = (9, 10)
HAND_LINK = 8
GRASP_LINK = 11  # panda_grasptarget, between the fingertips
LINK_INDEX = {"panda_link8": 7, "panda_hand": HAND_LINK, "panda_grasptarget": GRASP_LINK}
ARM_FORCES = (87.0, 87.0, 87.0, 87.0, 12.0, 12.0, 12.0)
FINGER_OPEN = 0.04
# A gripper command (per-finger position, as GripperCommand takes it) above this opens, else closes.
GRIPPER_OPEN_ABOVE = 0.02
FINGER_FORCE = 40.0
# Folded low at the side of the base, hand down: clear of furniture while driving, out of the head
# camera's view, and the start pose of every episode. The wrist turns a held object's long side along
# the folded arm: at +pi/4 a 16 cm snack bag reached across the shoulder (panda_link1) and stopped the fold.
TUCKED = (math.pi / 2, -1.7, 0.0, -3.0, 0.0, 1.3, -math.pi / 4)
# The arm's named states, as the group states of a MoveIt SRDF: a MoveGroup goal whose goal constraints
# carry only a name moves the arm there. ``ready`` is the Panda SRDF's (arm up in front of the base); a
# domain's layout.yaml may add states of its own (``named_states``).
NAMED_STATES: dict[str, tuple[float, ...]] = {
    "tucked": TUCKED,
    "ready": (0.0, -math.pi / 4, 0.0, -3 * math.pi / 4, 0.0, math.pi / 2, math.pi / 4),
}
# Arm in front, elbow up: where every IK solve starts first (and the null-space rest pose).
IK_SEED = (0.0, -0.3, 0.0, -2.2, 0.0, 2.0, math.pi / 4)
# The arm joints' limits as the IK keeps to them (inside the URDF's, which stop the motors).
IK_LOWER = (-2.9, -1.76, -2.9, -3.07, -2.9, -0.02, -2.9)
IK_UPPER = (2.9, 1.76, 2.9, -0.07, 2.9, 3.75, 2.9)
# Restarts when IK_SEED and the arm's own pose do not lead to a collision-free answer (a hand level
# with a drawer's handle, facing it): fixed pseudo-random seeds within the limits, so a goal always
# gets the same answer.
_SEEDS = random.Random(7)
IK_RESTART_SEEDS = tuple(
    tuple(_SEEDS.uniform(lo, up) for lo, up in zip(IK_LOWER, IK_UPPER, strict=True)) for _ in range(24)
)
JOINT_NAMES = tuple(f"panda_joint{i}" for i in range(1, 8)) + ("panda_finger_joint1", "panda_finger_joint2")


class MobileManipulator:
    """Body ids, pose access and arm/gripper commands of the robot in one PyBullet client."""

    def __init__(self, client: int, pose: Pose2D) -> None:
        self.client = client
        half = [s / 2 for s in BASE_SIZE]
        collision = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=client)
        visual = pb.createVisualShape(
            pb.GEOM_BOX, halfExtents=half, rgbaColor=[0.25, 0.25, 0.3, 1], physicsClientId=client
        )
        self.base = pb.createMultiBody(
            0, collision, visual, [pose.x, pose.y, half[2] + BASE_CLEARANCE], physicsClientId=client
        )
        self.arm = pb.loadURDF(
            f"{pybullet_data.getDataPath()}/franka_panda/panda.urdf",
            useFixedBase=True,
            physicsClientId=client,
        )
        for link in MOUNT_LINKS:
            pb.setCollisionFilterPair(self.base, self.arm, -1, link, 0, physicsClientId=client)
        for joint in FINGER_JOINTS:
            pb.changeDynamics(self.arm, joint, lateralFriction=1.5, physicsClientId=client)
        self._pose = pose
        self.reset(pose)

    def reset(self, pose: Pose2D) -> None:
        """Put the robot at ``pose`` with the arm tucked and the gripper open, at rest."""
        c = self.client
        for joint, angle in zip(ARM_JOINTS, TUCKED, strict=True):
            pb.resetJointState(self.arm, joint, angle, physicsClientId=c)
        for joint in FINGER_JOINTS:
            pb.resetJointState(self.arm, joint, FINGER_OPEN, physicsClientId=c)
        self.set_base_pose(pose)
        self.command_arm(TUCKED)
        self.command_fingers(FINGER_OPEN)

    # ----- base ---------------------------------------------------------------------------------------------
    @property
    def pose(self) -> Pose2D:
        return self._pose

    def set_base_pose(self, pose: Pose2D) -> None:
        c = self.client
        self._pose = pose
        orientation = quaternion_yaw(pose.yaw)
        pb.resetBasePositionAndOrientation(
            self.base, [pose.x, pose.y, BASE_SIZE[2] / 2 + BASE_CLEARANCE], orientation, physicsClientId=c
        )
        mx, my = self.to_map(*ARM_MOUNT)
        pb.resetBasePositionAndOrientation(
            self.arm, [mx, my, BASE_SIZE[2] + BASE_CLEARANCE], orientation, physicsClientId=c
        )

    def to_map(self, forward: float, left: float) -> tuple[float, float]:
        c, s = math.cos(self._pose.yaw), math.sin(self._pose.yaw)
        return (self._pose.x + c * forward - s * left, self._pose.y + s * forward + c * left)

    def head_camera_pose(self) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """(eye, target) of the head camera in the map frame."""
        x, y = self.to_map(HEAD_CAMERA[0], HEAD_CAMERA[1])
        eye = (x, y, HEAD_CAMERA[2])
        c, s = math.cos(self._pose.yaw), math.sin(self._pose.yaw)
        reach = math.cos(HEAD_PITCH)
        return eye, (x + c * reach, y + s * reach, HEAD_CAMERA[2] - math.sin(HEAD_PITCH))

    def wrist_camera_pose(self) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
        """(eye, target, up) of the wrist camera: on the hand, looking along the fingers."""
        position, orientation = self.link_pose(HAND_LINK)
        matrix = pb.getMatrixFromQuaternion(orientation)
        x_axis = (matrix[0], matrix[3], matrix[6])
        z_axis = (matrix[2], matrix[5], matrix[8])
        eye = tuple(p + 0.06 * xa + 0.02 * za for p, xa, za in zip(position, x_axis, z_axis, strict=True))
        target = tuple(e + za for e, za in zip(eye, z_axis, strict=True))
        return eye, target, x_axis

    # ----- arm ----------------------------------------------------------------------------------------------
    def arm_positions(self) -> list[float]:
        return [state[0] for state in pb.getJointStates(self.arm, ARM_JOINTS, physicsClientId=self.client)]

    def joint_states(self) -> tuple[list[float], list[float]]:
        """Positions and velocities of the joints named in JOINT_NAMES, in that order."""
        states = pb.getJointStates(self.arm, (*ARM_JOINTS, *FINGER_JOINTS), physicsClientId=self.client)
        return [s[0] for s in states], [s[1] for s in states]

    def command_arm(self, positions: Sequence[float]) -> None:
        pb.setJointMotorControlArray(
            self.arm,
            ARM_JOINTS,
            pb.POSITION_CONTROL,
            targetPositions=list(positions),
            forces=ARM_FORCES,
            positionGains=[0.3] * 7,
            physicsClientId=self.client,
        )

    def arm_hits_base(self, penetration: float) -> bool:
        """True when an arm link above the mount is more than ``-penetration`` metres inside the base."""
        points = pb.getClosestPoints(self.arm, self.base, 0.0, physicsClientId=self.client)
        return any(p[3] not in MOUNT_LINKS and p[8] < penetration for p in points)

    def reset_arm(self, positions: Sequence[float]) -> None:
        """Teleport the arm (used only to test a configuration; the caller restores the state)."""
        for joint, angle in zip(ARM_JOINTS, positions, strict=True):
            pb.resetJointState(self.arm, joint, angle, physicsClientId=self.client)

    def link_pose(self, link: int) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        state = pb.getLinkState(self.arm, link, computeForwardKinematics=True, physicsClientId=self.client)
        return tuple(state[4]), tuple(state[5])  # type: ignore[return-value]

    def solve_ik(self, link: int, position: Sequence[float], orientation: Sequence[float]) -> list[float]:
        """Joint angles within the joint limits that put ``link`` at the pose (best effort; the caller
        checks the error).

        PyBullet's null-space IK may answer beyond a limit (the wrist at 3.9 rad for a top-down hand
        facing the bin), which the motor then stops short of: an angle 2 pi away is the same pose and
        is taken when it is within the limits; what still lies outside is clamped, so the caller's
        forward check sees the pose the arm can really reach."""
        solution = pb.calculateInverseKinematics(
            self.arm,
            link,
            list(position),
            list(orientation),
            lowerLimits=list(IK_LOWER),
            upperLimits=list(IK_UPPER),
            jointRanges=[u - lo for u, lo in zip(IK_UPPER, IK_LOWER, strict=True)],
            restPoses=list(IK_SEED),
            maxNumIterations=200,
            residualThreshold=1e-4,
            physicsClientId=self.client,
        )
        return [within_limits(a, lo, u) for a, lo, u in zip(solution[:7], IK_LOWER, IK_UPPER, strict=True)]

    # ----- gripper ------------------------------------------------------------------------------------------
    def command_fingers(self, opening: float, force: float = FINGER_FORCE) -> None:
        pb.setJointMotorControlArray(
            self.arm,
            FINGER_JOINTS,
            pb.POSITION_CONTROL,
            targetPositions=[opening, opening],
            forces=[force, force],
            physicsClientId=self.client,
        )

    def finger_opening(self) -> float:
        """Distance between the fingers (metres)."""
        return sum(s[0] for s in pb.getJointStates(self.arm, FINGER_JOINTS, physicsClientId=self.client))


def within_limits(angle: float, lower: float, upper: float) -> float:
    """``angle`` turned by a whole turn into [lower, upper] when that fits, else clamped to the nearer limit."""
    for turned in (angle, angle - 2 * math.pi, angle + 2 * math.pi):
        if lower <= turned <= upper:
            return turned
    return min(upper, max(lower, angle))

"""Motions the simulation plays out step by step: driving the base, moving the arm, the gripper.

A ``Motion`` is advanced once per physics step until it ends with an ``Outcome``; ``message`` says
what happened in words (what blocked the base, how far the arm stopped short of its goal).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import Enum

from llm_planner_ros.physics_sim.layout import Pose2D
from llm_planner_ros.physics_sim.robot import MobileManipulator


class Outcome(Enum):
    """How a motion ended. Only SUCCEEDED means the goal was reached."""

    RUNNING = "running"
    SUCCEEDED = "succeeded"
    NO_PATH = "no_path"  # navigation: the goal is in an obstacle or walled off; the robot did not move
    BLOCKED = "blocked"  # navigation: something was in the way on the path; the robot stopped before it
    NO_IK = "no_ik"  # arm: the pose is out of reach
    IN_COLLISION = "in_collision"  # arm: the goal or the way to it collides with the world
    CONTROL_FAILED = "control_failed"  # arm: stopped short of its goal (it hit something)
    CANCELED = "canceled"


class Motion:
    """Base class: ``advance`` once per step while ``done`` is False; ``cancel`` ends it where it is."""

    def __init__(self) -> None:
        self.outcome = Outcome.RUNNING
        self.message = ""

    @property
    def done(self) -> bool:
        return self.outcome is not Outcome.RUNNING

    def advance(self, dt: float) -> None:
        raise NotImplementedError

    def cancel(self) -> None:
        if not self.done:
            self.finish(Outcome.CANCELED, "canceled")

    def finish(self, outcome: Outcome, message: str) -> None:
        self.outcome, self.message = outcome, message


class Immediate(Motion):
    """A motion decided before it started (no path, no IK solution, planned only): done at once."""

    def __init__(self, outcome: Outcome, message: str) -> None:
        super().__init__()
        self.finish(outcome, message)

    def advance(self, dt: float) -> None:
        return None


class BaseMotion(Motion):
    """Turn towards each waypoint, drive to it, turn to the goal heading. Every ``check_every`` steps
    ``collision`` is asked what the robot overlaps; when something, the robot goes back to the last pose
    that passed a check and the motion ends BLOCKED."""

    def __init__(
        self,
        robot: MobileManipulator,
        waypoints: Sequence[tuple[float, float]],
        goal_yaw: float,
        collision: Callable[[], str | None],
        speed: float,
        turn_rate: float,
        check_every: int = 1,
    ) -> None:
        super().__init__()
        self._check_every = check_every
        self._steps = 0
        self._clear = robot.pose  # the last pose a collision check passed at
        self._robot = robot
        self._waypoints = list(waypoints)
        self._goal_yaw = goal_yaw
        self._collision = collision
        self._speed = speed
        self._turn_rate = turn_rate
        self.travelled = 0.0

    def remaining(self) -> float:
        here = self._robot.pose
        points = [(here.x, here.y), *self._waypoints]
        return sum(math.dist(a, b) for a, b in zip(points, points[1:], strict=False))

    def advance(self, dt: float) -> None:
        if self.done:
            return
        pose = self._robot.pose
        if self._waypoints:
            tx, ty = self._waypoints[0]
            distance = math.hypot(tx - pose.x, ty - pose.y)
            if distance < 1e-3:
                self._waypoints.pop(0)
                return
            heading = math.atan2(ty - pose.y, tx - pose.x)
            turn = _angle(heading - pose.yaw)
            if abs(turn) > 1e-3:
                new = Pose2D(pose.x, pose.y, pose.yaw + _clamp(turn, self._turn_rate * dt))
            else:
                step = min(distance, self._speed * dt)
                new = Pose2D(pose.x + step * math.cos(heading), pose.y + step * math.sin(heading), heading)
                self.travelled += step
        else:
            turn = _angle(self._goal_yaw - pose.yaw)
            if abs(turn) <= 1e-3:
                self.finish(Outcome.SUCCEEDED, f"reached ({pose.x:.2f}, {pose.y:.2f}) after {self.travelled:.2f} m")
                return
            new = Pose2D(pose.x, pose.y, pose.yaw + _clamp(turn, self._turn_rate * dt))
        self._robot.set_base_pose(new)
        self._steps += 1
        if self._steps % self._check_every:
            return
        hit = self._collision()
        if hit is None:
            self._clear = new
            return
        self._robot.set_base_pose(self._clear)
        here = self._clear
        self.finish(Outcome.BLOCKED, f"stopped at ({here.x:.2f}, {here.y:.2f}): {hit} is in the way")


class ArmMotion(Motion):
    """Follow a joint-space path at a bounded joint speed, then settle; CONTROL_FAILED when the arm
    ends more than ``tolerance`` radians from the goal (something stopped it)."""

    def __init__(
        self, robot: MobileManipulator, path: Sequence[Sequence[float]], joint_speed: float, tolerance: float = 0.05
    ) -> None:
        super().__init__()
        self._robot = robot
        self._path = [list(p) for p in path]
        self._speed = joint_speed
        self._tolerance = tolerance
        self._from = robot.arm_positions()
        self._t = 0.0
        self._settle = 0.0

    def advance(self, dt: float) -> None:
        if self.done:
            return
        if self._path:
            goal = self._path[0]
            span = max(abs(a - b) for a, b in zip(goal, self._from, strict=True))
            duration = max(span / self._speed, 1e-6)
            self._t = min(self._t + dt, duration)
            fraction = self._t / duration
            self._robot.command_arm([a + fraction * (b - a) for a, b in zip(self._from, goal, strict=True)])
            if self._t >= duration:
                self._from, self._t = goal, 0.0
                self._path.pop(0)
            return
        goal = self._from
        error = max(abs(a - b) for a, b in zip(goal, self._robot.arm_positions(), strict=True))
        self._settle += dt
        if error < self._tolerance / 5 or (self._settle > 1.5 and error < self._tolerance):
            self.finish(Outcome.SUCCEEDED, f"reached the goal (joint error {error:.3f} rad)")
        elif self._settle > 1.5:
            self.finish(Outcome.CONTROL_FAILED, f"stopped {error:.2f} rad short of the goal: the arm hit something")


class GripperMotion(Motion):
    """Drive the fingers to an opening until they stop moving, then call ``settled`` for the result
    (closing: whether the fingers hold something)."""

    def __init__(self, robot: MobileManipulator, opening: float, settled: Callable[[], tuple[Outcome, str]]) -> None:
        super().__init__()
        self._robot = robot
        self._settled = settled
        self._elapsed = 0.0
        self._last = robot.finger_opening()
        robot.command_fingers(opening / 2)

    def advance(self, dt: float) -> None:
        if self.done:
            return
        self._elapsed += dt
        opening = self._robot.finger_opening()
        moving = abs(opening - self._last) > 0.02 * dt
        self._last = opening
        if (self._elapsed > 0.25 and not moving) or self._elapsed > 2.0:
            self.finish(*self._settled())


def _angle(value: float) -> float:
    return (value + math.pi) % (2 * math.pi) - math.pi


def _clamp(value: float, limit: float) -> float:
    return max(-limit, min(limit, value))

"""Motions the simulation plays out step by step: driving the base, moving the arm, the gripper.

A ``Motion`` is advanced once per physics step until it ends with an ``Outcome``; ``message`` says
what happened in words (what blocked the base, how far the arm stopped short of its goal).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import Enum

from llm_planner_ros.domain.layout import Pose2D
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


class SpeedProfile:
    """Distance along a path over time for a controller that speeds up and slows down at ``acceleration``
    and never exceeds ``speed`` (a trapezoid, or a triangle when the path is too short to reach it)."""

    def __init__(self, length: float, speed: float, acceleration: float) -> None:
        self.length = length
        self._acceleration = acceleration
        self._peak = min(speed, math.sqrt(length * acceleration))
        self._ramp = self._peak / acceleration
        cruise = (length - self._peak * self._ramp) / speed if self._peak >= speed else 0.0
        self.duration = 2.0 * self._ramp + cruise

    def distance(self, t: float) -> float:
        """How far along the path the controller is ``t`` seconds after it started."""
        a, ramp = self._acceleration, self._ramp
        if t <= ramp:
            return 0.5 * a * t * t
        if t >= self.duration - ramp:
            left = max(0.0, self.duration - t)
            return self.length - 0.5 * a * left * left
        return 0.5 * a * ramp * ramp + self._peak * (t - ramp)


class ArmMotion(Motion):
    """Follow a joint-space path, the fastest joint at most ``joint_speed``, speeding up and slowing down at
    ``joint_acceleration`` at its ends (as a time-parameterized MoveIt trajectory does), then settle;
    CONTROL_FAILED when the arm ends more than ``tolerance`` radians from the goal (something stopped it).

    Without the ramps the hand stopped dead at the end of a drawer's pull, and a can standing in the
    drawer tipped over against its front panel in about 1 pull of 10."""

    def __init__(
        self,
        robot: MobileManipulator,
        path: Sequence[Sequence[float]],
        joint_speed: float,
        joint_acceleration: float,
        tolerance: float = 0.05,
    ) -> None:
        super().__init__()
        self._robot = robot
        self._points = [robot.arm_positions(), *(list(p) for p in path)]
        # Distance along the path as the largest joint change, the measure joint_speed bounds.
        self._reached = [0.0]
        for a, b in zip(self._points, self._points[1:], strict=False):
            self._reached.append(self._reached[-1] + max(abs(u - v) for u, v in zip(a, b, strict=True)))
        self._profile = SpeedProfile(self._reached[-1], joint_speed, joint_acceleration)
        self._tolerance = tolerance
        self._t = 0.0
        self._settle = 0.0

    def advance(self, dt: float) -> None:
        if self.done:
            return
        if self._t < self._profile.duration:
            self._t = min(self._t + dt, self._profile.duration)
            self._robot.command_arm(self._at(self._profile.distance(self._t)))
            return
        goal = self._points[-1]
        error = max(abs(a - b) for a, b in zip(goal, self._robot.arm_positions(), strict=True))
        self._settle += dt
        if error < self._tolerance / 5 or (self._settle > 1.5 and error < self._tolerance):
            self.finish(Outcome.SUCCEEDED, f"reached the goal (joint error {error:.3f} rad)")
        elif self._settle > 1.5:
            self.finish(Outcome.CONTROL_FAILED, f"stopped {error:.2f} rad short of the goal: the arm hit something")

    def _at(self, distance: float) -> list[float]:
        """The joint angles ``distance`` along the path."""
        for index in range(1, len(self._points)):
            if distance <= self._reached[index] or index == len(self._points) - 1:
                span = self._reached[index] - self._reached[index - 1]
                fraction = min(1.0, (distance - self._reached[index - 1]) / span) if span > 0.0 else 1.0
                a, b = self._points[index - 1], self._points[index]
                return [u + fraction * (v - u) for u, v in zip(a, b, strict=True)]
        return list(self._points[-1])


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

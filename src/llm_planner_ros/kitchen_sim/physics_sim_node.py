"""physics_sim: a domain as a PyBullet physics simulation, served on the robot's interfaces.

A thin adapter around ``physics_sim.PhysicsKitchen`` (docs/physics_sim.md): the same names a Gazebo or
real-robot bringup offers, so the nav2/moveit executor backends, perception and the planner run
unchanged against it.

Serves:
  navigate_to_pose                    nav2_msgs/action/NavigateToPose   drive the base (2-D pose in map)
  move_action                         moveit_msgs/action/MoveGroup       arm to a pose or joint goal
  panda_hand_controller/gripper_cmd   control_msgs/action/GripperCommand open / close (grasp) the gripper
  sim/apply_skill                     llm_planner_interfaces/action/ExecuteSkill  a skill that changes
                                      declared facts only ("open the door"): facts have no bodies
  sim/load_episode                    llm_planner_interfaces/srv/LoadEpisode  reset to an episode
Publishes:
  /clock (rosgraph_msgs/Clock)        simulated time: run the other nodes with use_sim_time
  joint_states                        sensor_msgs/JointState of the Panda
  sim/robot_state                     the robot-state record (llm_planner_ros/domain/robot_state.py), from truth
  camera/..., wrist_camera/...        color/image_raw (rgb8), depth/image_raw (32FC1, metres),
                                      color/camera_info, pose (PoseStamped of the optical frame in map)
  sim/ground_truth                    std_msgs/String JSON: GROUND TRUTH, for debugging and tests only
  scene/objects                       SceneObjectArray FROM GROUND TRUTH (``scene_from_truth``), a stand-in
                                      until a perception node reports the scene; off when one does

One thread owns the simulation: it steps the physics (paced by ``real_time_factor`` while an action
runs, by ``idle_real_time_factor`` otherwise), runs what the action callbacks hand it, and publishes on
the simulated clock, at most at each topic's rate per wall second too. Stamps are simulated time.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

import numpy as np
from builtin_interfaces.msg import Time
from control_msgs.action import GripperCommand
from geometry_msgs.msg import PoseStamped, Vector3
from moveit_msgs.action import MoveGroup
from moveit_msgs.msg import MoveItErrorCodes
from nav2_msgs.action import NavigateToPose
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image, JointState
from std_msgs.msg import Header, String

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_interfaces.msg import SceneObject, SceneObjectArray
from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.domain.config import ConfigError, Position
from llm_planner_ros.domain.layout import Pose2D
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.domain.validation import ValidationError
from llm_planner_ros.domain.world import SkillError
from llm_planner_ros.perception.geometry import Transform
from llm_planner_ros.physics_sim.camera import Frame
from llm_planner_ros.physics_sim.motions import Motion, Outcome
from llm_planner_ros.physics_sim.robot import GRIPPER_OPEN_ABOVE, JOINT_NAMES, LINK_INDEX, NAMED_STATES
from llm_planner_ros.physics_sim.simulation import FACT_SKILL_S, PhysicsKitchen, scene_of
from llm_planner_ros.physics_sim.truth import Truth
from llm_planner_ros.robot_motion.geometry import turned
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters
from llm_planner_ros.ros.topics import (
    APPLY_SKILL_ACTION,
    LOAD_EPISODE_SERVICE,
    ROBOT_STATE_TOPIC,
    SCENE_TOPIC,
    STATE_QOS,
)

PARAMETERS = {
    "world_file": Parameter("", "world YAML (empty: the default domain's, config/domains.yaml)"),
    "skills_file": Parameter("", "skill templates YAML (empty: the default domain's, config/domains.yaml)"),
    "layout_file": Parameter("", "physical layout YAML (empty: the domain folder's layout.yaml, else defaults)"),
    "episode_file": Parameter("", "episode file whose initial state to start from (empty: the world's default scene)"),
    "episode_id": Parameter("", "episode of episode_file (may be empty when the file has one episode)"),
    "real_time_factor": Parameter(1.0, "simulated seconds per wall second; 0 runs as fast as it can", minimum=0.0),
    "idle_real_time_factor": Parameter(
        1.0, "pace while no action runs, when real_time_factor is 0 or faster (0: no idle pace)", minimum=0.0
    ),
    "camera_rate_hz": Parameter(5.0, "frames per simulated second of each camera; 0 renders none", minimum=0.0),
    "image_width": Parameter(320, "camera image width (pixels)", minimum=16),
    "image_height": Parameter(240, "camera image height (pixels)", minimum=16),
    "head_camera_ns": Parameter("camera", "topic prefix of the head camera (empty: not published)"),
    "wrist_camera_ns": Parameter("wrist_camera", "topic prefix of the wrist camera (empty: not published)"),
    "state_rate_hz": Parameter(20.0, "joint states, robot state and truth per simulated second", minimum=0.1),
    "navigate_action": Parameter("navigate_to_pose", "NavigateToPose action name"),
    "move_group_action": Parameter("move_action", "MoveGroup action name"),
    "gripper_action": Parameter("panda_hand_controller/gripper_cmd", "GripperCommand action name"),
    "robot_state_topic": Parameter(ROBOT_STATE_TOPIC, "topic of the robot-state record (JSON std_msgs/String)"),
    "truth_topic": Parameter("sim/ground_truth", "ground-truth JSON (debugging and tests; never for the planner)"),
    "scene_from_truth": Parameter(True, "publish scene/objects from ground truth (until a perception node does)"),
    "obstacles": Parameter("", "boxes on the floor in the robot's way: 'x,y,size_x,size_y' separated by ';'"),
    "navigation_speed_mps": Parameter(0.5, "base speed", minimum=0.01),
    "joint_speed_rps": Parameter(1.0, "arm joint speed (rad/s)", minimum=0.01),
}
MAP_FRAMES = ("", "map", "world", "odom")
POLL_S = 0.02
CLOCK_PERIOD_S = 0.01  # /clock at 100 Hz of simulated time (and at most 100 per wall second)
T = TypeVar("T")


class PhysicsSimNode(Node):
    """ROS adapter around a ``PhysicsKitchen``; only the simulation thread touches the simulation."""

    def __init__(self) -> None:
        super().__init__("physics_sim")
        p = declare_parameters(self, PARAMETERS)
        try:
            self._sim = PhysicsKitchen.from_files(
                p["episode_file"],
                p["episode_id"],
                p["world_file"] or None,
                p["skills_file"] or None,
                p["layout_file"] or None,
                image_size=(p["image_width"], p["image_height"]),
                navigation_speed=p["navigation_speed_mps"],
                joint_speed=p["joint_speed_rps"],
            )
        except (ConfigError, ValidationError, OSError, ValueError) as error:
            raise StartupError(f"cannot build the physics simulation: {error}") from error
        self._obstacles = _boxes(p["obstacles"])
        self._add_obstacles()
        self._rtf: float = p["real_time_factor"]
        # A world at rest gains nothing from racing ahead while the planner thinks, and every sim-time
        # message (clock, state) would cost each node of the graph CPU: idle, it runs at this pace.
        idle = p["idle_real_time_factor"]
        self._idle_rtf: float = idle if idle > 0 and (self._rtf == 0 or self._rtf > idle) else self._rtf
        self._camera_period = 1.0 / p["camera_rate_hz"] if p["camera_rate_hz"] > 0 else math.inf
        self._state_period = 1.0 / p["state_rate_hz"]
        self._calls: queue.Queue[tuple[Callable[[], Any], Future[Any], bool]] = queue.Queue()
        self._stopping = threading.Event()
        self._busy: dict[str, str] = {}
        self._revision = 0
        self._signature: tuple[Any, ...] = ()

        self._clock_pub = self.create_publisher(Clock, "/clock", 10)
        self._joints_pub = self.create_publisher(JointState, "joint_states", 10)
        self._robot_pub = self.create_publisher(String, p["robot_state_topic"], STATE_QOS)
        self._truth_pub = self.create_publisher(String, p["truth_topic"], STATE_QOS)
        self._scene_pub = (
            self.create_publisher(SceneObjectArray, SCENE_TOPIC, STATE_QOS) if p["scene_from_truth"] else None
        )
        self._cameras = {
            name: _CameraTopics(self, prefix)
            for name, prefix in (("head", p["head_camera_ns"]), ("wrist", p["wrist_camera_ns"]))
            if prefix
        }
        group = ReentrantCallbackGroup()
        accept = {
            "goal_callback": lambda _goal: GoalResponse.ACCEPT,
            "cancel_callback": lambda _g: CancelResponse.ACCEPT,
        }
        self._servers = [
            ActionServer(self, NavigateToPose, p["navigate_action"], self._navigate, callback_group=group, **accept),
            ActionServer(self, MoveGroup, p["move_group_action"], self._move_group, callback_group=group, **accept),
            ActionServer(self, GripperCommand, p["gripper_action"], self._gripper, callback_group=group, **accept),
            ActionServer(self, ExecuteSkill, APPLY_SKILL_ACTION, self._apply_facts, callback_group=group, **accept),
        ]
        self._load_service = self.create_service(LoadEpisode, LOAD_EPISODE_SERVICE, self._on_load, callback_group=group)
        summary = self._sim.truth().world(self._sim.kitchen).summary()  # before the thread owns the world
        self._thread = threading.Thread(target=self._loop, name="physics", daemon=True)
        self._thread.start()
        truth_note = (
            "scene/objects is published FROM GROUND TRUTH (scene_from_truth: true), a stand-in for perception"
            if p["scene_from_truth"]
            else "scene/objects is left to a perception node"
        )
        pace = f"x{self._rtf:g} real time" if self._rtf > 0 else "as fast as it can"
        if self._idle_rtf != self._rtf:
            pace += f" during actions, x{self._idle_rtf:g} between them"
        self.get_logger().info(
            f"physics {self._sim.kitchen.config.world} {self._sim.episode or '(default scene)'} running {pace}; "
            f"{truth_note}; "
            f"ground truth on {p['truth_topic']} is for debugging only\n"
            f"{summary}"
        )

    def close(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5.0)
        self._sim.close()

    def _add_obstacles(self) -> None:
        for x, y, size_x, size_y in self._obstacles:
            self._sim.add_obstacle((x, y), (size_x, size_y, 1.0))

    # ----- the simulation thread -----------------------------------------------------------------------------
    def _call(self, function: Callable[[], T], timeout: float = 30.0, resets: bool = True) -> T:
        """Run ``function`` on the simulation thread and return its result. With ``resets`` (a load, a
        new motion) the pacing starts again from now and every topic is published at once after it."""
        future: Future[T] = Future()
        self._calls.put((function, future, resets))
        return future.result(timeout=timeout)

    def _loop(self) -> None:
        sim = self._sim
        next_state = next_camera = next_clock = 0.0
        # Faster than real time, /clock and the state topics are also capped per wall second (at their
        # sim-time rates): subscribers need the latest value, not every value of a sped-up run.
        next_state_wall = next_clock_wall = 0.0
        pace = self._rtf
        wall_start, sim_start = time.monotonic(), sim.time
        while not self._stopping.is_set():
            while not self._calls.empty():
                function, future, resets = self._calls.get()
                try:
                    future.set_result(function())
                except Exception as error:
                    future.set_exception(error)
                if not resets:
                    continue
                wall_start, sim_start = time.monotonic(), sim.time  # a load resets the clock
                next_state = min(next_state, sim.time)
                next_camera, next_clock = min(next_camera, sim.time), min(next_clock, sim.time)
                next_state_wall = next_clock_wall = 0.0
            wanted = self._rtf if self._busy else self._idle_rtf
            if wanted != pace:  # a skill started or ended: pace from here, without catching up
                pace, wall_start, sim_start = wanted, time.monotonic(), sim.time
            sim.step()
            now = time.monotonic()
            if sim.time >= next_clock and now >= next_clock_wall:
                next_clock, next_clock_wall = sim.time + CLOCK_PERIOD_S, now + CLOCK_PERIOD_S
                self._clock_pub.publish(Clock(clock=self._stamp()))
            if sim.time >= next_state and now >= next_state_wall:
                next_state, next_state_wall = sim.time + self._state_period, now + self._state_period
                self._publish_state()
            if sim.time >= next_camera and self._cameras:
                next_camera = sim.time + self._camera_period
                for name, topics in self._cameras.items():
                    topics.publish(sim.render(name), self._stamp())
            if pace > 0:
                ahead = (sim.time - sim_start) / pace - (time.monotonic() - wall_start)
                if ahead > 0:
                    self._stopping.wait(ahead)

    def _stamp(self) -> Time:
        nanoseconds = int(round(self._sim.time * 1e9))
        return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)

    def _publish_state(self) -> None:
        sim, stamp = self._sim, self._stamp()
        positions, velocities = sim.robot.joint_states()
        self._joints_pub.publish(
            JointState(header=_header(stamp, ""), name=list(JOINT_NAMES), position=positions, velocity=velocities)
        )
        truth = sim.truth()
        signature = (
            truth.robot_at,
            truth.holding,
            truth.drawer_open,
            truth.facts,
            tuple(o.at for o in truth.objects),
        )
        if signature != self._signature:
            self._signature = signature
            self._revision += 1
        self._truth_pub.publish(String(data=truth.to_json()))
        world = truth.world(sim.kitchen)
        held = world.holding
        record = RobotState(
            stamp=(stamp.sec, stamp.nanosec),
            revision=self._revision,
            episode=truth.episode,
            at=world.robot_at,
            position=Position(truth.robot.x, truth.robot.y),
            holding=held.id if held else None,
            holding_label=held.label if held else None,
            drawer_open=world.drawer_open,
            visited=world.visited,
            busy=", ".join(self._busy.values()) or None,
            facts=tuple(sorted(world.facts)),
        )
        self._robot_pub.publish(String(data=record.to_json()))
        if self._scene_pub is not None:
            self._scene_pub.publish(_scene_msg(truth, stamp, sim.kitchen.config.frame_id, sim))

    # ----- actions --------------------------------------------------------------------------------------------
    def _follow(self, handle: ServerGoalHandle, kind: str, motion: Motion, feedback: Callable[[], None]) -> Motion:
        """Wait for a motion on the simulation thread, publishing feedback and passing on a cancel.

        The state the motion ended in is published before the action answers: between the periodic
        publishes (and while cameras render) a client that acts on the answer would otherwise read the
        state from mid-motion (the learned affordances scored a pick from where the base had been). Only
        the state: the pacing and the cameras go on as they were."""
        self._busy[kind] = kind
        try:
            while not motion.done:
                if handle.is_cancel_requested or self._stopping.is_set():
                    self._call(motion.cancel)
                    break
                feedback()
                time.sleep(POLL_S)
            return motion
        finally:
            self._busy.pop(kind, None)
            if not self._stopping.is_set():
                self._call(self._publish_state, resets=False)

    def _navigate(self, handle: ServerGoalHandle) -> NavigateToPose.Result:
        pose = handle.request.pose
        result = NavigateToPose.Result()
        if pose.header.frame_id not in MAP_FRAMES:
            handle.abort()
            result.error_code, result.error_msg = (
                NavigateToPose.Result.TF_ERROR,
                f"frame {pose.header.frame_id!r} is not the map",
            )
            return result
        goal = Pose2D(pose.pose.position.x, pose.pose.position.y, _yaw(pose.pose.orientation))
        motion = self._call(lambda: self._sim.navigate(goal))
        started = self._sim.time

        def feedback() -> None:
            message = NavigateToPose.Feedback()
            here = self._sim.robot.pose
            message.current_pose = _pose_stamped(here, self._stamp())
            message.distance_remaining = float(here.distance_to(goal))
            elapsed = self._sim.time - started
            message.navigation_time.sec, message.navigation_time.nanosec = int(elapsed), int((elapsed % 1) * 1e9)
            handle.publish_feedback(message)

        self._follow(handle, "navigating", motion, feedback)
        return self._finish(handle, motion, result, lambda r, m: setattr(r, "error_msg", m), _nav_code)

    def _move_group(self, handle: ServerGoalHandle) -> MoveGroup.Result:
        request = handle.request.request
        result = MoveGroup.Result()
        started = time.monotonic()
        try:
            motion = self._call(lambda: self._arm_motion(request, handle.request.planning_options.plan_only))
        except _GoalError as error:
            result.error_code.val = error.code
            self.get_logger().warning(f"move_action refused: {error}")
            handle.abort()
            return result
        result.planning_time = time.monotonic() - started
        self._follow(
            handle, "moving the arm", motion, lambda: handle.publish_feedback(MoveGroup.Feedback(state="MONITOR"))
        )
        return self._finish(handle, motion, result, lambda _r, _m: None, _moveit_code)

    def _apply_facts(self, handle: ServerGoalHandle) -> ExecuteSkill.Result:
        """A skill that changes declared facts only: checked, ``FACT_SKILL_S`` simulated seconds let pass
        (a cancel in that time changes nothing), then applied (``PhysicsKitchen.apply_facts``)."""
        text = handle.request.skill.text
        try:
            self._call(lambda: self._sim.check_facts_skill(text), resets=False)
        except (SkillError, ValueError) as error:
            handle.abort()
            self.get_logger().warning(f"refusing {text!r}: {error}")
            return ExecuteSkill.Result(success=False, message=str(error))
        self._busy["facts"] = text
        try:
            ends = self._sim.time + FACT_SKILL_S
            while self._sim.time < ends:
                if handle.is_cancel_requested or self._stopping.is_set():
                    handle.canceled()
                    return ExecuteSkill.Result(success=False, message=f"canceled: {text!r} took no effect")
                handle.publish_feedback(ExecuteSkill.Feedback(progress=1.0 - (ends - self._sim.time) / FACT_SKILL_S))
                time.sleep(POLL_S)
            message = self._call(lambda: self._sim.apply_facts(text), resets=False)
        except (SkillError, ValueError) as error:
            handle.abort()
            return ExecuteSkill.Result(success=False, message=str(error))
        finally:
            self._busy.pop("facts", None)
            if not self._stopping.is_set():
                self._call(self._publish_state, resets=False)
        handle.succeed()
        self.get_logger().info(message)
        return ExecuteSkill.Result(success=True, message=message)

    def _arm_motion(self, request: Any, plan_only: bool) -> Motion:
        """The motion of a MotionPlanRequest's first goal: joint constraints, a named state (constraints
        that carry only a name of the robot's ``NAMED_STATES`` or the layout's ``named_states``, as an SRDF
        group state), or a position +
        orientation constraint of one link in the map frame (or the base's ``base_link``)."""
        if not request.goal_constraints:
            raise _GoalError(MoveItErrorCodes.INVALID_GOAL_CONSTRAINTS, "the request has no goal_constraints")
        goal = request.goal_constraints[0]
        if not (goal.joint_constraints or goal.position_constraints or goal.orientation_constraints):
            named = {**NAMED_STATES, **self._sim.layout.named_states}
            if goal.name not in named:
                raise _GoalError(
                    MoveItErrorCodes.INVALID_GOAL_CONSTRAINTS,
                    f"goal has no constraints and {goal.name!r} is no named state; known: {', '.join(named)} "
                    "(the robot's, and named_states of the domain's layout.yaml)",
                )
            return self._sim.move_joints(list(named[goal.name]))
        if goal.joint_constraints:
            targets = {c.joint_name: c.position for c in goal.joint_constraints}
            arm = JOINT_NAMES[:7]
            unknown = sorted(set(targets) - set(arm))
            if unknown:
                raise _GoalError(MoveItErrorCodes.INVALID_GOAL_CONSTRAINTS, f"unknown joints {unknown}; known: {arm}")
            current = self._sim.robot.arm_positions()
            positions = [targets.get(name, current[index]) for index, name in enumerate(arm)]
            return self._sim.move_joints(positions)
        if not goal.position_constraints or not goal.orientation_constraints:
            raise _GoalError(
                MoveItErrorCodes.INVALID_GOAL_CONSTRAINTS,
                "a pose goal needs one position and one orientation constraint",
            )
        position_constraint, orientation_constraint = goal.position_constraints[0], goal.orientation_constraints[0]
        link = position_constraint.link_name or "panda_grasptarget"
        if link not in LINK_INDEX:
            raise _GoalError(MoveItErrorCodes.INVALID_LINK_NAME, f"link {link!r}; known: {', '.join(LINK_INDEX)}")
        region = position_constraint.constraint_region
        if not region.primitive_poses:
            raise _GoalError(MoveItErrorCodes.INVALID_GOAL_CONSTRAINTS, "the position constraint has no region pose")
        target = region.primitive_poses[0].position
        q = orientation_constraint.orientation
        position, orientation = self._to_map(
            position_constraint.header.frame_id, (target.x, target.y, target.z), (q.x, q.y, q.z, q.w)
        )
        return self._sim.move_arm(position, orientation, LINK_INDEX[link], plan_only=plan_only)

    def _to_map(
        self, frame: str, position: tuple[float, ...], orientation: tuple[float, ...]
    ) -> tuple[tuple[float, ...], tuple[float, ...]]:
        if frame in MAP_FRAMES:
            return position, orientation
        if frame == "base_link":
            base = self._sim.robot.pose
            x, y = self._sim.robot.to_map(position[0], position[1])
            qx, qy, qz, qw = orientation
            return (x, y, position[2]), turned((qx, qy, qz, qw), base.yaw)
        raise _GoalError(MoveItErrorCodes.FRAME_TRANSFORM_FAILURE, f"frame {frame!r}; known: map, base_link")

    def _gripper(self, handle: ServerGoalHandle) -> GripperCommand.Result:
        command = handle.request.command
        close = command.position <= GRIPPER_OPEN_ABOVE
        motion = self._call(lambda: self._sim.gripper(close=close))
        self._follow(handle, "gripper", motion, lambda: None)
        opening, held = self._call(lambda: (self._sim.robot.finger_opening(), self._sim.truth().grasped))
        result = GripperCommand.Result(position=opening / 2, effort=float(command.max_effort))
        result.stalled = bool(close and held)
        result.reached_goal = not result.stalled
        if motion.outcome is Outcome.SUCCEEDED:
            handle.succeed()
        elif motion.outcome is Outcome.CANCELED and handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        self.get_logger().info(f"gripper {'close' if close else 'open'}: {motion.message}")
        return result

    def _finish(
        self,
        handle: ServerGoalHandle,
        motion: Motion,
        result: Any,
        describe: Callable[[Any, str], None],
        code: Callable[[Outcome], int],
    ) -> Any:
        describe(result, motion.message)
        value = code(motion.outcome)
        if hasattr(result, "error_code") and hasattr(result.error_code, "val"):
            result.error_code.val = value
        else:
            result.error_code = value
        if motion.outcome is Outcome.SUCCEEDED:
            handle.succeed()
        elif motion.outcome is Outcome.CANCELED and handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        self.get_logger().info(f"{type(result).__module__.split('.')[0]}: {motion.outcome.value}: {motion.message}")
        return result

    # ----- episodes -------------------------------------------------------------------------------------------
    def _on_load(self, request: LoadEpisode.Request, response: LoadEpisode.Response) -> LoadEpisode.Response:
        def load() -> str:
            if self._busy:
                raise ValueError(f"busy ({', '.join(self._busy.values())}): cancel or wait before loading an episode")
            scene, episode = scene_of(self._sim.kitchen, request.episode_file, request.episode_id)
            self._sim.load(scene, episode)
            self._add_obstacles()
            return self._sim.truth().world(self._sim.kitchen).summary()

        try:
            summary = self._call(load)
        except (ValueError, OSError) as error:
            response.success, response.message = False, str(error)
            self.get_logger().error(f"load_episode refused: {error}")
            return response
        response.success = True
        response.message = f"loaded {request.episode_id or 'the default scene'}\n{summary}"
        self.get_logger().info(response.message)
        return response


def _boxes(text: str) -> list[tuple[float, float, float, float]]:
    """Parse the ``obstacles`` parameter; StartupError names the malformed entry."""
    boxes = []
    for entry in filter(None, (part.strip() for part in text.split(";"))):
        try:
            x, y, size_x, size_y = (float(value) for value in entry.split(","))
        except ValueError as error:
            raise StartupError(f"obstacles entry {entry!r} is not 'x,y,size_x,size_y' ({error})") from error
        boxes.append((x, y, size_x, size_y))
    return boxes


class _GoalError(ValueError):
    """A MoveGroup goal that cannot be served; ``code`` is its MoveItErrorCodes value."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class _CameraTopics:
    """The topics of one camera: colour, depth, camera info, and the optical frame's pose in the map."""

    def __init__(self, node: Node, prefix: str) -> None:
        self.frame_id = f"{prefix.strip('/').replace('/', '_')}_optical_frame"
        self.rgb = node.create_publisher(Image, f"{prefix}/color/image_raw", 5)
        self.depth = node.create_publisher(Image, f"{prefix}/depth/image_raw", 5)
        self.info = node.create_publisher(CameraInfo, f"{prefix}/color/camera_info", 5)
        self.pose = node.create_publisher(PoseStamped, f"{prefix}/pose", 5)

    def publish(self, frame: Frame, stamp: Time) -> None:
        header = _header(stamp, self.frame_id)
        spec = frame.spec
        self.rgb.publish(_image(header, frame.rgb, "rgb8"))
        self.depth.publish(_image(header, frame.depth, "32FC1"))
        info = CameraInfo(header=header, width=spec.width, height=spec.height, distortion_model="plumb_bob")
        info.d = [0.0] * 5
        info.k = list(spec.intrinsics())
        info.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
        k = spec.intrinsics()
        info.p = [k[0], 0.0, k[2], 0.0, 0.0, k[4], k[5], 0.0, 0.0, 0.0, 1.0, 0.0]
        self.info.publish(info)
        pose = PoseStamped(header=_header(stamp, "map"))
        pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = frame.eye
        q = Transform.look_at(frame.eye, frame.target).quaternion_xyzw()
        pose.pose.orientation.x, pose.pose.orientation.y, pose.pose.orientation.z, pose.pose.orientation.w = q
        self.pose.publish(pose)


def _header(stamp: Time, frame_id: str) -> Header:
    return Header(stamp=stamp, frame_id=frame_id)


def _image(header: Header, pixels: np.ndarray, encoding: str) -> Image:
    data = np.ascontiguousarray(pixels)
    height, width = data.shape[:2]
    return Image(
        header=header,
        height=height,
        width=width,
        encoding=encoding,
        is_bigendian=False,
        step=data.strides[0],
        data=data.tobytes(),
    )


def _scene_msg(truth: Truth, stamp: Time, frame_id: str, sim: PhysicsKitchen) -> SceneObjectArray:
    """Objects that lie somewhere the kitchen domain names (the floor is left out), at their true poses."""
    array = SceneObjectArray(header=_header(stamp, frame_id))
    for obj in truth.objects:
        if obj.at is None:
            continue
        pose = PoseStamped(header=array.header)
        pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = obj.position
        pose.pose.orientation.x, pose.pose.orientation.y, pose.pose.orientation.z, pose.pose.orientation.w = (
            obj.orientation
        )
        extents = sim.layout.models[obj.label].extents
        array.objects.append(
            SceneObject(
                id=obj.id,
                label=obj.label,
                confidence=1.0,
                pose=pose,
                size=Vector3(x=extents[0], y=extents[1], z=extents[2]),
                location=obj.at,
            )
        )
    return array


def _pose_stamped(pose: Pose2D, stamp: Time) -> PoseStamped:
    message = PoseStamped(header=_header(stamp, "map"))
    message.pose.position.x, message.pose.position.y = pose.x, pose.y
    message.pose.orientation.z, message.pose.orientation.w = math.sin(pose.yaw / 2), math.cos(pose.yaw / 2)
    return message


def _yaw(q: Any) -> float:
    return math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))


def _nav_code(outcome: Outcome) -> int:
    return NavigateToPose.Result.NONE if outcome is Outcome.SUCCEEDED else NavigateToPose.Result.UNKNOWN


def _moveit_code(outcome: Outcome) -> int:
    return {
        Outcome.SUCCEEDED: MoveItErrorCodes.SUCCESS,
        Outcome.NO_IK: MoveItErrorCodes.NO_IK_SOLUTION,
        Outcome.IN_COLLISION: MoveItErrorCodes.GOAL_IN_COLLISION,
        Outcome.CONTROL_FAILED: MoveItErrorCodes.CONTROL_FAILED,
        Outcome.CANCELED: MoveItErrorCodes.PREEMPTED,
    }.get(outcome, MoveItErrorCodes.FAILURE)


def main(args: list[str] | None = None) -> None:
    raise SystemExit(run_node(PhysicsSimNode, threads=6, args=args))

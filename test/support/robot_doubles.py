"""Stand-ins for a robot's Nav2, MoveIt 2 and gripper servers and its perception, as one ROS node.

Serves the real interfaces under their usual names: ``navigate_to_pose`` (nav2_msgs NavigateToPose),
``move_action`` (moveit_msgs MoveGroup) and ``panda_hand_controller/gripper_cmd`` (control_msgs
GripperCommand). With ``world: true`` it also plays the robot's perception: a kitchen World (its
default scene, or the initial state of ``episode_file``/``episode_id``) published as
``scene/objects`` (objects on the place map's surfaces, spread 0.15 m apart) and ``robot/state`` (the
robot-state record), changed by the servers: a navigation that succeeds puts the robot at the place
whose base pose the goal names; a gripper close around an object (the fingertips of the last arm goal
within 5 cm of it across) grasps it, around the handle of the drawer at the robot's place (within
5 cm) holds the handle; opening the gripper puts the held object down at the robot's place (in the
drawer when it is open there), or lets go of the handle, opening or closing the drawer when the
fingertips are nearer the handle's open or closed position. The fingertips are ``grasp_offset`` along
the hand's z axis from the goal's position (the Panda hand's 0.1034 m). Objects are reported
``object_height`` tall (0: the kitchen's object size), their lowest ``unseen_bottom`` metres left out
as a camera looking down misses them (centre raised, height reduced); ``report_held: false`` leaves the
held object out of ``scene/objects``, as perception does (a held object is not a scene object);
``report_drawer: false`` leaves out what is in the drawer, which a head camera does not see.

Outcomes are scripted per server by the parameters ``nav2_outcomes``, ``move_group_outcomes`` and
``gripper_outcomes``: comma-separated, one per goal, the last repeating:
  success     the goal runs ``goal_s`` with feedback and succeeds
  plan_fail   aborted at once: Nav2 NO_VALID_PATH (208), MoveIt PLANNING_FAILED (-1)
  abort       aborted midway: Nav2 FAILED_TO_MAKE_PROGRESS (105) after two recoveries, MoveIt
              CONTROL_FAILED (-4), gripper aborted without stalling
  slow        runs ``slow_s`` (until canceled, in practice)
  empty       (gripper) a close meets no object: fully closed, not stalled
Every goal and cancel is appended as a JSON line to ``record_file`` (when set), for tests to read.
It exists to test the executors' nav2 and moveit backends, which know nothing of it.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import rclpy
from control_msgs.action import GripperCommand
from moveit_msgs.action import MoveGroup
from moveit_msgs.msg import MoveItErrorCodes
from nav2_msgs.action import NavigateToPose
from rclpy.action import ActionServer, CancelResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner_interfaces.msg import SceneObject, SceneObjectArray
from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.domain.skill import GOTO
from llm_planner_ros.domain.world import World
from llm_planner_ros.robot_motion.geometry import rotate
from llm_planner_ros.robot_motion.place_map import Place, load_place_map
from llm_planner_ros.ros.topics import SCENE_TOPIC, STATE_QOS

OUTCOMES = ("success", "plan_fail", "abort", "slow", "empty")
SPREAD_M = 0.15  # objects sharing a surface stand this far apart along x
GRASP_XY_M = 0.05  # a close grasps the object under the last arm goal within this distance
HANDLE_M = 0.05  # a close holds the drawer's handle when the fingertips are this near it
PLACE_XY_M = 0.3  # a navigation goal reaches the place whose base pose is within this distance


class Script:
    """Outcomes of one server, one per goal, the last repeating; ValueError names unknown ones."""

    def __init__(self, text: str) -> None:
        self.outcomes = [word.strip() for word in text.split(",") if word.strip()] or ["success"]
        unknown = set(self.outcomes) - set(OUTCOMES)
        if unknown:
            raise ValueError(f"unknown outcomes {sorted(unknown)}; known: {', '.join(OUTCOMES)}")
        self.used = 0

    def next(self) -> str:
        outcome = self.outcomes[min(self.used, len(self.outcomes) - 1)]
        self.used += 1
        return outcome


class RobotDoubles(Node):
    """The Nav2, MoveIt 2, gripper and perception stand-ins of this module's docstring, in one node."""

    def __init__(self) -> None:
        super().__init__("robot_doubles")
        self.declare_parameter("nav2_outcomes", "success")
        self.declare_parameter("move_group_outcomes", "success")
        self.declare_parameter("gripper_outcomes", "success")
        self.declare_parameter("goal_s", 0.3)
        self.declare_parameter("slow_s", 120.0)
        self.declare_parameter("world", True)
        self.declare_parameter("record_file", "")
        self.declare_parameter("robot_state_topic", "robot/state")
        self.declare_parameter("grasp_offset", 0.1034)
        self.declare_parameter("object_height", 0.0)
        self.declare_parameter("report_held", True)
        self.declare_parameter("report_drawer", True)
        self.declare_parameter("unseen_bottom", 0.0)
        self._lock = threading.RLock()
        self._scripts = {
            name: Script(self.get_parameter(f"{name}_outcomes").value) for name in ("nav2", "move_group", "gripper")
        }
        self._kitchen = load_domain_files()
        self._places = load_place_map()
        self._world: World = self._initial_world()
        self._revision = 0
        self._arm_target: tuple[float, float, float] | None = None  # the fingertips of the last arm goal
        self._on_handle = False
        group = ReentrantCallbackGroup()
        cancel = lambda _goal: CancelResponse.ACCEPT  # noqa: E731
        self._servers = [
            ActionServer(
                self, NavigateToPose, "navigate_to_pose", self._navigate, cancel_callback=cancel, callback_group=group
            ),
            ActionServer(self, MoveGroup, "move_action", self._move, cancel_callback=cancel, callback_group=group),
            ActionServer(
                self,
                GripperCommand,
                "panda_hand_controller/gripper_cmd",
                self._grip,
                cancel_callback=cancel,
                callback_group=group,
            ),
        ]
        self._publish_world = bool(self.get_parameter("world").value)
        if self._publish_world:
            self._scene_pub = self.create_publisher(SceneObjectArray, SCENE_TOPIC, STATE_QOS)
            self._state_pub = self.create_publisher(String, self.get_parameter("robot_state_topic").value, STATE_QOS)
            self._publish()
        self.get_logger().info("robot doubles ready")

    # -- parameters, record -------------------------------------------------------------------------

    def _record(self, entry: dict[str, Any]) -> None:
        path = self.get_parameter("record_file").value
        if path:
            with self._lock, open(path, "a") as out:
                out.write(json.dumps(entry) + "\n")

    def _outcome(self, server: str) -> str:
        with self._lock:
            return self._scripts[server].next()

    def _run(self, handle: Any, outcome: str, feedback: Callable[[float], None]) -> bool:
        """Play a goal out for its duration, publishing feedback; False when it was canceled."""
        duration = self.get_parameter("slow_s").value if outcome == "slow" else self.get_parameter("goal_s").value
        if outcome == "abort":
            duration /= 2.0
        start = time.monotonic()
        while (elapsed := time.monotonic() - start) < duration:
            if handle.is_cancel_requested:
                return False
            feedback(elapsed / duration)
            time.sleep(0.05)
        return True

    # -- Nav2 ---------------------------------------------------------------------------------------

    def _navigate(self, handle: Any) -> NavigateToPose.Result:
        pose = handle.request.pose
        outcome = self._outcome("nav2")
        self._record(
            {
                "server": "nav2",
                "frame": pose.header.frame_id,
                "position": [pose.pose.position.x, pose.pose.position.y],
                "orientation": [pose.pose.orientation.z, pose.pose.orientation.w],
                "outcome": outcome,
            }
        )
        result = NavigateToPose.Result()
        if outcome == "plan_fail":
            result.error_code, result.error_msg = 208, "GridBased: no valid path found"
            handle.abort()
            return result
        distance = 5.0
        message = NavigateToPose.Feedback()

        def feedback(share: float) -> None:
            message.distance_remaining = float(distance * (1.0 - share))
            message.number_of_recoveries = 2 if outcome == "abort" and share > 0.5 else 0
            handle.publish_feedback(message)

        if not self._run(handle, outcome, feedback):
            self._record({"server": "nav2", "canceled": True})
            handle.canceled()
            return result
        if outcome == "abort":
            feedback(1.0)
            result.error_code, result.error_msg = 105, "Failed to make progress"
            handle.abort()
            return result
        reached = self._places.nearest(pose.pose.position.x, pose.pose.position.y, PLACE_XY_M)
        if reached is not None and self._publish_world:
            with self._lock:
                skill = next(
                    (s for s in self._world.admissible_skills() if s.family == GOTO and s.arguments == (reached.name,)),
                    None,
                )
                if skill is not None:
                    self._world.apply(skill)
            self._publish()
        handle.succeed()
        return result

    # -- MoveIt -------------------------------------------------------------------------------------

    def _move(self, handle: Any) -> MoveGroup.Result:
        request = handle.request.request
        constraints = request.goal_constraints[0] if request.goal_constraints else None
        position = constraints.position_constraints[0] if constraints and constraints.position_constraints else None
        orientation = (
            constraints.orientation_constraints[0] if constraints and constraints.orientation_constraints else None
        )
        target = position.constraint_region.primitive_poses[0].position if position else None
        fingertips = None
        if target is not None:
            q = orientation.orientation if orientation else None
            axis = rotate((q.x, q.y, q.z, q.w), (0.0, 0.0, 1.0)) if q else (0.0, 0.0, -1.0)
            offset = self.get_parameter("grasp_offset").value
            fingertips = tuple(c + offset * a for c, a in zip((target.x, target.y, target.z), axis, strict=True))
        path = request.path_constraints
        box = path.position_constraints[0].constraint_region if path.position_constraints else None
        outcome = self._outcome("move_group")
        self._record(
            {
                "server": "move_group",
                "group": request.group_name,
                "phase": constraints.name if constraints else "",
                "link": position.link_name if position else "",
                "orientation_link": orientation.link_name if orientation else "",
                "frame": position.header.frame_id if position else "",
                "target": [target.x, target.y, target.z] if target else None,
                "orientation": [q.x, q.y, q.z, q.w] if target is not None and q is not None else None,
                "plan_only": handle.request.planning_options.plan_only,
                "path": {
                    "box": list(box.primitives[0].dimensions),
                    "centre": [box.primitive_poses[0].position.x, box.primitive_poses[0].position.y],
                    "orientations": len(path.orientation_constraints),
                }
                if box
                else None,
                "outcome": outcome,
            }
        )
        result = MoveGroup.Result()
        if outcome == "plan_fail":
            result.error_code.val = MoveItErrorCodes.PLANNING_FAILED
            handle.abort()
            return result
        message = MoveGroup.Feedback(state="MONITOR")
        if not self._run(handle, outcome, lambda _share: handle.publish_feedback(message)):
            self._record({"server": "move_group", "canceled": True})
            result.error_code.val = MoveItErrorCodes.PREEMPTED
            handle.canceled()
            return result
        if outcome == "abort":
            result.error_code.val = MoveItErrorCodes.CONTROL_FAILED
            handle.abort()
            return result
        with self._lock:
            self._arm_target = fingertips  # type: ignore[assignment]
        result.error_code.val = MoveItErrorCodes.SUCCESS
        handle.succeed()
        return result

    # -- gripper ------------------------------------------------------------------------------------

    def _grip(self, handle: Any) -> GripperCommand.Result:
        command = handle.request.command
        outcome = self._outcome("gripper")
        self._record({"server": "gripper", "position": command.position, "outcome": outcome})
        result = GripperCommand.Result()
        message = GripperCommand.Feedback()
        if not self._run(handle, outcome, lambda _share: handle.publish_feedback(message)):
            self._record({"server": "gripper", "canceled": True})
            handle.canceled()
            return result
        if outcome == "abort":
            handle.abort()
            return result
        closing = command.position < 0.02
        grasped = closing and outcome != "empty" and self._grasp()
        if closing and not grasped:
            result.position, result.reached_goal = command.position, True
        elif closing:
            result.position, result.stalled = 0.035, True  # the fingers stopped on the object
        else:
            self._release()
            result.position, result.reached_goal = command.position, True
        handle.succeed()
        return result

    def _drawer_here(self) -> Place | None:
        """The robot's place when the scene has a drawer and the place map one there."""
        place = self._places.place(self._world.robot_at)
        return place if self._world.has_drawer and place is not None and place.drawer is not None else None

    def _grasp(self) -> bool:
        """Grasp the object under the last arm goal, or the drawer's handle at it; False when there is none
        (True without a world)."""
        if not self._publish_world:
            return True
        with self._lock:
            if self._arm_target is None or self._world.holding is not None:
                return False
            here = self._drawer_here()
            if here is not None and here.drawer is not None:
                handle = here.drawer.handle_at(bool(self._world.drawer_open))
                if math.dist(self._arm_target, (handle.x, handle.y, handle.z)) <= HANDLE_M:
                    self._on_handle = True
                    return True
            x, y, _ = self._arm_target
            under = [obj for obj, pose in self._poses() if math.hypot(pose[0] - x, pose[1] - y) <= GRASP_XY_M]
            skill = f"pick up the {under[0].label}" if under else ""
            if not skill or not self._world.can_apply(skill):
                return False
            self._world.apply(skill)
        self._publish()
        return True

    def _release(self) -> None:
        if not self._publish_world:
            return
        with self._lock:
            if self._on_handle:
                self._let_go_of_handle()
            held = self._world.holding
            if held is None:
                self._publish()
                return
            into = f"put the {held.label} in the drawer"
            self._world.apply(
                into if self._drawer_here() and self._world.can_apply(into) else f"put down the {held.label}"
            )
        self._publish()

    def _let_go_of_handle(self) -> None:
        """The drawer ends open or closed by where the hand let go of its handle."""
        self._on_handle = False
        here = self._drawer_here()
        if here is None or here.drawer is None or self._arm_target is None:
            return
        opened, closed = here.drawer.handle_at(True), here.drawer.handle_at(False)
        hand = self._arm_target
        now_open = math.dist(hand, (opened.x, opened.y, opened.z)) < math.dist(hand, (closed.x, closed.y, closed.z))
        if now_open != self._world.drawer_open:
            self._world.apply("open the drawer" if now_open else "close the drawer")

    # -- perception ---------------------------------------------------------------------------------

    def _poses(self) -> list[tuple[Any, tuple[float, float, float]]]:
        """Every object with its centre: on its place's surface (spread along x), at the base when held."""
        height = self._size()[2]
        seen: dict[str, int] = {}
        poses = []
        for obj in sorted(self._world.objects, key=lambda o: o.id):
            if obj.held and not self.get_parameter("report_held").value:
                continue
            drawer = self._kitchen.config.drawer
            if drawer is not None and obj.at == drawer.contents_at and not self.get_parameter("report_drawer").value:
                continue
            place = self._places.place(self._world.place_of(obj))
            if obj.held or place is None:
                robot = self._world.robot_position
                poses.append((obj, (robot.x, robot.y, 1.0)))
                continue
            index = seen[place.name] = seen.get(place.name, -1) + 1
            spot = place.surface or (place.drawer.interior if place.drawer else None)
            if spot is None:
                poses.append((obj, (place.base.x, place.base.y, height / 2)))
                continue
            poses.append((obj, (spot.x + SPREAD_M * index, spot.y, spot.z + height / 2)))
        return poses

    def _size(self) -> tuple[float, float, float]:
        x, y, z = self._kitchen.config.object_size
        return x, y, float(self.get_parameter("object_height").value) or z

    def _publish(self) -> None:
        if not self._publish_world:
            return
        with self._lock:
            self._revision += 1
            now = self.get_clock().now().to_msg()
            array = SceneObjectArray()
            array.header.stamp, array.header.frame_id = now, self._places.frame
            unseen = float(self.get_parameter("unseen_bottom").value)
            size_x, size_y, size_z = self._size()
            for obj, (x, y, z) in self._poses():
                item = SceneObject(id=obj.id, label=obj.label, confidence=0.9, location=obj.at)
                item.pose.header = array.header
                position = item.pose.pose.position
                position.x, position.y, position.z = x, y, z + unseen / 2.0
                item.pose.pose.orientation.w = 1.0
                item.size.x, item.size.y, item.size.z = size_x, size_y, size_z - unseen
                array.objects.append(item)
            state = RobotState.of_world(self._world, (now.sec, now.nanosec), self._revision, "", None)
            self._scene_pub.publish(array)
            self._state_pub.publish(String(data=state.to_json()))

    def _initial_world(self) -> World:
        """The episode's initial state (parameters episode_file, episode_id), else the default scene."""
        self.declare_parameter("episode_file", "")
        self.declare_parameter("episode_id", "")
        path = self.get_parameter("episode_file").value
        if not path:
            return self._kitchen.world()
        episodes = load_episodes(path, self._kitchen)
        episode_id = self.get_parameter("episode_id").value
        return (episodes.episode(episode_id) if episode_id else next(iter(episodes))).world(self._kitchen)


def main() -> None:
    rclpy.init()
    node = RobotDoubles()
    executor = MultiThreadedExecutor(num_threads=6)
    executor.add_node(node)
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    main()

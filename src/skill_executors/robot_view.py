"""What a robot executor knows of the world: perceived objects with their poses, the robot-state record,
and which place the robot is at.

Objects come from ``/scene/objects`` (SceneObjectArray, a pose per object). The robot-state record
(JSON ``std_msgs/String``, ``llm_planner_ros.domain.robot_state``) says what the gripper holds and, without
TF, where the robot is (``at``). With ``base_pose: tf`` (or ``auto`` where ``tf2_ros`` is importable)
the place is the one whose base pose is nearest the ``map -> base_frame`` transform instead, so the
executors follow localization directly; tf2_ros is an optional import, not on PyPI.
"""

from __future__ import annotations

import importlib.util
import threading
import time
from typing import Any

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from rclpy.time import Time
from std_msgs.msg import String

from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.robot_motion.geometry import Pose
from llm_planner_ros.robot_motion.place_map import PlaceMap
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject
from llm_planner_ros.ros.node_startup import StartupError
from llm_planner_ros.ros.topics import STATE_QOS, full_name


def tf_available() -> bool:
    return importlib.util.find_spec("tf2_ros") is not None


class RobotView:
    """Latest objects and robot state from their topics, and the robot's place (TF or record)."""

    def __init__(
        self,
        node: Node,
        places: PlaceMap,
        p: dict[str, Any],
        group: CallbackGroup,
    ) -> None:
        self._node = node
        self._places = places
        self._lock = threading.Lock()
        self._objects: list[PerceivedObject] = []
        self._robot: RobotState | None = None
        self._heard = {"objects": threading.Event(), "robot": threading.Event()}
        self._topics = (full_name(node, p["scene_topic"]), full_name(node, p["robot_state_topic"]))
        node.create_subscription(SceneObjectArray, p["scene_topic"], self._on_objects, STATE_QOS, callback_group=group)
        node.create_subscription(String, p["robot_state_topic"], self._on_robot, STATE_QOS, callback_group=group)
        self._base_frame = p["base_frame"]
        self._tolerance = p["place_tolerance_m"]
        self._tf_buffer = self._tf_listener = None
        if p["base_pose"] == "tf" and not tf_available():
            raise StartupError("base_pose is tf but tf2_ros is not importable: install tf2_ros or set base_pose topic")
        if p["base_pose"] == "tf" or (p["base_pose"] == "auto" and tf_available()):
            import tf2_ros

            self._tf_buffer = tf2_ros.Buffer()
            self._tf_listener = tf2_ros.TransformListener(self._tf_buffer, node)

    def describe(self) -> str:
        source = f"TF {self._places.frame} -> {self._base_frame}" if self._tf_buffer else self._topics[1]
        return f"objects from {self._topics[0]}, place from {source}"

    def wait(self, timeout_s: float, objects: bool = True) -> str | None:
        """Wait until the topics a skill needs have delivered (the objects when ``objects``, the record
        when the place comes from it); None then, else what is still missing after ``timeout_s``."""
        needed = [("objects", self._topics[0])] if objects else []
        if self._tf_buffer is None:
            needed.append(("robot", self._topics[1]))
        deadline = time.monotonic() + timeout_s
        for key, topic in needed:
            if not self._heard[key].wait(max(0.0, deadline - time.monotonic())):
                return f"nothing on {topic} after {timeout_s:.0f} s: is the perception / robot-state publisher running?"
        return None

    def objects(self) -> list[PerceivedObject]:
        with self._lock:
            return list(self._objects)

    def robot(self) -> RobotState | None:
        with self._lock:
            return self._robot

    def place(self) -> tuple[str | None, str]:
        """The place the robot is at, or None and why it is not known."""
        if self._tf_buffer is not None:
            try:
                moved = self._tf_buffer.lookup_transform(self._places.frame, self._base_frame, Time())
            except Exception as error:
                return None, f"no transform {self._places.frame} -> {self._base_frame}: {error}"
            at = self._places.nearest(moved.transform.translation.x, moved.transform.translation.y, self._tolerance)
            if at is None:
                return None, f"the base is more than {self._tolerance} m from every place of the place map"
            return at.name, ""
        robot = self.robot()
        if robot is None:
            return None, f"no robot-state record on {self._topics[1]} yet: is the robot-state publisher running?"
        return robot.at, ""

    def _on_objects(self, msg: SceneObjectArray) -> None:
        objects = [_perceived(obj, msg.header.frame_id) for obj in msg.objects]
        with self._lock:
            self._objects = objects
        self._heard["objects"].set()

    def _on_robot(self, msg: String) -> None:
        try:
            state = RobotState.from_json(msg.data)
        except ValueError as error:
            self._node.get_logger().error(f"ignoring {self._topics[1]} message: {error}")
            return
        with self._lock:
            self._robot = state
        self._heard["robot"].set()


def _perceived(obj: Any, default_frame: str) -> PerceivedObject:
    """A SceneObject as the core sees it; a pose without a frame is in the array's frame."""
    p, q = obj.pose.pose.position, obj.pose.pose.orientation
    frame = obj.pose.header.frame_id or default_frame
    return PerceivedObject(
        obj.id,
        obj.label,
        obj.location,
        Pose(frame, p.x, p.y, p.z, (q.x, q.y, q.z, q.w)),
        obj.size.z,
        (obj.size.x, obj.size.y),
    )

"""State provider fed by topics: scene objects plus the robot-state record.

With the simulator: /scene/objects and /sim/robot_state from sim_world (stamps matched). On a
robot: the perception node's /scene/objects and a robot-state topic in the same JSON record
(llm_planner_ros.domain.robot_state), published from localization and the gripper (``match_stamps`` off).
A perception node publishes the scene with every frame it processes; with ``max_scene_age_s`` set, a
scene not renewed for that long (the camera or perception stopped) is a ``problem``, so a plan ends with
that reason instead of acting on what the robot saw long ago.
"""

from __future__ import annotations

import time

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.domain.world import World
from llm_planner_ros.ros.messages import objects_from_msg, stamp_of
from llm_planner_ros.ros.state_provider import Stamp, StateAssembler, StateProvider
from llm_planner_ros.ros.topics import STATE_QOS, full_name


class TopicStateProvider(StateProvider):
    """Subscribes to the two topics on ``node`` and keeps the latest consistent world."""

    def __init__(
        self,
        node: Node,
        kitchen: Domain,
        scene_topic: str,
        robot_state_topic: str,
        match_stamps: bool,
        callback_group: CallbackGroup | None = None,
        max_scene_age_s: float = 0.0,
    ) -> None:
        self._node = node
        self._max_scene_age_s = max_scene_age_s
        self._scene_received: float | None = None
        self._topics = (full_name(node, scene_topic), full_name(node, robot_state_topic))
        self._assembler = StateAssembler(kitchen, match_stamps)
        self._reported_error: str | None = None
        self._reported_labels: set[str] = set()
        self._reported_unplaced: set[str] = set()
        node.create_subscription(
            SceneObjectArray, scene_topic, self._on_objects, STATE_QOS, callback_group=callback_group
        )
        node.create_subscription(
            String, robot_state_topic, self._on_robot_state, STATE_QOS, callback_group=callback_group
        )

    def current(self) -> World | None:
        return self._assembler.world

    def wait(self, timeout_s: float) -> World | None:
        return self._assembler.wait(timeout_s)

    def wait_published_after(self, moment: Stamp, timeout_s: float) -> World | None:
        """The world once built from a robot state published at ``moment`` (this node's clock) or later;
        None after ``timeout_s`` (``StateAssembler.wait_published_after``)."""
        return self._assembler.wait_published_after(moment, timeout_s)

    def stamp(self) -> Stamp | None:
        return self._assembler.stamp

    def wait_stamped(self, stamp: Stamp, timeout_s: float) -> World | None:
        return self._assembler.wait_stamped(stamp, timeout_s)

    def _now(self) -> Stamp:
        return self._node.get_clock().now().seconds_nanoseconds()

    def describe(self) -> str:
        return f"topics {self._topics[0]} and {self._topics[1]}"

    def problem(self) -> str | None:
        received = self._scene_received
        if self._max_scene_age_s <= 0 or received is None:
            return None
        age = time.monotonic() - received
        if age <= self._max_scene_age_s:
            return None
        return (
            f"the scene on {self._topics[0]} is {age:.1f} s old (max_scene_age_s {self._max_scene_age_s:g}): "
            "is its publisher running? A perception node publishes it with every camera frame it processes; "
            "its perception/status says `stale` when no RGB-D frame arrives"
        )

    def _on_objects(self, msg: SceneObjectArray) -> None:
        self._scene_received = time.monotonic()
        self._assembler.on_objects(stamp_of(msg.header.stamp), objects_from_msg(msg.objects), self._now())
        self._report()

    def _on_robot_state(self, msg: String) -> None:
        try:
            state = RobotState.from_json(msg.data)
        except ValueError as error:
            self._node.get_logger().error(f"ignoring {self._topics[1]} message: {error}")
            return
        self._assembler.on_robot_state(state, self._now())
        self._report()

    def _report(self) -> None:
        """Log each new assembly problem and unknown label once, not at every message."""
        error = self._assembler.error
        if error is not None and error != self._reported_error:
            self._node.get_logger().error(
                f"state from {self.describe()} is inconsistent, keeping the last good one: {error}"
            )
        self._reported_error = error
        new_labels = self._assembler.ignored_labels - self._reported_labels
        if new_labels:
            self._node.get_logger().warning(f"ignoring objects with labels outside the kitchen: {sorted(new_labels)}")
            self._reported_labels |= new_labels
        # By label, as the ignored ones: perception issues a new id for every track it starts.
        new_unplaced = self._assembler.unplaced_labels - self._reported_unplaced
        if new_unplaced:
            self._node.get_logger().warning(
                f"leaving out objects at no place (location ''), labels {sorted(new_unplaced)}; raise "
                "perception's place_radius_m if they stand at one of the world's places"
            )
            self._reported_unplaced |= new_unplaced

"""What the learned affordance backend reads: the perceived scene and the robot-state record, as a
``llm_planner_ros.value_functions.observation.Observation`` (label, centre, size, location and confidence of each
detection; the robot's position, place, held label and drawer state). No simulator-only fact passes.

With ``match_stamps`` (the simulator stamps both messages of one world revision alike) the observation
is built only from a pair with equal stamps, and ``current`` can wait for the scene of the newest
robot state (after a navigation the robot state may arrive first: a pick scored from the place the robot
had just left chose the wrong skill under load); otherwise from the latest of each.
"""

from __future__ import annotations

import threading

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner_interfaces.msg import SceneObject, SceneObjectArray
from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.ros.messages import stamp_of
from llm_planner_ros.ros.topics import STATE_QOS
from llm_planner_ros.value_functions.observation import Observation, PerceivedObject


class ObservationListener:
    """Subscribes to the scene and robot-state topics on ``node``; ``current()`` is the latest observation."""

    def __init__(
        self,
        node: Node,
        scene_topic: str,
        robot_state_topic: str,
        match_stamps: bool,
        callback_group: CallbackGroup | None = None,
    ) -> None:
        self._match_stamps = match_stamps
        self._lock = threading.Lock()
        self._assembled = threading.Condition(self._lock)
        self._objects: tuple[tuple[int, int], tuple[PerceivedObject, ...]] | None = None
        self._robot: RobotState | None = None
        self._current: Observation | None = None
        node.create_subscription(
            SceneObjectArray, scene_topic, self._on_objects, STATE_QOS, callback_group=callback_group
        )
        node.create_subscription(String, robot_state_topic, self._on_robot, STATE_QOS, callback_group=callback_group)

    def current(self, wait_s: float = 0.0) -> Observation | None:
        """The latest observation; with ``match_stamps``, first up to ``wait_s`` for the scene stamped like
        the newest robot state, when it has not come yet (then the latest matched pair's)."""
        with self._lock:
            if self._match_stamps and wait_s > 0.0 and self._robot is not None:
                self._assembled.wait_for(self._paired, timeout=wait_s)
            return self._current

    def _paired(self) -> bool:
        return self._robot is not None and self._objects is not None and self._objects[0] == self._robot.stamp

    def _on_objects(self, msg: SceneObjectArray) -> None:
        detections = tuple(perceived(o) for o in msg.objects if o.location != HELD)
        with self._lock:
            self._objects = (stamp_of(msg.header.stamp), detections)
            self._assemble()

    def _on_robot(self, msg: String) -> None:
        try:
            state = RobotState.from_json(msg.data)
        except ValueError:
            return  # the world provider on the same topic logs malformed records
        with self._lock:
            self._robot = state
            self._assemble()

    def _assemble(self) -> None:
        if self._objects is None or self._robot is None:
            return
        stamp, detections = self._objects
        if self._match_stamps and stamp != self._robot.stamp:
            return
        robot = self._robot
        self._current = Observation(
            (robot.position.x, robot.position.y), robot.at, robot.holding_label, robot.drawer_open, detections
        )
        self._assembled.notify_all()


def perceived(msg: SceneObject) -> PerceivedObject:
    p = msg.pose.pose.position
    return PerceivedObject(
        msg.label, (p.x, p.y, p.z), (msg.size.x, msg.size.y, msg.size.z), msg.location, float(msg.confidence)
    )

"""Records a graph's plan topics into a rosbag2 bag as they are published (``llm-planner record``).

Each topic is subscribed with ``raw=True``: the bag keeps the CDR bytes that arrived, as ``ros2 bag
record`` does. The latched topics (the scene, the robot-state record) are subscribed transient-local, so
the bag starts with the state the graph was in. The plan events (goals, steps) are subscribed with the
planner's own profile (``topics.EVENTS_QOS``: reliable, transient-local, deep), so neither a burst of goals
nor a match that completes just after a goal started loses one; of the history that comes with the match,
what was published before the recording began is left out (by its source timestamp: the planner's clock
and the recorder's must agree, as on one machine). A publisher on those topics that offers only volatile
durability does not match. The goal events' ``seq`` numbers are followed all the same:
``goal_events_lost`` counts any that never arrived.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rclpy.node import Node
from rclpy.qos import QoSProfile
from rclpy.serialization import deserialize_message
from std_msgs.msg import String

from llm_planner_ros.recording.bag import BagWriter
from llm_planner_ros.recording.goal_events import ForeignEventError, SequenceGaps, parse_goal_event
from llm_planner_ros.recording.message_definitions import message_class
from llm_planner_ros.ros import topics as names
from llm_planner_ros.ros.topics import (
    EVENTS_DEPTH,
    EXECUTE_INSTRUCTION_ACTION,
    GOALS_TOPIC,
    MARKERS_TOPIC,
    SCENE_TOPIC,
    SCORES_TOPIC,
    STATE_QOS,
    STOP_TOPIC,
)

# The other topics (markers, e-stop, goal statuses, camera): reliable, volatile, room for a burst; not
# EVENTS_DEPTH, which for camera images would hold up to a gigabyte in a recorder that fell behind.
STREAM_QOS = QoSProfile(depth=100)
# A live view of the plan events (the operator console): reliable and volatile (it matches any publisher and
# gets no history), as deep as the planner's history.
EVENTS_QOS = QoSProfile(depth=EVENTS_DEPTH)
EVENT_TOPICS = (GOALS_TOPIC, SCORES_TOPIC)


@dataclass(frozen=True)
class RecordedTopic:
    """A topic (relative: the recorder's namespace applies), its type, and whether it is latched (read
    transient-local, so its last message before the recording started arrives too)."""

    name: str
    type_name: str
    latched: bool = False


PLAN_TOPICS: tuple[RecordedTopic, ...] = (
    RecordedTopic(GOALS_TOPIC, "std_msgs/msg/String"),
    RecordedTopic(SCORES_TOPIC, "llm_planner_interfaces/msg/PlanStep"),
    RecordedTopic(MARKERS_TOPIC, "visualization_msgs/msg/MarkerArray"),
    RecordedTopic(STOP_TOPIC, "std_msgs/msg/Bool"),
    RecordedTopic(f"{EXECUTE_INSTRUCTION_ACTION}/_action/status", "action_msgs/msg/GoalStatusArray"),
    RecordedTopic(SCENE_TOPIC, "llm_planner_interfaces/msg/SceneObjectArray", latched=True),
)
CAMERA_TOPICS: tuple[RecordedTopic, ...] = (
    RecordedTopic("camera/color/image_raw", "sensor_msgs/msg/Image"),
    RecordedTopic("camera/color/camera_info", "sensor_msgs/msg/CameraInfo"),
)


def recorded_topics(robot_state_topic: str, camera: bool) -> list[RecordedTopic]:
    """PLAN_TOPICS, the robot-state record (latched JSON; its name differs between the graphs:
    sim/robot_state, robot/state) and, with ``camera``, CAMERA_TOPICS."""
    state = RecordedTopic(robot_state_topic, "std_msgs/msg/String", latched=True)
    return [*PLAN_TOPICS, state, *(CAMERA_TOPICS if camera else ())]


class BagRecorder:
    """Subscribes ``node`` to ``topics`` and writes every message to ``writer``, stamped with the time it
    arrived; ``node``'s namespace resolves the relative names. ``writer.close()`` ends the bag."""

    def __init__(self, node: Node, writer: BagWriter, topics: Sequence[RecordedTopic]) -> None:
        self.topics = [node.resolve_topic_name(topic.name) for topic in topics]
        # The history that comes with the match tells the last event before the recording; with none, the
        # planner has published nothing yet, so its first event must be seq 1.
        self._gaps = SequenceGaps(last=0)
        # Wall-clock, as the DDS source timestamps: plan events published before it are history, not recorded.
        self._start_ns = time.time_ns()
        clock = node.get_clock()
        for topic, resolved in zip(topics, self.topics, strict=True):
            writer.add_topic(resolved, topic.type_name)
            events = topic.name in EVENT_TOPICS
            goals = topic.name == GOALS_TOPIC

            def record(
                data: bytes, info: dict[str, Any], name: str = resolved, events: bool = events, goals: bool = goals
            ) -> None:
                history = events and info["source_timestamp"] < self._start_ns
                if not history:  # transient-local history from before the recording began is not recorded
                    writer.write(name, data, clock.now().nanoseconds)
                if goals:
                    self._count_goal_event(data, history)

            qos = STATE_QOS if topic.latched else names.EVENTS_QOS if events else STREAM_QOS
            node.create_subscription(message_class(topic.type_name), topic.name, record, qos, raw=True)

    @property
    def goal_events_lost(self) -> int:
        """How many of the planner's goal events never arrived (gaps in their ``seq``)."""
        return self._gaps.lost

    def lost_report(self) -> str | None:
        """What to tell the user when goal events were lost; None when none was."""
        if not self._gaps.lost:
            return None
        return (
            f"{self._gaps.lost} goal events lost: their seq numbers on {GOALS_TOPIC} skip, so the bag lacks them "
            "(a planner publishing with a shallower QoS than topics.EVENTS_QOS, or a recorder that fell behind)"
        )

    def _count_goal_event(self, data: bytes, history: bool) -> None:
        try:
            event = parse_goal_event(deserialize_message(data, String).data)
        except ForeignEventError:
            return  # someone else's message: kept in the bag, not one of the planner's numbered events
        if history:
            self._gaps.seed(event.seq)
        else:
            self._gaps.see(event.seq)

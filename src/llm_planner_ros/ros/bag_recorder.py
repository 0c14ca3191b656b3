"""Records a graph's plan topics into a rosbag2 bag as they are published (``llm-planner record``).

Each topic is subscribed with ``raw=True``: the bag keeps the CDR bytes that arrived, as ``ros2 bag
record`` does. The latched topics (the scene, the robot-state record) are subscribed transient-local, so
the bag starts with the state the graph was in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rclpy.node import Node
from rclpy.qos import QoSProfile

from llm_planner_ros.recording.bag import BagWriter
from llm_planner_ros.recording.message_definitions import message_class
from llm_planner_ros.ros.topics import (
    EXECUTE_INSTRUCTION_ACTION,
    GOALS_TOPIC,
    MARKERS_TOPIC,
    SCENE_TOPIC,
    SCORES_TOPIC,
    STATE_QOS,
    STOP_TOPIC,
)

EVENTS_QOS = QoSProfile(depth=100)  # reliable, volatile: the planner's publishers' profile, with room for bursts


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
        clock = node.get_clock()
        for topic, resolved in zip(topics, self.topics, strict=True):
            writer.add_topic(resolved, topic.type_name)

            def record(data: bytes, name: str = resolved) -> None:
                writer.write(name, data, clock.now().nanoseconds)

            qos = STATE_QOS if topic.latched else EVENTS_QOS
            node.create_subscription(message_class(topic.type_name), topic.name, record, qos, raw=True)

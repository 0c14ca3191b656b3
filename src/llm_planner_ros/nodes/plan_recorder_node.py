"""plan_recorder: keeps the graph's plans as a rosbag2 bag (MCAP) for as long as it runs.

Started with the graph by the launch argument ``record:=true`` or ``llm-planner up --bag``; the same
recording as ``llm-planner record`` (``ros.bag_recorder``: goals, step tables, markers, e-stop, goal
statuses, scene, robot state, the camera with ``camera``). The bag is closed, with its
``metadata.yaml``, when the node shuts down (Ctrl-C of the launch, SIGTERM).

Parameters: ``bag_folder`` (new or empty; empty: a new folder under ~/.cache/llm_planner_ros/bags),
``robot_state_topic``, ``camera``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rclpy.node import Node

from llm_planner_ros.recording.bag import BagWriter
from llm_planner_ros.recording.message_definitions import DefinitionError
from llm_planner_ros.ros.bag_recorder import BagRecorder, recorded_topics
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters

BAGS = Path("~/.cache/llm_planner_ros/bags")

PARAMETERS = {
    "bag_folder": Parameter(
        "", "the bag folder to write, new or empty (empty: a new one under ~/.cache/llm_planner_ros/bags)"
    ),
    "robot_state_topic": Parameter("sim/robot_state", "the robot-state record's topic (robot/state on a robot)"),
    "camera": Parameter(False, "also record camera/color/image_raw and camera/color/camera_info"),
}


class PlanRecorderNode(Node):
    """Subscribes to the plan topics and writes them to a bag; ``close()`` (at shutdown) ends the bag."""

    def __init__(self) -> None:
        super().__init__("plan_recorder")
        p = declare_parameters(self, PARAMETERS)
        stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
        folder = Path(p["bag_folder"]).expanduser() if p["bag_folder"] else BAGS.expanduser() / stamp
        try:
            self._writer = BagWriter(folder)
        except (OSError, DefinitionError) as error:
            raise StartupError(f"cannot record to {folder}: {error}") from error
        self._recorder = BagRecorder(self, self._writer, recorded_topics(p["robot_state_topic"], p["camera"]))
        self.get_logger().info(f"recording {', '.join(self._recorder.topics)} to {folder}")

    def close(self) -> None:
        folder = self._writer.close()
        self.get_logger().info(f"wrote {self._writer.message_count} messages to {folder}")
        if (lost := self._recorder.lost_report()) is not None:
            self.get_logger().error(lost)


def main() -> None:
    run_node(PlanRecorderNode, threads=2)

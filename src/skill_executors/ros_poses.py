"""robot_motion poses as geometry_msgs messages."""

from __future__ import annotations

from geometry_msgs.msg import PoseStamped

from llm_planner_ros.robot_motion.geometry import Pose


def pose_stamped(pose: Pose) -> PoseStamped:
    """A PoseStamped with stamp 0, which tf2 users (Nav2, MoveIt) read as "the latest transform"."""
    msg = PoseStamped()
    msg.header.frame_id = pose.frame
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = pose.x, pose.y, pose.z
    o = msg.pose.orientation
    o.x, o.y, o.z, o.w = pose.orientation
    return msg

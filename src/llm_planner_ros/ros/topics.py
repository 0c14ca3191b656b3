"""ROS names and QoS of the simulated world, shared by sim_world_node and the nodes that read it."""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

SCENE_TOPIC = "/scene/objects"
ROBOT_STATE_TOPIC = "/sim/robot_state"
APPLY_SKILL_ACTION = "/sim/apply_skill"
LOAD_EPISODE_SERVICE = "/sim/load_episode"

# Latched state: a subscriber that starts later still gets the current world.
STATE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)

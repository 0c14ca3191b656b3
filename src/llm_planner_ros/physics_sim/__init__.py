"""The kitchen as a physics simulation (PyBullet, headless): furniture and objects built from the same
world and episode files as the symbolic simulator, a mobile manipulator (kinematic base + Franka Panda),
motion primitives, cameras and ground truth mapped back to the kitchen domain's world facts.

ROS-free; ``physics_sim`` serves it on the robot interfaces (docs/physics_sim.md).
"""

from llm_planner_ros.domain.layout import DomainLayout, LayoutError, Pose2D, load_layout
from llm_planner_ros.physics_sim.motions import Motion, Outcome
from llm_planner_ros.physics_sim.simulation import PhysicsKitchen, scene_of
from llm_planner_ros.physics_sim.truth import Truth

__all__ = [
    "DomainLayout",
    "LayoutError",
    "Motion",
    "Outcome",
    "PhysicsKitchen",
    "Pose2D",
    "Truth",
    "load_layout",
    "scene_of",
]

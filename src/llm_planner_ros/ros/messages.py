"""Conversions between the world model and llm_planner_interfaces messages (no rclpy needed)."""

from __future__ import annotations

from collections.abc import Iterable

from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseStamped, Vector3

from llm_planner_interfaces.msg import SceneObject, SceneObjectArray
from llm_planner_interfaces.msg import Skill as SkillMsg
from llm_planner_ros.domain.scene import ObjectInstance
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World


def skill_to_msg(skill: Skill) -> SkillMsg:
    return SkillMsg(text=skill.text, family=skill.family, arguments=list(skill.arguments), executor=skill.executor)


def skill_from_msg(msg: SkillMsg) -> Skill:
    return Skill(msg.text, msg.family, tuple(msg.arguments), msg.executor)


def scene_objects_msg(world: World, stamp: Time) -> SceneObjectArray:
    """The world's objects as simulator ground truth: confidence 1, pose at their place's position
    (the robot's for a held object), ``location`` the place name, "robot" or the drawer's contents."""
    config = world.kitchen.config
    array = SceneObjectArray()
    array.header.stamp = stamp
    array.header.frame_id = config.frame_id
    size = Vector3(x=config.object_size[0], y=config.object_size[1], z=config.object_size[2])
    for obj in world.objects:
        position = config.position(world.place_of(obj))
        pose = PoseStamped()
        pose.header = array.header
        pose.pose.position.x, pose.pose.position.y = position.x, position.y
        pose.pose.orientation.w = 1.0
        array.objects.append(
            SceneObject(id=obj.id, label=obj.label, confidence=1.0, pose=pose, size=size, location=obj.at)
        )
    return array


def objects_from_msg(objects: Iterable[SceneObject]) -> list[ObjectInstance]:
    return [ObjectInstance(obj.id, obj.label, obj.location) for obj in objects]


def stamp_of(time: Time) -> tuple[int, int]:
    return (int(time.sec), int(time.nanosec))


def time_msg(stamp: tuple[int, int] | None) -> Time:
    """``stamp`` (sec, nanosec) as a message; None as zero (no stamp)."""
    sec, nanosec = stamp or (0, 0)
    return Time(sec=sec, nanosec=nanosec)

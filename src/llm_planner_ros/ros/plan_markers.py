"""RViz markers of a plan step: what the robot is doing and what it weighed, drawn where it stands."""

from __future__ import annotations

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from visualization_msgs.msg import Marker, MarkerArray

from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.decision import StepRecord, StepStatus

NAMESPACE = "llm_planner"
_STATUS_RGB = {
    StepStatus.PLANNED: (0.3, 0.7, 1.0),
    StepStatus.RUNNING: (1.0, 0.8, 0.1),
    StepStatus.SUCCEEDED: (0.2, 0.9, 0.3),
    StepStatus.FAILED: (1.0, 0.2, 0.2),
    StepStatus.SKIPPED: (0.8, 0.3, 0.8),
    StepStatus.CANCELED: (1.0, 0.2, 0.2),
}


def plan_markers(record: StepRecord, world: World, frame_id: str, stamp: Time, top: int = 3) -> MarkerArray:
    """Three markers: a text above the robot (step, skill, status, top candidates with their combined
    score), a sphere at the robot coloured by the step's status, and an arrow from the robot to the
    place a navigation skill heads for (deleted for other skills)."""
    robot = world.robot_position
    r, g, b = _STATUS_RGB[record.status]
    lines = [f"{record.index + 1}. {record.skill.text} [{record.status.name.lower()}]"]
    lines += [f"{c.skill.text}: {c.combined:.3f}" for c in record.candidates[:top]]

    text = _marker(0, Marker.TEXT_VIEW_FACING, frame_id, stamp, (r, g, b))
    text.pose.position.x, text.pose.position.y, text.pose.position.z = robot.x, robot.y, 1.6
    text.scale.z = 0.18
    text.text = "\n".join(lines)

    sphere = _marker(1, Marker.SPHERE, frame_id, stamp, (r, g, b))
    sphere.pose.position.x, sphere.pose.position.y, sphere.pose.position.z = robot.x, robot.y, 0.3
    sphere.scale.x = sphere.scale.y = sphere.scale.z = 0.4

    arrow = _marker(2, Marker.ARROW, frame_id, stamp, (r, g, b))
    target = _target_place(record, world)
    if target is None:
        arrow.action = Marker.DELETE
    else:
        goal = world.kitchen.config.position(target)
        arrow.points = [Point(x=robot.x, y=robot.y, z=0.3), Point(x=goal.x, y=goal.y, z=0.3)]
        arrow.scale.x, arrow.scale.y, arrow.scale.z = 0.08, 0.2, 0.2
    return MarkerArray(markers=[text, sphere, arrow])


def _marker(marker_id: int, marker_type: int, frame_id: str, stamp: Time, rgb: tuple[float, float, float]) -> Marker:
    marker = Marker(ns=NAMESPACE, id=marker_id, type=marker_type, action=Marker.ADD)
    marker.header.frame_id = frame_id
    marker.header.stamp = stamp
    marker.pose.orientation.w = 1.0
    marker.color.r, marker.color.g, marker.color.b, marker.color.a = *rgb, 0.9
    return marker


def _target_place(record: StepRecord, world: World) -> str | None:
    argument = record.skill.argument
    if record.skill.family == "goto" and argument in world.places():
        return argument
    if record.skill.family == "find" and argument is not None:
        return world.nearest_place_of(argument)
    return None

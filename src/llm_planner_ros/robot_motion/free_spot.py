"""Where put down sets the held object: the free spot of a surface's area nearest its point.

The place map gives each surface a point and, optionally, an area around it (``place_map.Area``: a
width across the base's heading, centred on the point, and a depth from the point away from the base).
Put down aims at the point when nothing stands near it, else at the first spot of the area, on a
``step`` grid, that keeps ``gap`` between the held object's footprint and every object perception
reports standing on that surface (footprints as discs of ``PerceivedObject.radius``): the row of the
point first, nearest the point, then the rows behind it. A surface without
an area is its point alone, taken as it is (the bin: what is dropped there lies inside, on whatever is
there already).

Why the executor chooses: on a robot the scene the executor reads (``/scene/objects``) is all that says
where objects stand; a simulator or MoveIt only moves the hand where it is told.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from llm_planner_ros.robot_motion.geometry import Pose
from llm_planner_ros.robot_motion.navigation import MotionError
from llm_planner_ros.robot_motion.place_map import Area
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject

GAP_M = 0.02  # between the footprints of the put-down object and its neighbours
STEP_M = 0.01  # grid of the spots tried
BELOW_M = 0.05  # an object whose centre is this far below the surface point down to ...
ABOVE_M = 0.3  # ... this far above it stands on that surface


class NoFreeSpot(MotionError):
    """Every spot of a surface's area is taken; the message says by what."""


def standing_on(surface: Pose, objects: Sequence[PerceivedObject]) -> list[PerceivedObject]:
    """The objects not held whose centres lie just above ``surface``'s height, in its frame."""
    return [
        obj
        for obj in objects
        if not obj.held and obj.pose.frame == surface.frame and surface.z - BELOW_M <= obj.pose.z <= surface.z + ABOVE_M
    ]


def free_spot(
    surface: Pose,
    area: Area,
    heading: float,
    held_radius: float,
    objects: Sequence[PerceivedObject],
    gap: float = GAP_M,
    step: float = STEP_M,
) -> Pose:
    """The first spot of ``area`` (laid out by the base's ``heading``; by row, nearest ``surface``) whose disc of
    ``held_radius`` keeps ``gap`` from every object of ``objects`` standing on the surface; the point
    itself when the area is empty. NoFreeSpot when none is free."""
    if area.width <= 0.0 and area.depth <= 0.0:
        return surface
    neighbours = standing_on(surface, objects)
    ax, ay = math.cos(heading), math.sin(heading)  # away from the base
    cx, cy = -ay, ax  # across
    half = int(area.width / 2.0 / step + 1e-9)
    rows = int(area.depth / step + 1e-9)
    # Row by row from the point's, nearest the point first: objects line up along the edge the robot
    # reaches best and leave room behind them (nearest-first in both directions scattered them).
    offsets = sorted(
        ((j * step, i * step) for i in range(-half, half + 1) for j in range(rows + 1)),
        key=lambda o: (o[0], abs(o[1]), -o[1]),
    )
    for along, across in offsets:
        x = surface.x + along * ax + across * cx
        y = surface.y + along * ay + across * cy
        if all(math.hypot(x - o.pose.x, y - o.pose.y) >= held_radius + o.radius + gap for o in neighbours):
            return Pose(surface.frame, x, y, surface.z, surface.orientation)
    names = ", ".join(sorted(o.id for o in neighbours))
    raise NoFreeSpot(
        f"no free spot for an object {2 * held_radius:.2f} m across within {area.width:.2f} x {area.depth:.2f} m "
        f"of ({surface.x:.2f}, {surface.y:.2f}): {names} stand there"
    )

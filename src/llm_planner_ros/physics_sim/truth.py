"""Ground truth of the physics simulation, and its mapping back to the kitchen domain's world facts.

An object's place is read from where it physically is: over a piece of furniture and resting on (or
just above) its top, inside the bin, or inside the drawer's tray; held when it is attached to the
gripper; ``None`` when it lies anywhere else (on the floor, knocked off). The robot is ``at`` the
place whose standing point is nearest (within ``AT_TOLERANCE_M`` it counts as a visit).

``Truth.world(kitchen)`` builds a ``domain.World`` from it, so goal conditions (episode
success) run on physics state; objects with no place are left out of that world, so a coke on the
floor is nowhere a goal could want it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.layout import NO_FURNITURE, DomainLayout, Furniture, Pose2D
from llm_planner_ros.domain.scene import ObjectInstance, Scene
from llm_planner_ros.domain.world import World
from llm_planner_ros.physics_sim.builder import DRAWER_HEIGHT

AT_TOLERANCE_M = 0.3
ON_TOP_BAND = (-0.03, 0.35)  # an object's centre this far above/below a top counts as on it


@dataclass(frozen=True)
class ObjectTruth:
    """One object: id, label, pose (map frame), its place (see module docstring), whether it stands
    upright, and the bodies it touches (furniture places, object ids, ``robot``, ``floor``)."""

    id: str
    label: str
    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]
    at: str | None
    upright: bool
    touching: tuple[str, ...]


@dataclass(frozen=True)
class Truth:
    """The physical state at ``time`` (simulated seconds), as the kitchen domain names things."""

    time: float
    episode: str
    robot: Pose2D
    robot_at: str
    holding: str | None
    grasped: str | None  # what the fingers hold: an object id, ``drawer handle`` or None
    drawer_open: bool | None
    drawer_extension: float | None
    visited: tuple[str, ...]
    objects: tuple[ObjectTruth, ...]
    facts: frozenset[str] | None = None  # the declared facts that hold (None: the world declares none)

    def scene(self) -> Scene:
        placed = tuple(ObjectInstance(o.id, o.label, o.at) for o in self.objects if o.at is not None)
        return Scene(self.robot_at, placed, self.drawer_open, facts=self.facts)

    def world(self, kitchen: Domain) -> World:
        return World(kitchen, self.scene(), self.visited)

    def unplaced(self) -> tuple[str, ...]:
        """Ids of objects that lie nowhere the kitchen domain has a name for (the floor)."""
        return tuple(o.id for o in self.objects if o.at is None)

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "truth": True,
            "time": round(self.time, 4),
            "episode": self.episode,
            "robot": {"x": self.robot.x, "y": self.robot.y, "yaw": self.robot.yaw, "at": self.robot_at},
            "holding": self.holding,
            "grasped": self.grasped,
            "drawer_open": self.drawer_open,
            "drawer_extension": self.drawer_extension,
            "visited": list(self.visited),
            "facts": None if self.facts is None else sorted(self.facts),
            "objects": [
                {
                    "id": o.id,
                    "label": o.label,
                    "position": [round(v, 4) for v in o.position],
                    "orientation": [round(v, 4) for v in o.orientation],
                    "at": o.at,
                    "upright": o.upright,
                    "touching": list(o.touching),
                }
                for o in self.objects
            ],
        }
        return json.dumps(data)


def nearest_place(layout: DomainLayout, pose: Pose2D, places: tuple[str, ...]) -> tuple[str, float]:
    """The place whose standing point is nearest to ``pose``, and the distance to it."""
    distances = {place: layout.furniture[place].standing.distance_to(pose) for place in places}
    place = min(distances, key=lambda p: distances[p])
    return place, distances[place]


def place_of_point(
    layout: DomainLayout,
    point: tuple[float, float, float],
    places: tuple[str, ...],
    drawer: tuple[str, float] | None,
    drawer_contents: str | None,
) -> str | None:
    """Which place a resting object centre belongs to; ``drawer`` is (its place, current extension)."""
    x, y, z = point
    if drawer is not None and drawer_contents is not None:
        piece = layout.furniture[drawer[0]]
        if _in_drawer(piece, drawer[1], point):
            return drawer_contents
    for place in places:
        piece = layout.furniture[place]
        if piece.kind == NO_FURNITURE or not piece.covers(x, y, margin=0.02):
            continue
        if piece.kind == "bin":
            if z < piece.height + 0.1:
                return place
        elif ON_TOP_BAND[0] <= z - piece.height <= ON_TOP_BAND[1]:
            return place
    return None


def _in_drawer(piece: Furniture, extension: float, point: tuple[float, float, float]) -> bool:
    lx, ly = piece.to_local(point[0], point[1])
    lx += extension  # the tray slides towards -x
    low = piece.height - DRAWER_HEIGHT
    return abs(lx) <= piece.depth / 2 and abs(ly) <= piece.width / 2 and low <= point[2] <= piece.height


def to_held(objects: list[ObjectTruth], holding: str | None) -> list[ObjectTruth]:
    """Mark the held object ``at: robot`` (its place by position is meaningless while carried)."""
    return [
        ObjectTruth(o.id, o.label, o.position, o.orientation, HELD, o.upright, o.touching) if o.id == holding else o
        for o in objects
    ]

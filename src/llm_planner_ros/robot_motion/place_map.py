"""The robot's map of named places: a YAML file (a domain folder's ``robot_map.yaml``), or, for a domain
without one, the map its layout implies (``place_map_of_layout``: each place's standing pose and top).

Format::

    frame_id: map                # frame of every pose below (Nav2's global frame)
    places:
      far counter:
        base: {x: 4.5, y: 1.1, yaw: -1.5708}    # where the base stands to work there (NavigateToPose goal)
        surface: {x: 4.5, y: 0.5, z: 0.9}      # where "put down" sets objects (optional: no put down there)
        # optional width / depth of a surface or interior: the area around the point where put down may
        # choose a free spot (llm_planner_ros.robot_motion.free_spot): width across the base's heading, centred on the
        # point; depth from the point away from the base. Without them: the point alone.
      drawers:
        base: {x: 3.0, y: 0.5, yaw: -1.5708}
        drawer:                                # optional: a drawer the arm opens, closes and fills
          handle: {x: 3.0, y: -0.53, z: 0.645} # the handle's centre, drawer closed
          open_yaw: 1.5708                     # the direction it slides out (rad, horizontal)
          travel: 0.3                          # how far it slides (m)
          interior: {x: 3.0, y: -0.37, z: 0.59}  # where "put the X in the drawer" sets objects, drawer open

Every place the skill library names (``go to the far counter``, ``bring it to you`` -> ``user``, the
drawer's ``drawers``) needs an entry; ``missing_places`` says which are absent.

The map a layout implies: the base where the layout's robot stands; the surface at the place's point on
the furniture's top (a bin's: 10 cm over its rim; none on a drawer cabinet or where no furniture
stands); put down's area as wide as the top leaves room for within the arm's reach
(``Placement.max_offset``) and, on a top lower than ``DEEP_TOP_BELOW_M``, one row deep (the arm reaches
the second row of a table, not of a counter). A drawer needs a written map.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.config import DomainConfig
from llm_planner_ros.domain.layout import NO_FURNITURE, DomainLayout, load_layout
from llm_planner_ros.domain.validation import Checker, ValidationError, join
from llm_planner_ros.paths import default_domain_file, read_config_yaml
from llm_planner_ros.robot_motion.geometry import Pose, Vector, yaw_quaternion

MAP_FILE = "robot_map.yaml"
DEEP_TOP_BELOW_M = 0.8
BIN_DROP_M = 0.1  # a bin's surface: this far over its rim, where the held object is let go
POINT = ("x", "y", "z")
AREA = ("width", "depth")  # optional keys of a surface or interior


class PlaceMapError(ValidationError):
    """A place map file that does not match the format; lists every problem."""


@dataclass(frozen=True)
class Area:
    """Where around a surface point put down may set an object's centre (metres): ``width`` across the
    base's heading at the place, centred on the point; ``depth`` from the point away from the base. The
    default, no area, is the point alone."""

    width: float = 0.0
    depth: float = 0.0


@dataclass(frozen=True)
class Drawer:
    """A drawer at a place: ``handle`` is the handle's centre with the drawer closed, ``open_yaw`` the
    horizontal direction it slides out (rad, map frame), ``travel`` how far (m), ``interior`` where
    objects put in the open drawer go (a point on its bottom)."""

    handle: Pose
    open_yaw: float
    travel: float
    interior: Pose
    interior_area: Area = Area()

    @property
    def direction(self) -> Vector:
        """The unit vector the drawer opens along."""
        return (math.cos(self.open_yaw), math.sin(self.open_yaw), 0.0)

    def handle_at(self, is_open: bool) -> Pose:
        """The handle's centre with the drawer closed or fully open."""
        ux, uy, _ = self.direction
        reach = self.travel if is_open else 0.0
        return self.handle.shifted(dx=ux * reach, dy=uy * reach)


@dataclass(frozen=True)
class Place:
    """One named place: the base pose to navigate to and, where objects can be set down, the surface point;
    where there is one, the drawer the arm works."""

    name: str
    base: Pose
    surface: Pose | None
    drawer: Drawer | None = None
    surface_area: Area = Area()

    @property
    def heading(self) -> float:
        """The base's heading at the place (rad): put down's area is laid out across and along it."""
        _, _, z, w = self.base.orientation
        return 2.0 * math.atan2(z, w)


@dataclass(frozen=True)
class PlaceMap:
    """Named places in one frame (``frame``), read from a map YAML (``source``)."""

    frame: str
    places: Mapping[str, Place]
    source: str = ""

    def place(self, name: str) -> Place | None:
        return self.places.get(name)

    def missing_places(self, names: Iterable[str]) -> list[str]:
        """Which of ``names`` have no entry (a skill going there could not be executed)."""
        return [name for name in names if name not in self.places]

    def nearest(self, x: float, y: float, within_m: float) -> Place | None:
        """The place whose base pose is closest to (x, y), if it is within ``within_m`` metres."""
        best = min(self.places.values(), key=lambda p: math.hypot(p.base.x - x, p.base.y - y), default=None)
        if best is None or math.hypot(best.base.x - x, best.base.y - y) > within_m:
            return None
        return best


def load_place_map(path: str | Path | None = None, config: DomainConfig | None = None) -> PlaceMap:
    """The place map at ``path``; else the ``robot_map.yaml`` of ``config``'s domain folder, else the map its
    layout implies (module docstring); ``config`` None is the default domain. PlaceMapError lists the
    problems of a file."""
    if path is None:
        folder_map = Path(config.source).parent / MAP_FILE if config is not None else default_domain_file(MAP_FILE)
        if not folder_map.is_file() and config is not None:
            return place_map_of_layout(load_layout(config), config)
        path = folder_map
    fix = (
        "give the executor's map_file parameter a place map YAML (format: llm_planner_ros/robot_motion/place_map.py), "
        "or none: the domain's layout implies one"
    )
    source, data = read_config_yaml(path, MAP_FILE, "place map", fix)
    check = Checker()
    parsed = _parse(data, check)
    check.raise_if_any(str(source), PlaceMapError)
    assert parsed is not None
    return PlaceMap(parsed.frame, parsed.places, str(source))


def place_map_of_layout(layout: DomainLayout, config: DomainConfig) -> PlaceMap:
    """The place map ``layout`` implies for ``config``'s places (module docstring), without drawers."""
    frame = config.frame_id
    places: dict[str, Place] = {}
    for name, piece in layout.furniture.items():
        point = config.position(name)
        base = Pose(frame, piece.standing.x, piece.standing.y, 0.0, yaw_quaternion(piece.standing.yaw))
        surface: Pose | None = None
        area = Area()
        if piece.kind == "bin":
            surface = Pose(frame, point.x, point.y, piece.height + BIN_DROP_M)
        elif piece.kind not in (NO_FURNITURE, "drawers"):
            reach = max(0.0, min(piece.width / 2 - 0.1, layout.placement.max_offset))
            depth = layout.placement.row_pitch if piece.height < DEEP_TOP_BELOW_M else 0.0
            surface, area = Pose(frame, point.x, point.y, piece.height), Area(2 * reach, depth)
        places[name] = Place(name, base, surface, None, area)
    return PlaceMap(frame, places, f"the layout of {config.source}")


def _parse(data: Any, check: Checker) -> PlaceMap | None:
    top = check.mapping(data, "", required=("places",), optional=("frame_id",))
    if top is None:
        return None
    frame = check.string(top.get("frame_id", "map"), "frame_id")
    entries = check.named_entries(top["places"], "places", "place")
    if frame is None or entries is None:
        return None
    places = {name: _place(name, entry, frame, check) for name, entry in entries.items()}
    if any(place is None for place in places.values()):
        return None
    return PlaceMap(frame, places)  # type: ignore[arg-type]


def _place(name: str, value: Any, frame: str, check: Checker) -> Place | None:
    where = join("places", name)
    entry = check.mapping(value, where, required=("base",), optional=("surface", "drawer"))
    if entry is None:
        return None
    base = _numbers(entry["base"], join(where, "base"), ("x", "y", "yaw"), check)
    surface = _numbers(entry["surface"], join(where, "surface"), POINT, check, AREA) if "surface" in entry else {}
    drawer = _drawer(entry["drawer"], join(where, "drawer"), frame, check) if "drawer" in entry else None
    if base is None or surface is None or ("drawer" in entry and drawer is None):
        return None
    return Place(
        name,
        Pose(frame, base["x"], base["y"], 0.0, yaw_quaternion(base["yaw"])),
        Pose(frame, surface["x"], surface["y"], surface["z"]) if surface else None,
        drawer,
        _area(surface or {}, join(where, "surface"), check),
    )


def _drawer(value: Any, where: str, frame: str, check: Checker) -> Drawer | None:
    fields = check.mapping(value, where, required=("handle", "open_yaw", "travel", "interior"))
    if fields is None:
        return None
    handle = _numbers(fields["handle"], join(where, "handle"), POINT, check)
    interior = _numbers(fields["interior"], join(where, "interior"), POINT, check, AREA)
    open_yaw = check.number(fields["open_yaw"], join(where, "open_yaw"))
    travel = check.number(fields["travel"], join(where, "travel"))
    if travel is not None and travel <= 0.0:
        check.reject(travel, join(where, "travel"), "must be positive (how far the drawer slides, m)")
        travel = None
    if handle is None or interior is None or open_yaw is None or travel is None:
        return None
    return Drawer(
        Pose(frame, handle["x"], handle["y"], handle["z"]),
        open_yaw,
        travel,
        Pose(frame, interior["x"], interior["y"], interior["z"]),
        _area(interior, join(where, "interior"), check),
    )


def _area(numbers: dict[str, float], where: str, check: Checker) -> Area:
    """The put-down area of a surface's numbers (width and depth default to 0: the point alone)."""
    width, depth = numbers.get("width", 0.0), numbers.get("depth", 0.0)
    for key, value in (("width", width), ("depth", depth)):
        if value < 0.0:
            check.reject(value, join(where, key), "must be 0 or more (metres)")
    return Area(max(0.0, width), max(0.0, depth))


def _numbers(
    value: Any, where: str, keys: tuple[str, ...], check: Checker, optional: tuple[str, ...] = ()
) -> dict[str, float] | None:
    fields = check.mapping(value, where, required=keys, optional=optional)
    if fields is None:
        return None
    present = [*keys, *(key for key in optional if key in fields)]
    numbers = {key: check.number(fields[key], join(where, key)) for key in present}
    if any(number is None for number in numbers.values()):
        return None
    return numbers  # type: ignore[return-value]

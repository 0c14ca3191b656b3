"""The physical form of a domain: furniture at each place, the robot's standing poses, object models.

A place's point (world file) is where its objects stand; the robot works at it from ``standoff``
metres before it, facing it (the convention of the robot's place map, ``robot_motion.place_map``); a
piece of furniture may set its own (the kitchen's drawer cabinet: the robot stands back from the drawer
it pulls out).

Pure geometry from two files of a domain folder: the world file (``domain.DomainConfig``: places and
their 2-D points) and ``layout.yaml`` (what stands at each place, what each label looks like;
docs/domains.md). Every part of ``layout.yaml`` is optional, and the folder may have none: a place
without a furniture entry gets a table facing away from the middle of all places, a label without an
object model a box of its own colour with its name printed on it. So any domain can be simulated and
seen by the camera before anyone measures its furniture. No PyBullet here, so the geometry is testable
on its own.

Each piece of furniture has a local frame: origin at its centre on the floor, +x along ``facing``
(away from the robot standing at the place), +y along its width.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.config import DomainConfig
from llm_planner_ros.domain.validation import Checker, ValidationError, join, read_yaml
from llm_planner_ros.paths import repo_path

LAYOUT_FILE = "layout.yaml"
FURNITURE_KINDS = ("counter", "table", "bin", "drawers", "none")
NO_FURNITURE = "none"  # a place where nothing stands (a hallway): the robot stands on its point
SHAPES = ("cylinder", "box", "sphere")
STANDOFF_M = 0.6
DRAWER_TRAVEL_M = 0.3
# A place without a furniture entry: a table whose near edge lies 16 cm before the place's point (the
# first row of objects stands on the top, within the arm's top-down reach from the standing pose).
DEFAULT_FURNITURE: dict[str, Any] = {"kind": "table", "edge": -0.16, "size": [0.8, 0.6, 0.75]}
# A label without an object model: a box of a can's footprint, light enough for the gripper.
DEFAULT_OBJECT: dict[str, Any] = {"shape": "box", "size": [0.07, 0.07, 0.1], "mass": 0.2}
DEFAULT_PLACEMENT = {"spacing": 0.17, "min_spacing": 0.13, "max_offset": 0.26, "row_inset": 0.16, "row_pitch": 0.14}
# How close a standing pose may come to another place's furniture (the base's half-diagonal and a margin).
STANDING_CLEARANCE_M = 0.45


class LayoutError(ValidationError):
    """A domain's layout.yaml does not match its format, or its furniture leaves the robot no room."""


@dataclass(frozen=True)
class Pose2D:
    """A pose on the floor: position (metres, map frame) and heading (radians, 0 = +x)."""

    x: float
    y: float
    yaw: float

    def distance_to(self, other: Pose2D) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)


@dataclass(frozen=True)
class Furniture:
    """What stands at one place: kind, box extents, the robot's standing pose in front of it."""

    place: str
    kind: str
    center: tuple[float, float]
    yaw: float
    width: float
    depth: float
    height: float
    standing: Pose2D

    def to_map(self, local_x: float, local_y: float) -> tuple[float, float]:
        """A point of the furniture's local frame in the map frame."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return (self.center[0] + c * local_x - s * local_y, self.center[1] + s * local_x + c * local_y)

    def to_local(self, x: float, y: float) -> tuple[float, float]:
        dx, dy = x - self.center[0], y - self.center[1]
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return (c * dx + s * dy, -s * dx + c * dy)

    def covers(self, x: float, y: float, margin: float = 0.0) -> bool:
        """True when (x, y) lies over the furniture's footprint grown by ``margin``."""
        lx, ly = self.to_local(x, y)
        return abs(lx) <= self.depth / 2 + margin and abs(ly) <= self.width / 2 + margin


@dataclass(frozen=True)
class ObjectModel:
    """The body built for an object label: shape, extents (metres), mass, colour and printed text."""

    label: str
    shape: str
    extents: tuple[float, float, float]  # full size along x, y, z when standing upright / lying flat
    mass: float
    color: tuple[int, int, int]
    text: str

    @property
    def height(self) -> float:
        return self.extents[2]


@dataclass(frozen=True)
class Placement:
    """How objects of one place are set out in rows along the near edge (``DomainLayout.slots``)."""

    spacing: float
    min_spacing: float
    max_offset: float
    row_inset: float
    row_pitch: float


@dataclass(frozen=True)
class DomainLayout:
    """Furniture by place name, object models by label, the drawer's travel (metres), and the arm's named
    states (seven joint angles by name, as a MoveIt SRDF's group states: what a named-target goal reaches)."""

    furniture: Mapping[str, Furniture]
    models: Mapping[str, ObjectModel]
    drawer_travel: float
    placement: Placement
    named_states: Mapping[str, tuple[float, ...]]

    def slots(self, place: str, count: int) -> list[tuple[float, float]]:
        """``count`` local (x, y) spots on the furniture of ``place`` for objects, nearest row first.

        The first row leaves the place's point free: "put down" sets the held object there (the robot
        map's surface point), and an object standing on that spot made a put-down bottle stand on it
        and topple. Spots alternate right and left of the point, ``spacing`` apart, closing up to
        ``min_spacing`` so that a row holds more objects within ``max_offset`` of the point (beyond it
        the top-down hand is out of the arm's reach on one side); the rest go to the rows behind."""
        piece = self.furniture[place]
        if piece.kind in ("bin", NO_FURNITURE):
            return [(0.0, 0.0)] * count
        spec = self.placement
        # Objects reach up to 0.1 m from their centre: keep them on the top.
        reach = min(piece.width / 2 - 0.1, spec.max_offset)
        capacity = max(1, int(reach / spec.min_spacing + 1e-9))
        per_side = max(1, min(capacity, math.ceil(count / 2)))
        step = min(spec.spacing, reach / per_side)
        columns = [sign * k * step for k in range(1, per_side + 1) for sign in (1, -1)]
        spots = []
        for index in range(count):
            row, column = divmod(index, len(columns))
            local_x = -piece.depth / 2 + spec.row_inset + row * spec.row_pitch
            spots.append((local_x, columns[column]))
        return spots


def layout_file(config: DomainConfig) -> Path | None:
    """The ``layout.yaml`` beside ``config``'s world file, None where there is none (defaults apply)."""
    if not config.source:
        return None
    path = Path(config.source).parent / LAYOUT_FILE
    return path if path.is_file() else None


def load_layout(config: DomainConfig, path: str | Path | None = None, standing_room: bool = True) -> DomainLayout:
    """The layout of ``config``'s world from ``path``, else the ``layout.yaml`` of its domain folder, else
    defaults for every place and label (module docstring); LayoutError lists every problem. Without
    ``standing_room`` the robot's room to stand at each place is not checked: what a symbolic use needs
    (which places can hold an object) does not depend on it, and a domain that never runs in physics
    may have no layout that fits."""
    source = repo_path(path) if path else layout_file(config)
    data: Any = {}
    if source is not None:
        fix = f"give a layout file (docs/domains.md, {LAYOUT_FILE}) or none: every place and label has a default"
        _, data = read_yaml(source, LayoutError, fix)
    check = Checker()
    layout = _parse({} if data is None else data, config, check, standing_room)
    check.raise_if_any(str(source or f"{config.source} (default layout)"), LayoutError)
    assert layout is not None
    return layout


def _parse(data: Any, config: DomainConfig, check: Checker, standing_room: bool) -> DomainLayout | None:
    keys = ("standoff", "furniture", "objects", "drawer_travel", "placement", "named_states")
    top = check.mapping(data, "", optional=keys)
    if top is None:
        return None
    standoff = check.number(top.get("standoff", STANDOFF_M), "standoff")
    entries = _entries(top.get("furniture"), "furniture", "place", config.places(with_drawer=True), check)
    facing = _facing_away_from_middle(config)
    furniture: dict[str, Furniture] = {}
    for place in config.places(with_drawer=True):
        defaults = {**DEFAULT_FURNITURE, "facing_deg": facing[place]}
        piece = _furniture(place, entries.get(place, {}), defaults, config, standoff or 0.0, check)
        if piece is not None:
            furniture[place] = piece
    labels = _entries(top.get("objects"), "objects", "label", config.labels, check)
    models: dict[str, ObjectModel] = {}
    for label in config.labels:
        model = _model(label, labels.get(label, {}), check)
        if model is not None:
            models[label] = model
    travel = check.number(top.get("drawer_travel", DRAWER_TRAVEL_M), "drawer_travel")
    keys = tuple(DEFAULT_PLACEMENT)
    spec = check.mapping(top.get("placement", DEFAULT_PLACEMENT), "placement", optional=keys)
    placement = None
    if spec is not None:
        numbers = [check.number(spec.get(key, DEFAULT_PLACEMENT[key]), join("placement", key)) for key in keys]
        if None not in numbers:
            placement = Placement(*numbers)  # type: ignore[arg-type]
    named_states = _named_states(top["named_states"], check) if "named_states" in top else {}
    if check.problems or travel is None or placement is None or standoff is None:
        return None
    if standing_room:
        _check_standing_room(furniture, check)
    return DomainLayout(furniture, models, travel, placement, named_states)


def _entries(value: Any, field: str, what: str, known: tuple[str, ...], check: Checker) -> Mapping[str, Any]:
    """A section of named entries (absent: none); a name the world file does not have is a problem."""
    if value is None:
        return {}
    entries = check.named_entries(value, field, what) or {}
    for name in entries:
        if name not in known:
            check.add(join(field, name), f"unknown {what} {name!r}; the world file's: {', '.join(known)}")
    return entries


def _facing_away_from_middle(config: DomainConfig) -> dict[str, float]:
    """For each place, the direction (degrees) from the middle of all places to it: a default table there
    stands beyond its point, and the robot works at it from the room's inside."""
    places = config.places(with_drawer=True)
    points = [config.position(place) for place in places]
    middle_x, middle_y = sum(p.x for p in points) / len(points), sum(p.y for p in points) / len(points)
    facing = {}
    for place, point in zip(places, points, strict=True):
        dx, dy = point.x - middle_x, point.y - middle_y
        facing[place] = math.degrees(math.atan2(dy, dx)) if math.hypot(dx, dy) > 1e-6 else 0.0
    return facing


def _default_model(label: str) -> dict[str, Any]:
    """A box with the label's own colour (the same in every run) and its name printed on it."""
    hue = zlib.crc32(label.encode("utf-8"))
    color = [40 + (hue >> shift) % 200 for shift in (0, 8, 16)]
    return {**DEFAULT_OBJECT, "color": color, "text": label.upper()}


def _check_standing_room(furniture: Mapping[str, Furniture], check: Checker) -> None:
    """Each standing pose keeps clear of every other place's furniture: the robot could not stand there."""
    for place, piece in furniture.items():
        for other, blocking in furniture.items():
            if (
                other != place
                and blocking.kind != NO_FURNITURE
                and blocking.covers(piece.standing.x, piece.standing.y, STANDING_CLEARANCE_M)
            ):
                check.add(
                    join("furniture", place),
                    f"the robot's standing pose at {place!r} ({piece.standing.x:.2f}, {piece.standing.y:.2f}) "
                    f"lies within {STANDING_CLEARANCE_M} m of the furniture of {other!r}: move a place in the "
                    "world file, or give either a smaller size or another facing_deg in layout.yaml",
                )


def _named_states(value: Any, check: Checker) -> dict[str, tuple[float, ...]]:
    """The arm's named states: seven joint angles (rad) per name."""
    states: dict[str, tuple[float, ...]] = {}
    for name, angles in (check.named_entries(value, "named_states", "state") or {}).items():
        numbers = [check.number(a, join("named_states", name)) for a in angles] if isinstance(angles, list) else []
        if len(numbers) != 7 or None in numbers:
            check.add(join("named_states", name), f"give seven joint angles (rad), panda_joint1..7; got {angles!r}")
            continue
        states[name] = tuple(numbers)  # type: ignore[arg-type]
    return states


def _furniture(
    place: str, value: Any, defaults: Mapping[str, Any], config: DomainConfig, standoff: float, check: Checker
) -> Furniture | None:
    """The furniture of ``place``: its entry's keys, ``defaults`` for those it leaves out."""
    where = join("furniture", place)
    given = check.mapping(value, where, optional=("kind", "facing_deg", "edge", "size", "standoff"))
    if given is None:
        return None
    entry = {**defaults, **given}
    own = check.number(entry["standoff"], join(where, "standoff")) if "standoff" in entry else None
    standoff = standoff if own is None else own
    kind = check.one_of(entry["kind"], join(where, "kind"), FURNITURE_KINDS, "furniture kind")
    facing = check.number(entry["facing_deg"], join(where, "facing_deg"))
    edge = check.number(entry["edge"], join(where, "edge"))
    size = _triple(entry["size"], join(where, "size"), check)
    if kind is None or facing is None or edge is None or size is None:
        return None
    point = config.position(place)
    yaw = math.radians(facing)
    width, depth, height = size
    along = (math.cos(yaw), math.sin(yaw))
    if kind == NO_FURNITURE:
        return Furniture(place, kind, (point.x, point.y), yaw, 0.0, 0.0, 0.0, Pose2D(point.x, point.y, yaw))
    center = (point.x + (edge + depth / 2) * along[0], point.y + (edge + depth / 2) * along[1])
    standing = Pose2D(point.x - standoff * along[0], point.y - standoff * along[1], yaw)
    return Furniture(place, kind, center, yaw, width, depth, height, standing)


def _model(label: str, value: Any, check: Checker) -> ObjectModel | None:
    """The object model of ``label``: its entry's keys, the label's default model for those it leaves out."""
    where = join("objects", label)
    given = check.mapping(value, where, optional=("shape", "mass", "color", "text", "radius", "height", "size"))
    if given is None:
        return None
    entry = {**_default_model(label), **given}
    shape = check.one_of(entry["shape"], join(where, "shape"), SHAPES, "shape")
    mass = check.number(entry["mass"], join(where, "mass"))
    color = _triple(entry["color"], join(where, "color"), check)
    text = entry["text"] if isinstance(entry["text"], str) else check.string(entry["text"], join(where, "text"))
    extents: tuple[float, float, float] | None = None
    if shape == "box":
        extents = _triple(entry.get("size"), join(where, "size"), check)
    elif shape == "cylinder":
        radius, height = (
            check.number(entry.get("radius"), join(where, "radius")),
            check.number(entry.get("height"), join(where, "height")),
        )
        extents = None if radius is None or height is None else (2 * radius, 2 * radius, height)
    elif shape == "sphere":
        radius = check.number(entry.get("radius"), join(where, "radius"))
        extents = None if radius is None else (2 * radius,) * 3  # type: ignore[assignment]
    if shape is None or mass is None or color is None or text is None or extents is None:
        return None
    return ObjectModel(label, shape, extents, mass, (int(color[0]), int(color[1]), int(color[2])), text)


def _triple(value: Any, where: str, check: Checker) -> tuple[float, float, float] | None:
    items = check.list_of(value, where)
    if items is None:
        return None
    if len(items) != 3:
        check.add(where, f"needs 3 numbers, got {len(items)}")
        return None
    numbers = [check.number(item, join(where, index)) for index, item in enumerate(items)]
    if None in numbers:
        return None
    return (numbers[0], numbers[1], numbers[2])  # type: ignore[return-value]

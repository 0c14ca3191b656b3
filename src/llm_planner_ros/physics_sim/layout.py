"""The physical layout of a kitchen: furniture at each place, the robot's standing poses, object models.

A place's point (world file) is where its objects stand; the robot works at it from ``standoff``
metres before it, facing it (the convention of the robot's map, config/robot_map.yaml); a piece of
furniture may set its own (the drawer cabinet: the robot stands back from the drawer it pulls out).

Pure geometry from two files: the world file (``domain.DomainConfig``: places and their 2-D
points) and config/physics_kitchen.yaml (what stands at each place, what each label looks like). No
PyBullet here, so the geometry is testable on its own.

Each piece of furniture has a local frame: origin at its centre on the floor, +x along ``facing``
(away from the robot standing at the place), +y along its width.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.domain.config import DomainConfig
from llm_planner_ros.domain.validation import Checker, ValidationError, join
from llm_planner_ros.paths import resolve_config

LAYOUT_FILE = "physics_kitchen.yaml"
FURNITURE_KINDS = ("counter", "table", "bin", "drawers")
SHAPES = ("cylinder", "box", "sphere")


class LayoutError(ValidationError):
    """config/physics_kitchen.yaml does not match its format or does not cover the world's places/labels."""


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
    """How objects of one place are set out in rows along the near edge (``KitchenLayout.slots``)."""

    spacing: float
    min_spacing: float
    max_offset: float
    row_inset: float
    row_pitch: float


@dataclass(frozen=True)
class KitchenLayout:
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
        if piece.kind == "bin":
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


def load_layout(config: DomainConfig, path: str | Path | None = None) -> KitchenLayout:
    """The layout of ``config``'s world from config/physics_kitchen.yaml (or ``path``); LayoutError lists
    every problem, including places and labels of the world file the layout lacks."""
    source = resolve_config(path, LAYOUT_FILE)
    data = yaml.safe_load(source.read_text())
    check = Checker()
    layout = _parse(data, config, check)
    check.raise_if_any(str(source), LayoutError)
    assert layout is not None
    return layout


def _parse(data: Any, config: DomainConfig, check: Checker) -> KitchenLayout | None:
    top = check.mapping(
        data,
        "",
        required=("standoff", "furniture", "objects", "drawer_travel", "placement"),
        optional=("named_states",),
    )
    if top is None:
        return None
    standoff = check.number(top["standoff"], "standoff")
    furniture: dict[str, Furniture] = {}
    entries = check.named_entries(top["furniture"], "furniture", "place") or {}
    for place in config.places(with_drawer=True):
        if place not in entries:
            check.add(join("furniture", place), f"place {place!r} of {config.source} has no furniture entry")
            continue
        piece = _furniture(place, entries[place], config, standoff or 0.0, check)
        if piece is not None:
            furniture[place] = piece
    models: dict[str, ObjectModel] = {}
    labels = check.named_entries(top["objects"], "objects", "label") or {}
    for label in config.labels:
        if label not in labels:
            check.add(join("objects", label), f"label {label!r} of {config.source} has no object model")
            continue
        model = _model(label, labels[label], check)
        if model is not None:
            models[label] = model
    travel = check.number(top["drawer_travel"], "drawer_travel")
    keys = ("spacing", "min_spacing", "max_offset", "row_inset", "row_pitch")
    spec = check.mapping(top["placement"], "placement", required=keys)
    placement = None
    if spec is not None:
        numbers = [check.number(spec[key], join("placement", key)) for key in keys]
        if None not in numbers:
            placement = Placement(*numbers)  # type: ignore[arg-type]
    named_states = _named_states(top["named_states"], check) if "named_states" in top else {}
    if check.problems or travel is None or placement is None or standoff is None:
        return None
    return KitchenLayout(furniture, models, travel, placement, named_states)


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


def _furniture(place: str, value: Any, config: DomainConfig, standoff: float, check: Checker) -> Furniture | None:
    where = join("furniture", place)
    entry = check.mapping(value, where, required=("kind", "facing_deg", "edge", "size"), optional=("standoff",))
    if entry is None:
        return None
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
    center = (point.x + (edge + depth / 2) * along[0], point.y + (edge + depth / 2) * along[1])
    standing = Pose2D(point.x - standoff * along[0], point.y - standoff * along[1], yaw)
    return Furniture(place, kind, center, yaw, width, depth, height, standing)


def _model(label: str, value: Any, check: Checker) -> ObjectModel | None:
    where = join("objects", label)
    entry = check.mapping(
        value, where, required=("shape", "mass", "color", "text"), optional=("radius", "height", "size")
    )
    if entry is None:
        return None
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

"""Synthetic RGB-D kitchen scenes with ground truth, for tests, training the region encoder and the
perception benchmark when no physics renderer is at hand.

A scene is one support (a counter or the table, a box standing on the floor at a place of the world)
with objects on it, seen by a head camera from a random pose. Objects are procedural instances of the
kitchen's labels: cans, bottles, bags, boxes and a fruit, each class with its own colours and size,
each instance jittered in colour and size. ``split`` chooses the instance stream: ``train`` and
``eval`` draw from disjoint seeds, so evaluation objects are instances the encoder never saw.
Rendering is exact ray casting (numpy), Lambertian shading, depth and colour noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from llm_planner_ros.perception.geometry import Intrinsics, Transform, rotate


@dataclass(frozen=True)
class ObjectClass:
    """How a label looks: ``shape`` (can, bottle, bag, box, fruit), size in metres (width, depth, height;
    radius = width / 2 for round shapes), body and band colours (RGB in [0, 1]), band height range as
    fractions of the object's height."""

    shape: str
    size: tuple[float, float, float]
    body: tuple[float, float, float]
    band: tuple[float, float, float]
    band_range: tuple[float, float] = (0.35, 0.65)


CATALOGUE: Mapping[str, ObjectClass] = {
    "7up": ObjectClass("can", (0.066, 0.066, 0.122), (0.10, 0.55, 0.20), (0.95, 0.95, 0.95)),
    "apple": ObjectClass("fruit", (0.08, 0.08, 0.08), (0.80, 0.10, 0.10), (0.55, 0.75, 0.15), (0.80, 1.0)),
    "tea": ObjectClass("bottle", (0.07, 0.07, 0.20), (0.60, 0.35, 0.10), (0.95, 0.85, 0.30)),
    "multigrain chips": ObjectClass("bag", (0.15, 0.06, 0.20), (0.55, 0.40, 0.20), (0.95, 0.95, 0.80)),
    "kettle chips": ObjectClass("bag", (0.15, 0.06, 0.20), (0.95, 0.80, 0.10), (0.10, 0.10, 0.10)),
    "jalapeno chips": ObjectClass("bag", (0.15, 0.06, 0.20), (0.15, 0.45, 0.15), (0.85, 0.15, 0.10)),
    "rice chips": ObjectClass("bag", (0.15, 0.06, 0.20), (0.92, 0.92, 0.90), (0.95, 0.50, 0.10)),
    "coke": ObjectClass("can", (0.066, 0.066, 0.122), (0.85, 0.05, 0.05), (0.95, 0.95, 0.95)),
    "grapefruit soda": ObjectClass("can", (0.066, 0.066, 0.122), (0.95, 0.55, 0.55), (0.95, 0.70, 0.20)),
    "pepsi": ObjectClass("can", (0.066, 0.066, 0.122), (0.10, 0.20, 0.70), (0.85, 0.10, 0.10)),
    "redbull": ObjectClass("can", (0.053, 0.053, 0.135), (0.20, 0.30, 0.65), (0.75, 0.75, 0.80)),
    "energy bar": ObjectClass("box", (0.13, 0.04, 0.025), (0.90, 0.45, 0.10), (0.35, 0.20, 0.10)),
    "lime soda": ObjectClass("can", (0.066, 0.066, 0.122), (0.65, 0.90, 0.30), (0.95, 0.90, 0.20)),
    "sponge": ObjectClass("box", (0.10, 0.07, 0.04), (0.95, 0.85, 0.20), (0.10, 0.55, 0.20), (0.7, 1.0)),
    "water bottle": ObjectClass("bottle", (0.07, 0.07, 0.23), (0.70, 0.85, 0.95), (0.15, 0.35, 0.85)),
}

# One other name per label, never used in training: how the benchmark checks open-vocabulary labels. Each
# is nearer its own label than any other label in the sentence embedder's text space (a detector that
# labels through text embeddings cannot do better than its text side).
SYNONYMS: Mapping[str, str] = {
    "7up": "seven up",
    "apple": "apple fruit",
    "tea": "iced tea bottle",
    "multigrain chips": "multigrain crisps",
    "kettle chips": "kettle crisps",
    "jalapeno chips": "spicy jalapeno crisps",
    "rice chips": "rice crisps",
    "coke": "coca-cola",
    "grapefruit soda": "grapefruit soft drink",
    "pepsi": "pepsi cola",
    "redbull": "red bull energy drink",
    "energy bar": "protein bar",
    "lime soda": "lime soft drink",
    "sponge": "dish sponge",
    "water bottle": "bottle of water",
}

# Support surfaces: height of the top (m) by place name; places not listed have none.
SUPPORT_HEIGHT: Mapping[str, float] = {"close counter": 0.9, "far counter": 0.9, "table": 0.75}
SUPPORT_SIZE = (1.2, 0.7)
_SPLIT_SEED = {"train": 1_000_003, "eval": 7_000_013}


@dataclass(frozen=True)
class Instance:
    """One object instance: its label, shape, size (w, d, h) and colours."""

    label: str
    shape: str
    size: tuple[float, float, float]
    body: tuple[float, float, float]
    band: tuple[float, float, float]
    band_range: tuple[float, float]


@dataclass(frozen=True)
class PlacedObject:
    """An instance in a scene: ``centre`` of its bounding box in the map frame, ``yaw`` about z."""

    id: str
    instance: Instance
    centre: tuple[float, float, float]
    yaw: float

    @property
    def label(self) -> str:
        return self.instance.label


@dataclass(frozen=True)
class SceneSpec:
    """What a scene holds: the place whose support the objects stand on, the support's top height and
    centre, the objects, and the camera pose (camera to map)."""

    place: str
    support_centre: tuple[float, float]
    support_height: float
    objects: tuple[PlacedObject, ...]
    camera: Transform
    floor_colour: tuple[float, float, float]
    support_colour: tuple[float, float, float]


@dataclass(frozen=True)
class Frame:
    """A rendered scene: ``rgb`` (H, W, 3) uint8, ``depth`` (H, W) float32 metres (0: no return),
    ``segmentation`` (H, W) int32 (0: floor or support, k + 1: ``spec.objects[k]``)."""

    spec: SceneSpec
    intrinsics: Intrinsics
    rgb: np.ndarray
    depth: np.ndarray
    segmentation: np.ndarray


def sample_instance(label: str, rng: np.random.Generator) -> Instance:
    """An instance of ``label``: size within +-10 %, colours jittered per channel and in brightness."""
    kind = CATALOGUE[label]
    scale = rng.uniform(0.9, 1.1)
    size = tuple(float(s * scale * rng.uniform(0.96, 1.04)) for s in kind.size)
    if kind.shape in ("can", "bottle", "fruit"):
        size = (size[0], size[0], size[2])

    def jitter(colour: tuple[float, float, float]) -> tuple[float, float, float]:
        shifted = np.asarray(colour) * rng.uniform(0.8, 1.15) + rng.normal(0.0, 0.04, 3)
        return tuple(float(c) for c in np.clip(shifted, 0.0, 1.0))

    low, high = kind.band_range
    shift = rng.uniform(-0.08, 0.08)
    band_range = (float(np.clip(low + shift, 0.0, 1.0)), float(np.clip(high + shift, 0.0, 1.0)))
    return Instance(label, kind.shape, size, jitter(kind.body), jitter(kind.band), band_range)  # type: ignore[arg-type]


def random_scene(
    seed: int,
    split: str,
    labels: Sequence[str],
    places: Mapping[str, tuple[float, float]],
    max_objects: int = 6,
    min_objects: int = 1,
) -> SceneSpec:
    """A scene from ``seed``: a support at one of ``places`` (name -> x, y; only those with a support
    height), ``min_objects`` to ``max_objects`` objects of ``labels`` at least 3 cm apart, a head camera
    0.6-1.0 m away and 0.45-0.7 m above the top, looking at it. ``split`` (train/eval) picks the
    instance stream. Deterministic in (seed, split)."""
    if split not in _SPLIT_SEED:
        raise ValueError(f"split must be one of {sorted(_SPLIT_SEED)}, got {split!r}")
    rng = np.random.default_rng([_SPLIT_SEED[split], seed])
    candidates = sorted(name for name in places if name in SUPPORT_HEIGHT)
    if not candidates:
        raise ValueError(f"no place with a support among {sorted(places)}; known: {sorted(SUPPORT_HEIGHT)}")
    place = candidates[int(rng.integers(len(candidates)))]
    cx, cy = places[place]
    height = SUPPORT_HEIGHT[place] + float(rng.uniform(-0.03, 0.03))
    azimuth = float(rng.uniform(-np.pi, np.pi))
    objects: list[PlacedObject] = []
    counts: dict[str, int] = {}
    wanted = int(rng.integers(min_objects, max_objects + 1))
    # Objects stand in the half of the top nearer the camera, so none is hidden behind the top's edge.
    toward = np.array([np.cos(azimuth), np.sin(azimuth)])
    side = np.array([-toward[1], toward[0]])
    for _ in range(wanted * 20):
        if len(objects) == wanted:
            break
        instance = sample_instance(labels[int(rng.integers(len(labels)))], rng)
        offset = toward * rng.uniform(-0.22, 0.12) + side * rng.uniform(-0.30, 0.30)
        centre = (float(cx + offset[0]), float(cy + offset[1]), float(height + instance.size[2] / 2.0))
        radius = np.hypot(instance.size[0], instance.size[1]) / 2.0
        if any(_too_close(centre, radius, other) for other in objects):
            continue
        count = counts.get(instance.label, 0) + 1
        counts[instance.label] = count
        object_id = f"{instance.label.replace(' ', '_')}_{count}"
        objects.append(PlacedObject(object_id, instance, centre, float(rng.uniform(-np.pi, np.pi))))
    distance = float(rng.uniform(0.6, 1.0))
    eye = [cx + toward[0] * distance, cy + toward[1] * distance, height + float(rng.uniform(0.45, 0.7))]
    target = [cx + toward[0] * 0.05 + rng.normal(0, 0.05), cy + toward[1] * 0.05 + rng.normal(0, 0.05), height]
    floor = tuple(float(c) for c in rng.uniform(0.25, 0.45, 3))
    top = tuple(float(c) for c in rng.uniform(0.45, 0.75, 3))
    return SceneSpec(
        place,
        (cx, cy),
        height,
        tuple(objects),
        Transform.look_at(eye, target),
        floor,
        top,  # type: ignore[arg-type]
    )


def _too_close(centre: tuple[float, float, float], radius: float, other: PlacedObject) -> bool:
    other_radius = np.hypot(other.instance.size[0], other.instance.size[1]) / 2.0
    return bool(np.hypot(centre[0] - other.centre[0], centre[1] - other.centre[1]) < radius + other_radius + 0.03)


def render(spec: SceneSpec, intrinsics: Intrinsics, seed: int = 0) -> Frame:
    """Ray-cast ``spec`` through ``intrinsics``: colour, depth (camera z, metres) and instance ids."""
    rng = np.random.default_rng(seed)
    rays = intrinsics.rays().reshape(-1, 3).astype(np.float64)
    directions = rotate(rays, spec.camera.rotation)
    origin = spec.camera.translation
    count = directions.shape[0]
    best_t = np.full(count, np.inf)
    normal = np.zeros((count, 3))
    colour = np.zeros((count, 3))
    segment = np.zeros(count, dtype=np.int32)

    def keep(t: np.ndarray, normals: np.ndarray, colours: np.ndarray, index: int) -> None:
        closer = t < best_t
        best_t[closer] = t[closer]
        normal[closer] = normals[closer]
        colour[closer] = colours[closer]
        segment[closer] = index

    floor_t = np.where(
        directions[:, 2] < -1e-9, -origin[2] / np.where(directions[:, 2] == 0, 1, directions[:, 2]), np.inf
    )
    keep(floor_t, np.tile([0.0, 0.0, 1.0], (count, 1)), np.tile(spec.floor_colour, (count, 1)), 0)
    sx, sy = spec.support_centre
    support = (np.array([sx, sy, spec.support_height / 2.0]), (*SUPPORT_SIZE, spec.support_height), 0.0)
    t, normals, _ = _box_hit(origin, directions, *support)
    keep(t, normals, np.tile(spec.support_colour, (count, 1)), 0)
    for index, placed in enumerate(spec.objects, start=1):
        t, normals, fraction = _object_hit(origin, directions, placed)
        inst = placed.instance
        in_band = (fraction >= inst.band_range[0]) & (fraction <= inst.band_range[1])
        colours = np.where(in_band[:, None], np.asarray(inst.band), np.asarray(inst.body))
        keep(t, normals, colours, index)

    hit = np.isfinite(best_t)
    light = np.array([0.3, -0.2, 0.93])
    light /= np.linalg.norm(light)
    shade = 0.45 + 0.55 * np.clip(np.abs(np.einsum("ij,j->i", normal, light)), 0.0, 1.0)
    image = np.where(hit[:, None], colour * shade[:, None], 0.05)
    image = np.clip(image * 255.0 + rng.normal(0.0, 3.0, image.shape), 0, 255).astype(np.uint8)
    depth = np.where(hit, best_t, 0.0)
    depth = np.where(hit, depth + rng.normal(0.0, 1.0, count) * (0.001 + 0.001 * depth**2), 0.0)
    shape = (intrinsics.height, intrinsics.width)
    return Frame(
        spec,
        intrinsics,
        image.reshape(*shape, 3),
        depth.reshape(shape).astype(np.float32),
        np.where(hit, segment, 0).reshape(shape).astype(np.int32),
    )


def _to_local(origin: np.ndarray, directions: np.ndarray, centre: np.ndarray, yaw: float) -> tuple[np.ndarray, ...]:
    """Ray origin and directions in a frame at ``centre`` rotated by ``yaw`` about z."""
    c, s = np.cos(yaw), np.sin(yaw)
    inverse = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])
    return inverse @ (origin - centre), rotate(directions, inverse), inverse.T


def _box_hit(
    origin: np.ndarray, directions: np.ndarray, centre: np.ndarray, size: tuple[float, float, float], yaw: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entry distance (inf: miss), map-frame normal and height fraction of rays against a yawed box."""
    o, d, back = _to_local(origin, directions, centre, yaw)
    half = np.asarray(size) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (-half - o) / d
        t2 = (half - o) / d
    near = np.nan_to_num(np.minimum(t1, t2), nan=-np.inf)
    far = np.nan_to_num(np.maximum(t1, t2), nan=np.inf)
    t_near, t_far = near.max(axis=1), far.min(axis=1)
    hit = (t_near <= t_far) & (t_near > 0)
    axis = near.argmax(axis=1)
    local_normal = np.zeros_like(d)
    local_normal[np.arange(len(d)), axis] = -np.sign(d[np.arange(len(d)), axis])
    z = o[2] + t_near * d[:, 2]
    fraction = (z + half[2]) / size[2]
    return np.where(hit, t_near, np.inf), rotate(local_normal, back), fraction


def _object_hit(origin: np.ndarray, directions: np.ndarray, placed: PlacedObject) -> tuple[np.ndarray, ...]:
    inst = placed.instance
    centre = np.asarray(placed.centre)
    if inst.shape in ("bag", "box"):
        return _box_hit(origin, directions, centre, inst.size, placed.yaw)
    if inst.shape == "fruit":
        return _sphere_hit(origin, directions, centre, inst.size[0] / 2.0)
    return _cylinder_hit(origin, directions, centre, inst.size[0] / 2.0, inst.size[2])


def _sphere_hit(
    origin: np.ndarray, directions: np.ndarray, centre: np.ndarray, radius: float
) -> tuple[np.ndarray, ...]:
    o = origin - centre
    a = np.einsum("ij,ij->i", directions, directions)
    b = 2.0 * np.einsum("ij,j->i", directions, o)
    c = o @ o - radius**2
    disc = b * b - 4 * a * c
    root = np.sqrt(np.clip(disc, 0.0, None))
    t = (-b - root) / (2 * a)
    hit = (disc >= 0) & (t > 0)
    t = np.where(hit, t, np.inf)
    points = o + np.where(hit, t, 0.0)[:, None] * directions
    normals = points / radius
    fraction = (points[:, 2] + radius) / (2 * radius)
    return t, normals, fraction


def _cylinder_hit(
    origin: np.ndarray, directions: np.ndarray, centre: np.ndarray, radius: float, height: float
) -> tuple[np.ndarray, ...]:
    """A vertical cylinder with a top cap (the bottom stands on the support and is never seen)."""
    o = origin - centre
    d = directions
    a = d[:, 0] ** 2 + d[:, 1] ** 2
    b = 2.0 * (o[0] * d[:, 0] + o[1] * d[:, 1])
    c = o[0] ** 2 + o[1] ** 2 - radius**2
    disc = b * b - 4 * a * c
    with np.errstate(divide="ignore", invalid="ignore"):
        t_side = (-b - np.sqrt(np.clip(disc, 0.0, None))) / (2 * a)
        z_side = o[2] + t_side * d[:, 2]
        side = (disc >= 0) & (t_side > 0) & (np.abs(z_side) <= height / 2.0)
        t_cap = (height / 2.0 - o[2]) / d[:, 2]
        cap_xy = o[:2] + t_cap[:, None] * d[:, :2]
        cap = (t_cap > 0) & (np.einsum("ij,ij->i", cap_xy, cap_xy) <= radius**2)
    t = np.minimum(np.where(side, t_side, np.inf), np.where(cap, t_cap, np.inf))
    on_cap = cap & (~side | (t_cap < t_side))
    points = o + np.where(np.isfinite(t), t, 0.0)[:, None] * d
    normals = np.where(
        on_cap[:, None], [0.0, 0.0, 1.0], np.stack([points[:, 0], points[:, 1], np.zeros(len(d))], 1) / radius
    )
    fraction = np.where(on_cap, 1.0, (points[:, 2] + height / 2.0) / height)
    return t, normals, fraction

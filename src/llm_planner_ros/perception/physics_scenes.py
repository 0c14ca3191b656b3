"""Randomised scenes of a domain's physics simulation (``physics_sim``) with ground truth, for training the
region encoder and for the perception benchmark.

A scene puts one to six objects (labels drawn with repetition) at random positions and headings on one
top (a counter or table of the domain's layout: ``TOP_KINDS``), some cans and bottles lying on their side, and zero
to three clutter objects at other places; the physics settles them. The robot stands near the place's
standing pose (jittered position and heading) and its head camera looks at a jittered target; the frame
is rendered by ``physics_sim``'s camera and relit in the image (a gain per channel, a brightness
gradient, sensor noise) because the headless renderer's light is fixed.

Object instances: each ``split`` has its own instance sets, copies of the domain's object models with
sizes scaled by up to 10 % and colours shifted by up to 25 of 255 per channel (``TRAIN_INSTANCES`` sets
for ``train``, ``EVAL_INSTANCES`` other ones for ``eval``); a scene's set is chosen by its seed. The
splits also draw layouts from disjoint random streams, so evaluation scenes are never training scenes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pybullet as pb

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.scene import ObjectInstance, Scene
from llm_planner_ros.perception.detection import View
from llm_planner_ros.perception.geometry import Intrinsics, Transform
from llm_planner_ros.physics_sim import DomainLayout, PhysicsKitchen, Pose2D
from llm_planner_ros.physics_sim.camera import Frame, render

TOP_KINDS = ("counter", "table")  # furniture whose top objects stand on
SPLITS = {"train": 1, "eval": 2}
TRAIN_INSTANCES = 8
EVAL_INSTANCES = 4
SCENES_PER_INSTANCE_SET = 25  # consecutive seeds share a set: building a set's kitchen takes about a second
SETTLE_S = 0.4
MIN_GAP_M = 0.1


@dataclass(frozen=True)
class PhysicsScene:
    """One rendered scene: the view, the objects as (label, centre in the map frame), ``segmentation``
    (H, W) with k + 1 where object k is seen and 0 elsewhere, and the place the camera looks at."""

    view: View
    objects: list[tuple[str, np.ndarray]]
    segmentation: np.ndarray
    place: str


def instance_layout(layout: DomainLayout, split: str, index: int) -> DomainLayout:
    """``layout`` with every object model replaced by instance ``index`` of ``split`` (see the module)."""
    rng = np.random.default_rng((SPLITS[split], 7, index))
    models = {}
    for label, model in layout.models.items():
        scale = rng.uniform(0.9, 1.1)
        color = np.clip(np.asarray(model.color) + rng.integers(-25, 26, 3), 0, 255)
        models[label] = replace(
            model,
            extents=tuple(float(e * scale) for e in model.extents),  # type: ignore[arg-type]
            color=tuple(int(c) for c in color),  # type: ignore[arg-type]
        )
    return replace(layout, models=models)


class PhysicsSceneRenderer:
    """Renders the scenes of one split by seed, keeping the physics kitchen of the current instance set;
    ``instance_sets`` (default ``TRAIN_INSTANCES`` or ``EVAL_INSTANCES``) is how many sets the seeds cycle
    through. More training sets spread each label's colours and sizes over their whole range, so labels of
    like colour (a black phone, a black stapler) must be told apart by shape."""

    def __init__(self, kitchen: Domain, layout: DomainLayout, split: str, instance_sets: int | None = None) -> None:
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}: use one of {sorted(SPLITS)}")
        default = TRAIN_INSTANCES if split == "train" else EVAL_INSTANCES
        if instance_sets is not None and instance_sets < 1:
            raise ValueError(f"instance_sets is {instance_sets}: give 1 or more")
        self._sets = instance_sets or default
        self._kitchen = kitchen
        self._layout = layout
        self._split = split
        # Sorted: the same seed gives the same scene whatever order the layout lists its places in.
        self._tops = sorted(place for place, piece in layout.furniture.items() if piece.kind in TOP_KINDS)
        if not self._tops:
            raise ValueError(f"the layout of {kitchen.config.source} has no counter or table to set objects on")
        self._sim: PhysicsKitchen | None = None
        self._instance_set = -1

    def close(self) -> None:
        if self._sim is not None:
            self._sim.close()
            self._sim = None

    def _kitchen_of(self, seed: int, scene: Scene) -> PhysicsKitchen:
        wanted = (seed // SCENES_PER_INSTANCE_SET) % self._sets
        if self._sim is None or wanted != self._instance_set:
            self.close()
            layout = instance_layout(self._layout, self._split, wanted)
            self._sim = PhysicsKitchen(self._kitchen, layout, scene)
            self._instance_set = wanted
        else:
            self._sim.load(scene)
        return self._sim

    def scene(self, seed: int) -> PhysicsScene:
        """The scene of ``seed`` in this split (the same seed always gives the same scene)."""
        rng = np.random.default_rng((SPLITS[self._split], seed))
        labels = list(self._kitchen.config.labels)
        place = str(rng.choice(self._tops))
        others = [p for p in self._kitchen.config.locations if p != place]
        at = [place] * int(rng.integers(1, 7)) + [str(rng.choice(others)) for _ in range(int(rng.integers(0, 4)))]
        objects = tuple(
            ObjectInstance(f"{label.replace(' ', '_')}_{index}", label, where)
            for index, (label, where) in enumerate(zip(rng.choice(labels, len(at)), at, strict=True))
        )
        sim = self._kitchen_of(seed, Scene(robot_at=place, objects=objects))
        self._scatter(sim, [obj for obj in objects if obj.at == place], place, rng)
        eye, target = self._camera(sim, place, rng)
        frame = render(sim.client, sim.cameras["head"], eye, target)
        truth = list(sim.truth().objects)
        index_of = {sim.built.objects[o.id]: k + 1 for k, o in enumerate(truth)}
        segmentation = np.vectorize(lambda body: index_of.get(int(body), 0), otypes=[np.int32])(frame.segmentation)
        view = frame_view(frame, relight(frame.rgb, rng))
        return PhysicsScene(view, [(o.label, np.asarray(o.position)) for o in truth], segmentation, place)

    def _scatter(
        self, sim: PhysicsKitchen, objects: list[ObjectInstance], place: str, rng: np.random.Generator
    ) -> None:
        """Random positions and headings on the top (some cans and bottles lying down), then let them settle."""
        piece = sim.layout.furniture[place]
        spots: list[tuple[float, float]] = []
        for obj in objects:
            model = sim.layout.models[obj.label]
            for _ in range(30):
                local = (
                    rng.uniform(-piece.depth / 2 + 0.08, piece.depth / 2 - 0.08),
                    rng.uniform(-piece.width / 2 + 0.08, piece.width / 2 - 0.08),
                )
                if all(math.dist(local, other) >= MIN_GAP_M for other in spots):
                    break
            spots.append(local)
            x, y = piece.to_map(*local)
            yaw = rng.uniform(-math.pi, math.pi)
            lying = model.shape == "cylinder" and rng.random() < 0.15
            half = model.extents[0] / 2 if lying else model.height / 2
            orientation = pb.getQuaternionFromEuler((math.pi / 2 if lying else 0.0, 0.0, yaw))
            pb.resetBasePositionAndOrientation(
                sim.built.objects[obj.id], (x, y, piece.height + half + 0.003), orientation, physicsClientId=sim.client
            )
        for _ in range(int(SETTLE_S / sim.time_step)):
            pb.stepSimulation(physicsClientId=sim.client)

    @staticmethod
    def _camera(
        sim: PhysicsKitchen, place: str, rng: np.random.Generator
    ) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """The head camera of the robot standing near ``place``, aimed at a jittered target."""
        standing = sim.layout.furniture[place].standing
        back, side = rng.uniform(-0.1, 0.15), rng.uniform(-0.25, 0.25)
        c, s = math.cos(standing.yaw), math.sin(standing.yaw)
        sim.robot.set_base_pose(
            Pose2D(
                standing.x - c * back - s * side,
                standing.y - s * back + c * side,
                standing.yaw + rng.uniform(-0.3, 0.3),
            )
        )
        eye, target = sim.robot.head_camera_pose()
        aim = np.asarray(target) + rng.uniform((-0.1, -0.1, -0.08), (0.1, 0.1, 0.08))
        return eye, (float(aim[0]), float(aim[1]), float(aim[2]))


def frame_view(frame: Frame, rgb: np.ndarray | None = None) -> View:
    """A physics render as the perception pipeline's input, as perception assembles it from the
    simulator's image, depth, camera info and camera pose topics (``rgb``: another image in place of the
    frame's own, e.g. relit)."""
    camera = Intrinsics.from_k(frame.spec.intrinsics(), frame.spec.width, frame.spec.height)
    return View(frame.rgb if rgb is None else rgb, frame.depth, camera, Transform.look_at(frame.eye, frame.target))


def relight(rgb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``rgb`` under other light: overall and per-channel gains, a linear brightness gradient, noise."""
    height, width = rgb.shape[:2]
    gain = rng.uniform(0.65, 1.25) * rng.uniform(0.9, 1.1, 3)
    direction = rng.uniform(-1.0, 1.0, 2)
    ys, xs = np.mgrid[0:height, 0:width]
    gradient = 1.0 + 0.15 * (direction[0] * (xs / width - 0.5) + direction[1] * (ys / height - 0.5))
    noisy = rgb.astype(np.float32) * gain * gradient[..., None] + rng.normal(0.0, 2.0, rgb.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)

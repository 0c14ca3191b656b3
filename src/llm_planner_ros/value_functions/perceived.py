"""Rollouts observed as the physics graph observes: through the head camera and the perception pipeline.

The collector's default observation is the simulator's state with noise added, and its scripted pick
grasps the object where the simulator has it. On the physics graph the robot sees the scene through
perception (a rendered head-camera frame, the embedded detector, lifting to 3D) and the ``moveit``
executor backend grasps where perception put the object: a pick there fails when the perceived centre
is a few centimetres off, which no noise model of the collector reproduces. ``HeadCameraPerception``
gives a rollout what perception would report of one frame; ``perceived_pick`` runs the motions the
executor plans from that report (``llm_planner_ros.robot_motion.pick``) on the physics kitchen; ``crop_png`` is the
camera crop around the picked object's detection, kept with the rollout for image-based models.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import cv2
import numpy as np

from llm_planner_ros.perception.backends import BackendOptions, make_detector
from llm_planner_ros.perception.detection import Detector
from llm_planner_ros.perception.physics_scenes import frame_view
from llm_planner_ros.perception.pipeline import PerceptionConfig, ScenePerception
from llm_planner_ros.perception.places import DEFAULT_PLACE_RADIUS_M, PlaceAssigner
from llm_planner_ros.physics_sim import PhysicsKitchen
from llm_planner_ros.physics_sim.scripted import ScriptedSkills, SkillRun
from llm_planner_ros.robot_motion import scene_objects
from llm_planner_ros.robot_motion.geometry import Pose
from llm_planner_ros.robot_motion.navigation import MotionError
from llm_planner_ros.robot_motion.pick import plan_pick
from llm_planner_ros.value_functions.observation import PerceivedObject

CROP_PX = 32
CROP_MARGIN = 0.2  # of the box's size on each side: the crop shows what stands around the object


@dataclass(frozen=True)
class SeenObject:
    """One object perception reports: as the value functions read it, its track id, and its detection box
    (x0, y0, x1, y1) in the frame."""

    id: str
    perceived: PerceivedObject
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class Seen:
    """What one head-camera frame gave: the objects reported and the frame's colour image."""

    objects: tuple[SeenObject, ...]
    rgb: np.ndarray
    frame_id: str

    def scene(self) -> list[scene_objects.PerceivedObject]:
        """The objects as the executor reads ``/scene/objects`` (id, label, location, pose, height, footprint)."""
        return [
            scene_objects.PerceivedObject(
                o.id,
                o.perceived.label,
                o.perceived.location,
                Pose(self.frame_id, *o.perceived.position),
                o.perceived.size[2],
                (o.perceived.size[0], o.perceived.size[1]),
            )
            for o in self.objects
        ]

    def crop_png(self, object_id: str) -> str:
        """The ``CROP_PX`` square crop (RGB, PNG, base64) around the detection of ``object_id`` ("" when its
        box lies outside the frame)."""
        x0, y0, x1, y1 = next(o.box for o in self.objects if o.id == object_id)
        height, width = self.rgb.shape[:2]
        mx, my = int((x1 - x0) * CROP_MARGIN), int((y1 - y0) * CROP_MARGIN)
        x0, y0, x1, y1 = max(0, x0 - mx), max(0, y0 - my), min(width, x1 + mx), min(height, y1 + my)
        if x1 <= x0 or y1 <= y0:
            return ""  # a box outside the frame: nothing to crop
        crop = cv2.resize(
            np.ascontiguousarray(self.rgb[y0:y1, x0:x1]), (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA
        )
        ok, png = cv2.imencode(".png", cv2.cvtColor(crop, cv2.COLOR_RGB2BGR))
        assert ok  # a small uint8 image always encodes
        return base64.b64encode(png.tobytes()).decode("ascii")


class HeadCameraPerception:
    """Renders the robot's head camera in a physics kitchen and runs perception's pipeline on the frame
    (its detector, lifting and place assignment), from a fresh scene each look: one frame, no memory."""

    def __init__(self, sim: PhysicsKitchen, detector: Detector | None = None) -> None:
        world = sim.kitchen.config
        self.sim = sim
        self._frame_id = world.frame_id
        self._queries = list(world.labels)
        self._perception = ScenePerception(
            detector or make_detector("embedded", BackendOptions()),
            PlaceAssigner.of_world(world, DEFAULT_PLACE_RADIUS_M),
            PerceptionConfig(),
        )

    def look(self) -> Seen:
        frame = self.sim.render("head")
        self._perception.clear()
        result = self._perception.process(frame_view(frame), self._queries, 0.0)
        objects = []
        for track in result.tracks:
            # One frame on an empty tracker: each track is one lifted detection (the nearest centre).
            lifted = min(result.lifted, key=lambda item: float(np.linalg.norm(item.centre - track.centre)))
            perceived = PerceivedObject(
                track.label,
                (float(track.centre[0]), float(track.centre[1]), float(track.centre[2])),
                (float(track.extent[0]), float(track.extent[1]), float(track.extent[2])),
                track.place,
                float(track.confidence),
            )
            objects.append(SeenObject(track.id, perceived, lifted.detection.box))
        return Seen(tuple(objects), frame.rgb, self._frame_id)


def perceived_pick(skills: ScriptedSkills, seen: Seen, label: str, place: str | None) -> tuple[SkillRun, str]:
    """Pick a ``label`` object as the executor would from what ``seen`` reports, the robot at ``place``:
    the run (success: the gripper ends holding a ``label`` object) and the crop of the object aimed at
    ("" when perception reported none: the run failed as the executor's plan does)."""
    try:
        plan = plan_pick(label, seen.scene(), place, skills.places, skills.arm)
    except MotionError as error:
        return SkillRun(False, str(error)), ""
    run = skills.follow(f"pick up the {label}", plan.motions)
    held = skills.sim.holding()
    if run.success and (held is None or skills.sim.built.labels[held] != label):
        run = SkillRun(False, f"pick up the {label}: the gripper holds {held or 'nothing'}", run.primitives)
    return run, seen.crop_png(plan.target.id)

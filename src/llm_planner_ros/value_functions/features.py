"""Feature vectors of (observation, skill) per skill family, for the value-function MLPs.

Only what a robot has goes in: perceived objects (label, noisy centre and axis-aligned size, semantic
location, confidence), its own position and place, the held label, and its maps (the place points of
the world file; the robot map's base pose at each place, ``llm_planner_ros.robot_motion.place_map``). A pick's target
object is the one the executor will grasp (``pick_target``, the rule of
``llm_planner_ros.robot_motion.scene_objects.object_to_pick``): the first reported instance of the label at the robot's
place, else the first reported; objects perceived at no place (the floor: fallen objects, boxes in the
way) count as obstacles for go-to.

Pick and place geometry is expressed in the *work frame* of the robot's place: origin at the base pose
the robot map gives for that place, x forward along its heading, y to the left. The robot works at a
place with that heading (it navigates to the base pose; only its position drifts), so the target's
forward and lateral offsets in this frame are what the arm's reach depends on, and the robot's own
offset from the base pose says how far its drift moved the arm away. ``FEATURE_VERSION`` changes
whenever a vector's meaning changes, so old weight files are refused.

The drawer skills (open, close, put the X in the drawer) share one model: its argument is ``open``,
``close`` or the label put in (``skill_argument``), and its geometry is the robot's offset in the work
frame of the drawer's place, where the handle and the interior are at the edge of the folded arm's reach.
What lies in the drawer is not in the vector: a head camera does not see into it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from llm_planner_ros.affordance.model import AffordanceError
from llm_planner_ros.domain.config import DomainConfig
from llm_planner_ros.domain.skill import DRAWER, GOTO, PICK, PLACE, Skill
from llm_planner_ros.robot_motion.drawer import CLOSE, OPEN
from llm_planner_ros.robot_motion.place_map import PlaceMap, load_place_map
from llm_planner_ros.value_functions.observation import Observation, PerceivedObject

FEATURE_VERSION = 3
LEARNED_FAMILIES = (PICK, PLACE, GOTO, DRAWER)
DRAWER_ACTIONS = (OPEN, CLOSE, "put")
UNSEEN_DISTANCE_M = 5.0  # stands in for distances to what is not perceived
# The robot's offset from the base pose of its place, in that place's work frame (module docstring).
WORK_FRAME_NAMES = ("robot_forward_offset", "robot_side_offset")


class FeatureError(AffordanceError):
    """A skill the features cannot describe (family without a value function, missing argument, unknown place)."""


def skill_argument(skill: Skill) -> str:
    """What a value function reads of a skill besides its family: its object or place; for the drawer,
    ``open``, ``close`` or the label put in. FeatureError when the skill has none of these."""
    if skill.family == DRAWER and not skill.arguments and skill.text.split()[:1] in ([OPEN], [CLOSE]):
        return skill.text.split()[0]
    if len(skill.arguments) != 1:
        raise FeatureError(
            f"skill {skill.text!r} (family {skill.family}) needs one argument, got {list(skill.arguments)}"
        )
    return str(skill.argument)


class Featurizer:
    """Turns (observation, family, argument) into a fixed-length vector; ``names(family)`` lists its entries."""

    def __init__(self, config: DomainConfig, place_map: PlaceMap | None = None) -> None:
        self.config = config
        self.labels = config.labels
        self.places = config.places(config.drawer is not None)
        place_map = place_map or load_place_map(None, config)
        self.place_map = place_map
        missing = place_map.missing_places(self.places)
        if missing:
            raise FeatureError(
                f"the robot map {place_map.source} has no base pose for {missing}: add them "
                "(llm_planner_ros/robot_motion/place_map.py)"
            )
        self._work_frames = {p: _work_frame(place_map, p) for p in self.places}
        self._drawer_place = config.drawer.location if config.drawer is not None else None

    def names(self, family: str) -> list[str]:
        place_hot = [f"robot_at={p}" for p in self.places]
        if family == PICK:
            return [
                "seen", "distance", "dx", "dy", "forward", "lateral", "z", "size_x", "size_y", "size_z", "flatness",
                "confidence", "on_robot_place", "on_no_place", "into_furniture", "holding", "nearest_other",
                "others_10cm", "others_20cm", *WORK_FRAME_NAMES, "target_depth", "target_side",
                "top_z", "others_7cm", *(f"label={label}" for label in self.labels),
                *place_hot,
            ]  # fmt: skip
        if family == PLACE:
            return [
                "holding", "holds_argument", "distance_to_place", "objects_at_place", "objects_near_point",
                *WORK_FRAME_NAMES, "nearest_to_point", "objects_near_point_10cm",
                *(f"label={label}" for label in self.labels), *place_hot,
            ]  # fmt: skip
        if family == GOTO:
            return [
                "distance", "obstacles", "path_clearance", "goal_clearance", "obstacle_area", "holding",
                *(f"target={p}" for p in self.places), *place_hot,
            ]  # fmt: skip
        if family == DRAWER:
            return [
                *(f"action={a}" for a in DRAWER_ACTIONS), "at_drawer", "distance_to_base", *WORK_FRAME_NAMES,
                "drawer_state_known", "drawer_open", "holding", "holds_argument",
                *(f"label={label}" for label in self.labels), *place_hot,
            ]  # fmt: skip
        raise FeatureError(f"no value function for family {family!r}; learned families: {list(LEARNED_FAMILIES)}")

    def vector(self, observation: Observation, family: str, argument: str) -> np.ndarray:
        if not argument:
            raise FeatureError(f"a {family} skill needs an argument")
        if family == PICK:
            values = self._pick(observation, argument)
        elif family == PLACE:
            values = self._place(observation, argument)
        elif family == GOTO:
            values = self._goto(observation, argument)
        elif family == DRAWER:
            values = self._drawer(observation, argument)
        else:
            self.names(family)  # raises with the list of learned families
            values = []
        return np.asarray(values, dtype=np.float32)

    def matrix(self, rows: Sequence[tuple[Observation, str]], family: str) -> np.ndarray:
        """One row per (observation, argument), all of ``family``."""
        if not rows:
            return np.zeros((0, len(self.names(family))), dtype=np.float32)
        return np.stack([self.vector(observation, family, argument) for observation, argument in rows])

    # ----- families -----------------------------------------------------------------------------------------
    def _pick(self, obs: Observation, label: str) -> list[float]:
        rx, ry = obs.robot_xy
        frame = self._work_frame(obs.robot_at)
        target = pick_target(obs.objects, label, obs.robot_at)
        holding = float(obs.holding_label is not None)
        robot_offset = list(frame.local(rx, ry))
        tail = [*self._one_hot(label, self.labels), *self._one_hot(obs.robot_at, self.places)]
        if target is None:
            u = UNSEEN_DISTANCE_M
            unseen = [0.0, u, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, u, holding, u, 0.0, 0.0]
            return [*unseen, *robot_offset, u, 0.0, 0.0, 0.0, *tail]
        x, y, z = target.position
        sx, sy, sz = target.size
        others = [math.hypot(o.position[0] - x, o.position[1] - y) for o in obs.objects if o is not target]
        place = self._place_xy(obs.robot_at)
        forward, lateral = frame.rotate(x - rx, y - ry)
        depth, side = frame.rotate(x - place[0], y - place[1])
        return [
            1.0,
            math.hypot(x - rx, y - ry),
            x - rx,
            y - ry,
            forward,
            lateral,
            z,
            sx,
            sy,
            sz,
            sz / max(sx, sy, 1e-3),  # low for a can on its side
            target.confidence,
            float(target.location == obs.robot_at),
            float(target.location == ""),
            math.hypot(x - place[0], y - place[1]),
            holding,
            min(others, default=UNSEEN_DISTANCE_M),
            float(sum(d < 0.1 for d in others)),
            float(sum(d < 0.2 for d in others)),
            *robot_offset,
            depth,
            side,
            z + sz / 2,  # the top, which the top-down grasp closes just below
            float(sum(d < 0.07 for d in others)),
            *tail,
        ]

    def _place(self, obs: Observation, label: str) -> list[float]:
        px, py = self._place_xy(obs.robot_at)
        here = [o for o in obs.objects if o.location == obs.robot_at]
        to_point = [math.hypot(o.position[0] - px, o.position[1] - py) for o in here]
        return [
            float(obs.holding_label is not None),
            float(obs.holding_label == label),
            math.hypot(obs.robot_xy[0] - px, obs.robot_xy[1] - py),
            float(len(here)),
            float(sum(d < 0.3 for d in to_point)),
            *self._work_frame(obs.robot_at).local(*obs.robot_xy),
            min(to_point, default=UNSEEN_DISTANCE_M),
            float(sum(d < 0.1 for d in to_point)),
            *self._one_hot(label, self.labels),
            *self._one_hot(obs.robot_at, self.places),
        ]

    def _goto(self, obs: Observation, place: str) -> list[float]:
        start = obs.robot_xy
        goal = self._place_xy(place)
        obstacles = [o for o in obs.objects if o.location == ""]
        return [
            math.hypot(goal[0] - start[0], goal[1] - start[1]),
            float(len(obstacles)),
            min((_segment_clearance(o, start, goal) for o in obstacles), default=UNSEEN_DISTANCE_M),
            min((_box_distance(o, goal) for o in obstacles), default=UNSEEN_DISTANCE_M),
            sum(o.size[0] * o.size[1] for o in obstacles),
            float(obs.holding_label is not None),
            *self._one_hot(place, self.places),
            *self._one_hot(obs.robot_at, self.places),
        ]

    def _drawer(self, obs: Observation, argument: str) -> list[float]:
        if self._drawer_place is None:
            raise FeatureError("the kitchen has no drawer: drawer skills have no value function")
        action = argument if argument in (OPEN, CLOSE) else "put"
        frame = self._work_frame(self._drawer_place)
        forward, side = frame.local(*obs.robot_xy)
        return [
            *self._one_hot(action, DRAWER_ACTIONS),
            float(obs.robot_at == self._drawer_place),
            math.hypot(forward, side),
            forward,
            side,
            float(obs.drawer_open is not None),
            float(bool(obs.drawer_open)),
            float(obs.holding_label is not None),
            float(action == "put" and obs.holding_label == argument),
            *self._one_hot(argument if action == "put" else "", self.labels),
            *self._one_hot(obs.robot_at, self.places),
        ]

    def _place_xy(self, place: str) -> tuple[float, float]:
        if place not in self.places:
            raise FeatureError(f"unknown place {place!r}; the map has {list(self.places)}")
        position = self.config.position(place)
        return (position.x, position.y)

    def _work_frame(self, place: str) -> WorkFrame:
        if place not in self._work_frames:
            raise FeatureError(f"unknown place {place!r}; the map has {list(self.places)}")
        return self._work_frames[place]

    @staticmethod
    def _one_hot(value: str, choices: Sequence[str]) -> list[float]:
        return [float(value == choice) for choice in choices]


@dataclass(frozen=True)
class WorkFrame:
    """A place's work frame: the robot map's base pose there (origin, heading ``yaw``)."""

    x: float
    y: float
    yaw: float

    def rotate(self, dx: float, dy: float) -> tuple[float, float]:
        """A map-frame offset as (forward, left) along the frame's heading."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return (c * dx + s * dy, -s * dx + c * dy)

    def local(self, x: float, y: float) -> tuple[float, float]:
        """A map point in the frame: forward of and left of the base pose."""
        return self.rotate(x - self.x, y - self.y)


def _work_frame(place_map: PlaceMap, name: str) -> WorkFrame:
    place = place_map.place(name)
    assert place is not None  # the constructor checked missing_places
    qx, qy, qz, qw = place.base.orientation
    return WorkFrame(place.base.x, place.base.y, math.atan2(2 * (qw * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz)))


def pick_target(objects: Sequence[PerceivedObject], label: str, robot_at: str) -> PerceivedObject | None:
    """The ``label`` object a pick grasps, as the executor chooses it (``object_to_pick``): the first
    reported at the robot's place, else the first reported; None when none is reported. With two cokes
    at the counter, the features must describe the one the hand goes to, not the nearer one (features
    version 2 took the nearest: 829 of the 6,000 picks observed through the camera described another
    instance than the one grasped)."""
    candidates = [o for o in objects if o.label == label]
    here = [o for o in candidates if o.location == robot_at]
    return (here or candidates or [None])[0]


def _box_distance(box: PerceivedObject, point: tuple[float, float]) -> float:
    """Distance from a point to a perceived object's footprint (0 inside)."""
    dx = max(abs(point[0] - box.position[0]) - box.size[0] / 2, 0.0)
    dy = max(abs(point[1] - box.position[1]) - box.size[1] / 2, 0.0)
    return math.hypot(dx, dy)


def _segment_clearance(
    box: PerceivedObject, a: tuple[float, float], b: tuple[float, float], samples: int = 40
) -> float:
    """Smallest distance from the straight way a-b to the object's footprint (sampled)."""
    return min(
        _box_distance(box, (a[0] + t / samples * (b[0] - a[0]), a[1] + t / samples * (b[1] - a[1])))
        for t in range(samples + 1)
    )

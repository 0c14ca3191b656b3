"""Feature vectors of (observation, skill) per skill family, for the value-function MLPs.

Only what a robot has goes in: perceived objects (label, noisy centre and axis-aligned size, semantic
location, confidence), its own position and place, the held label, and its map (the place points of
the world file). A skill's target object is the perceived instance of its label nearest the robot;
objects perceived at no place (the floor: fallen objects, boxes in the way) count as obstacles for
go-to. ``FEATURE_VERSION`` changes whenever a vector's meaning changes, so old weight files are refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from kitchen_domain.config import KitchenConfig
from kitchen_domain.skill import GOTO, PICK, PLACE
from llm_planner_ros.affordance.model import AffordanceError
from value_functions.observation import Observation, PerceivedObject

FEATURE_VERSION = 1
LEARNED_FAMILIES = (PICK, PLACE, GOTO)
UNSEEN_DISTANCE_M = 5.0  # stands in for distances to what is not perceived


class FeatureError(AffordanceError):
    """A skill the features cannot describe (family without a value function, missing argument, unknown place)."""


class Featurizer:
    """Turns (observation, family, argument) into a fixed-length vector; ``names(family)`` lists its entries."""

    def __init__(self, config: KitchenConfig) -> None:
        self.config = config
        self.labels = config.labels
        self.places = config.places(config.drawer is not None)

    def names(self, family: str) -> list[str]:
        place_hot = [f"robot_at={p}" for p in self.places]
        if family == PICK:
            return [
                "seen", "distance", "dx", "dy", "forward", "lateral", "z", "size_x", "size_y", "size_z", "flatness",
                "confidence",
                "on_robot_place", "on_no_place", "into_furniture", "holding", "nearest_other", "others_10cm",
                "others_20cm", *(f"label={label}" for label in self.labels), *place_hot,
            ]  # fmt: skip
        if family == PLACE:
            return [
                "holding", "holds_argument", "distance_to_place", "objects_at_place", "objects_near_point",
                *(f"label={label}" for label in self.labels), *place_hot,
            ]  # fmt: skip
        if family == GOTO:
            return [
                "distance", "obstacles", "path_clearance", "goal_clearance", "obstacle_area", "holding",
                *(f"target={p}" for p in self.places), *place_hot,
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
        target = _nearest(obs.objects, label, rx, ry)
        holding = float(obs.holding_label is not None)
        tail = [*self._one_hot(label, self.labels), *self._one_hot(obs.robot_at, self.places)]
        if target is None:
            u = UNSEEN_DISTANCE_M
            return [0.0, u, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, u, holding, u, 0.0, 0.0, *tail]
        x, y, z = target.position
        sx, sy, sz = target.size
        others = [math.hypot(o.position[0] - x, o.position[1] - y) for o in obs.objects if o is not target]
        place = self._place_xy(obs.robot_at)
        # The robot works facing its place: the target in that frame stands in for its heading.
        heading = math.atan2(place[1] - ry, place[0] - rx)
        c, s = math.cos(heading), math.sin(heading)
        return [
            1.0,
            math.hypot(x - rx, y - ry),
            x - rx,
            y - ry,
            c * (x - rx) + s * (y - ry),
            -s * (x - rx) + c * (y - ry),
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
            *tail,
        ]

    def _place(self, obs: Observation, label: str) -> list[float]:
        px, py = self._place_xy(obs.robot_at)
        here = [o for o in obs.objects if o.location == obs.robot_at]
        near = [o for o in here if math.hypot(o.position[0] - px, o.position[1] - py) < 0.3]
        return [
            float(obs.holding_label is not None),
            float(obs.holding_label == label),
            math.hypot(obs.robot_xy[0] - px, obs.robot_xy[1] - py),
            float(len(here)),
            float(len(near)),
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

    def _place_xy(self, place: str) -> tuple[float, float]:
        if place not in self.places:
            raise FeatureError(f"unknown place {place!r}; the map has {list(self.places)}")
        position = self.config.position(place)
        return (position.x, position.y)

    @staticmethod
    def _one_hot(value: str, choices: Sequence[str]) -> list[float]:
        return [float(value == choice) for choice in choices]


def _nearest(objects: Sequence[PerceivedObject], label: str, x: float, y: float) -> PerceivedObject | None:
    candidates = [o for o in objects if o.label == label]
    return min(candidates, key=lambda o: math.hypot(o.position[0] - x, o.position[1] - y), default=None)


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

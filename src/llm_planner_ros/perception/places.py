"""Which named place of the kitchen an object is at, from its position in the map frame."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from llm_planner_ros.domain.config import DomainConfig

# How far (m) from a place's standing point an object still counts as at it: perception's
# ``place_radius_m`` default, and what every offline user of the pipeline assigns with.
DEFAULT_PLACE_RADIUS_M = 1.0


class PlaceAssigner:
    """Assigns a map position to the nearest place (name -> x, y in metres) within ``max_distance``.

    The world file gives each place as the point the robot stands at, not a region, so a place's region
    is the disc of radius ``max_distance`` around that point, split between places by nearness.
    """

    def __init__(self, places: Mapping[str, tuple[float, float]], max_distance: float) -> None:
        if not places:
            raise ValueError("no places to assign objects to: the world file lists none under `locations`")
        self._names = list(places)
        self._points = np.asarray([places[name] for name in self._names], dtype=float)
        self._max = max_distance

    @classmethod
    def of_world(cls, world: DomainConfig, max_distance: float) -> PlaceAssigner:
        """The places of a world file, its drawer's included (a place of its own there)."""
        places = {name: (pos.x, pos.y) for name, pos in world.locations.items()}
        if world.drawer is not None:
            places[world.drawer.location] = (world.drawer.position.x, world.drawer.position.y)
        return cls(places, max_distance)

    def assign(self, position: np.ndarray) -> str:
        """The place at ``position`` (x, y[, z]), or "" when every place is farther than ``max_distance``."""
        distances = np.hypot(*(self._points - np.asarray(position[:2], dtype=float)).T)
        nearest = int(np.argmin(distances))
        return self._names[nearest] if distances[nearest] <= self._max else ""

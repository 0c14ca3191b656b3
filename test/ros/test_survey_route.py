"""The perceived-scene look around (``ros.survey.route``): every place with a surface, nearest first,
from wherever the robot starts, the drawers included (dev episode drawer-07 starts there and was not
run: the route looked the drawers up among the surfaces)."""

from __future__ import annotations

import math

from llm_planner_ros.domain import Domain
from llm_planner_ros.ros.survey import route


def test_the_route_starts_at_the_drawers_and_visits_every_surface_nearest_first(kitchen: Domain) -> None:
    world = kitchen.world({"robot": {"at": "drawers", "holding": None}, "objects": [], "drawer": {"open": False}})
    places = [str(skill.argument) for skill in route(world)]
    config = kitchen.config
    assert sorted(places) == sorted(config.locations)  # every surface, not the drawers themselves
    start = config.position("drawers")
    nearest = min(
        config.locations, key=lambda p: math.hypot(config.position(p).x - start.x, config.position(p).y - start.y)
    )
    assert places[0] == nearest


def test_the_route_leaves_out_the_robots_own_place(kitchen: Domain) -> None:
    world = kitchen.world({"robot": {"at": "table", "holding": None}, "objects": []})
    places = [str(skill.argument) for skill in route(world)]
    assert "table" not in places and sorted([*places, "table"]) == sorted(kitchen.config.locations)

"""Put down's free spot (llm_planner_ros.robot_motion.free_spot) and the put-down areas of the place map."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from llm_planner_ros.robot_motion.free_spot import GAP_M, NoFreeSpot, free_spot
from llm_planner_ros.robot_motion.geometry import Pose
from llm_planner_ros.robot_motion.place_map import Area, PlaceMapError, load_place_map
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject

# The user's side table as config/robot_map.yaml has it: the base faces +y from 0.6 m before the point.
POINT = Pose("map", 5.5, 4.0, 0.75)
AREA = Area(width=0.4, depth=0.14)
FACING_Y = math.pi / 2
CAN_RADIUS = math.hypot(0.066, 0.066) / 2


def can(object_id: str, x: float, y: float, z: float = 0.811, location: str = "user") -> PerceivedObject:
    return PerceivedObject(object_id, "coke", location, Pose("map", x, y, z), 0.122, (0.066, 0.066))


def test_the_point_when_nothing_stands_near_it() -> None:
    far = can("coke_1", 5.2, 4.0)  # 30 cm to the side: clear of a can at the point
    assert free_spot(POINT, AREA, FACING_Y, CAN_RADIUS, [far]) == POINT


def test_beside_an_object_on_the_point_along_the_edge_first() -> None:
    spot = free_spot(POINT, AREA, FACING_Y, CAN_RADIUS, [can("coke_1", 5.5, 4.0)])
    assert spot.y == pytest.approx(4.0) and spot.z == POINT.z  # the point's row, on the surface
    clear = 2 * CAN_RADIUS + GAP_M
    assert clear <= abs(spot.x - 5.5) < clear + 0.011  # as near as the 1 cm grid allows
    # Facing +y, "across" runs along -x: the first spot tried on each side is the robot's left (-x).
    assert spot.x < 5.5


def test_the_row_behind_when_the_edge_is_full_and_none_when_the_area_is() -> None:
    row = [can(f"c{i}", 5.5 + dx, 4.0) for i, dx in enumerate((-0.2, -0.1, 0.0, 0.1, 0.2))]
    spot = free_spot(POINT, AREA, FACING_Y, CAN_RADIUS, row)
    assert spot.y > 4.0 + 0.05 and all(math.dist((spot.x, spot.y), (o.pose.x, o.pose.y)) >= 0.113 for o in row)
    behind = [can(f"b{i}", 5.5 + dx, 4.14) for i, dx in enumerate((-0.2, -0.1, 0.0, 0.1, 0.2))]
    middle = [can(f"m{i}", 5.5 + dx, 4.07) for i, dx in enumerate((-0.15, -0.05, 0.05, 0.15))]
    with pytest.raises(NoFreeSpot, match="c0, c1, c2"):
        free_spot(POINT, AREA, FACING_Y, CAN_RADIUS, row + middle + behind)


def test_only_objects_standing_on_the_surface_count() -> None:
    held = can("held", 5.5, 4.0, location="robot")
    below = can("floor", 5.5, 4.0, z=0.03)
    above = can("shelf", 5.5, 4.0, z=1.2)
    assert free_spot(POINT, AREA, FACING_Y, CAN_RADIUS, [held, below, above]) == POINT


def test_a_surface_without_an_area_is_its_point_taken_as_it_is() -> None:
    bin_point = Pose("map", 0.5, 3.0, 0.6)
    assert free_spot(bin_point, Area(), math.pi, CAN_RADIUS, [can("coke_1", 0.5, 3.0, z=0.65)]) == bin_point


def test_the_robot_map_gives_put_down_areas_and_rejects_negative_ones(tmp_path: Path) -> None:
    places = load_place_map()
    assert places.place("user").surface_area == AREA
    assert places.place("trash can").surface_area == Area()
    assert places.place("drawers").drawer.interior_area.width > 0.0
    assert places.place("table").heading == pytest.approx(FACING_Y, abs=1e-4)
    path = tmp_path / "map.yaml"
    path.write_text("places:\n  table: {base: {x: 0, y: 0, yaw: 0}, surface: {x: 1, y: 0, z: 1, width: -1, dep: 0}}\n")
    with pytest.raises(PlaceMapError) as error:
        load_place_map(path)
    assert "places.table.surface.width" in str(error.value) and "places.table.surface.dep" in str(error.value)

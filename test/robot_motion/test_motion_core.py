"""The ROS-free core of the robot executors (robot_motion): the place map, navigation targets, pick and
place motions, the drawer motions, the grasp check and the Nav2/MoveIt error messages."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.domain import Domain
from llm_planner_ros.domain.config import load_domain_config
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.layout import load_layout
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.robot_motion.drawer import DrawerSettings, drawer_action, drawer_skill_motion, handle_orientation
from llm_planner_ros.robot_motion.error_codes import moveit_failure, nav2_failure
from llm_planner_ros.robot_motion.geometry import Pose, half_turn, rotate, turned, yaw_quaternion
from llm_planner_ros.robot_motion.manipulation import (
    PANDA_STOW,
    ArmMove,
    ArmSettings,
    GripperMove,
    JointMove,
    LinearMove,
    grasp_failure,
    grasp_yaw,
    pick_motion,
    place_motion,
    release_yaw,
)
from llm_planner_ros.robot_motion.navigation import DRAWER_CONTENTS, MotionError, is_navigation, navigation_goal
from llm_planner_ros.robot_motion.object_heights import load_object_heights
from llm_planner_ros.robot_motion.pick import plan_pick
from llm_planner_ros.robot_motion.place_map import PlaceMapError, load_place_map
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject, object_to_pick, resting_on

COKE = PerceivedObject("coke_1", "coke", "far counter", Pose("map", 4.5, 0.5, 0.96), 0.12)


def test_the_robot_map_has_every_place_the_kitchen_skills_go_to(kitchen: Domain) -> None:
    places = load_place_map()
    assert places.frame == kitchen.config.frame_id
    assert places.missing_places(kitchen.config.places(with_drawer=True)) == []
    for name in kitchen.config.locations:  # put down works wherever the kitchen has objects stand
        surface = places.place(name).surface
        assert surface is not None, name
        position = kitchen.config.position(name)
        assert (surface.x, surface.y) == (position.x, position.y)


def test_a_bad_place_map_lists_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "map.yaml"
    path.write_text("places:\n  table: {base: {x: 1, y: two}}\n  sink: {surface: {x: 0, y: 0, z: 1}}\n")
    with pytest.raises(PlaceMapError) as error:
        load_place_map(path)
    text = str(error.value)
    assert "places.table.base.y" in text and "places.table.base.yaw" in text and "places.sink.base" in text


def test_a_missing_place_map_names_the_parameter(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="map_file"):
        load_place_map(tmp_path / "absent.yaml")


def test_nearest_place_within_a_distance() -> None:
    places = load_place_map()
    assert places.nearest(4.6, 1.0, within_m=0.3).name == "far counter"
    assert places.nearest(3.5, 2.0, within_m=0.3) is None


@pytest.mark.parametrize(
    ("skill", "place"),
    [
        (Skill("go to the table", "goto", ("table",), "mobile_base"), "table"),
        (Skill("bring it to you", "goto", ("user",), "mobile_base"), "user"),
        (Skill("find a coke", "find", ("coke",), "mobile_base"), "far counter"),
    ],
)
def test_navigation_skills_go_to_the_base_pose_of_their_place(skill: Skill, place: str) -> None:
    places = load_place_map()
    assert is_navigation(skill)
    name, pose = navigation_goal(skill, places, [COKE])
    assert name == place and pose == places.place(place).base


def test_find_prefers_an_instance_not_put_away_and_finds_drawer_contents_at_the_drawers() -> None:
    places = load_place_map()
    find = Skill("find a pepsi", "find", ("pepsi",), "mobile_base")
    stored = PerceivedObject("pepsi_1", "pepsi", DRAWER_CONTENTS, Pose("map", 3.0, -0.4, 0.6), 0.12)
    handed = PerceivedObject("pepsi_2", "pepsi", "user", Pose("map", 0.5, 3.0, 0.8), 0.12)
    other = PerceivedObject("pepsi_3", "pepsi", "table", Pose("map", 2.5, 3.5, 0.8), 0.12)
    assert navigation_goal(find, places, [stored, handed, other])[0] == "table"
    drawers = next(place for place in places.places.values() if place.drawer is not None)
    name, pose = navigation_goal(find, places, [stored, handed])
    assert name == drawers.name and pose == drawers.base
    assert navigation_goal(find, places, [handed])[0] == "user"


def test_the_drawer_contents_location_is_the_kitchen_worlds() -> None:
    assert load_domain_config().drawer.contents_at == DRAWER_CONTENTS


def test_navigation_failures_say_why() -> None:
    places = load_place_map()
    with pytest.raises(MotionError, match="perception reports no apple"):
        navigation_goal(Skill("find an apple", "find", ("apple",), "mobile_base"), places, [COKE])
    with pytest.raises(MotionError, match="'garage' is not in the place map"):
        navigation_goal(Skill("go to the garage", "goto", ("garage",), "mobile_base"), places, [])
    assert not is_navigation(Skill("pick up the coke", "pick", ("coke",), "manipulator"))


def test_pick_opens_goes_above_approaches_closes_lifts_and_stows() -> None:
    settings = ArmSettings()
    motion = pick_motion(COKE, settings)
    assert [step.phase for step in motion] == ["open gripper", "pre-grasp", "approach", "close gripper", "lift", "stow"]
    pre, approach, lift = (step.pose for step in motion if isinstance(step, ArmMove))
    assert (approach.x, approach.y) == (4.5, 0.5) and approach.frame == "map"
    # The 12 cm coke (centre 0.96) is grasped grasp_depth below its top (1.02), not at its centre.
    assert approach.z == pytest.approx(1.02 - settings.grasp_depth + settings.grasp_offset)
    assert pre.z - approach.z == pytest.approx(settings.approach_distance)
    assert lift.z - approach.z == pytest.approx(settings.lift_distance)
    assert approach.orientation == settings.grasp_orientation
    close = motion[3]
    assert isinstance(close, GripperMove) and close.grasp and close.position == settings.gripper_closed
    stow = motion[-1]
    assert isinstance(stow, JointMove) and stow.positions == PANDA_STOW and len(stow.names) == len(PANDA_STOW)


def test_the_grasp_height_is_grasp_depth_below_the_top_and_never_below_the_centre() -> None:
    settings = ArmSettings(grasp_depth=0.03)
    assert settings.grasp_height(0.12) == pytest.approx(0.09)  # a can: 3 cm below its 12 cm top
    assert settings.grasp_height(0.20) == pytest.approx(0.17)  # a bottle
    assert settings.grasp_height(0.04) == pytest.approx(0.02)  # a flat bag: at its centre
    assert settings.grasp_height(0.0) == 0.0  # no size reported: the reported pose itself
    # A bar perceived 1.8 cm tall: at its centre (9 mm) the fingers would reach 2 mm into the counter.
    floor = settings.finger_reach + settings.surface_clearance
    assert settings.grasp_height(0.018) == pytest.approx(floor) and floor - settings.finger_reach > 0.0
    assert settings.grasp_height(0.025) == pytest.approx(floor)  # the real bar: 2.5 mm above its centre
    short = PerceivedObject("bag_1", "chips", "table", Pose("map", 2.5, 3.5, 0.77), 0.04)
    assert pick_motion(short, settings)[2].pose.z == pytest.approx(0.77 + settings.grasp_offset)


def test_without_a_stow_pose_the_arm_stays_where_the_skill_left_it() -> None:
    settings = ArmSettings(stow_joints=())
    assert [step.phase for step in pick_motion(COKE, settings)][-1] == "lift"


def test_place_lowers_the_held_object_onto_the_surface_releases_retreats_and_stows() -> None:
    settings = ArmSettings(grasp_offset=0.0)
    motion = place_motion(Pose("map", 2.5, 3.5, 0.75), held_height=0.12, settings=settings)
    assert [step.phase for step in motion] == ["above surface", "lower", "release", "retreat", "stow"]
    # Held 3 cm below its top, the can's bottom is place_clearance above the table.
    assert motion[1].pose.z == pytest.approx(0.75 + 0.09 + settings.place_clearance)
    release = motion[2]
    assert isinstance(release, GripperMove) and not release.grasp and release.position == settings.gripper_open


def test_a_grasp_that_closed_fully_without_stalling_held_nothing() -> None:
    settings = ArmSettings()
    assert "nothing was grasped" in grasp_failure(0.0005, stalled=False, settings=settings)
    assert grasp_failure(0.03, stalled=True, settings=settings) is None
    assert grasp_failure(0.03, stalled=False, settings=settings) is None


def test_the_object_to_pick_is_the_one_at_the_robots_place() -> None:
    other = PerceivedObject("coke_2", "coke", "table", Pose("map", 2.5, 3.5, 0.8), 0.12)
    held = PerceivedObject("coke_3", "coke", "robot", Pose("map", 0, 0, 0), 0.12)
    assert object_to_pick("coke", [held, other, COKE], "far counter") == COKE
    assert object_to_pick("coke", [held, other, COKE], "user") == other
    assert object_to_pick("apple", [COKE], "far counter") is None


def test_error_codes_become_clear_messages() -> None:
    assert nav2_failure(208, "no path") == (
        "Nav2: no path to the goal: it is blocked or unreachable (NO_VALID_PATH, error code 208): no path"
    )
    assert "controller" in nav2_failure(150) and "150" in nav2_failure(150)
    assert "TF_ERROR" in nav2_failure(9002)
    assert moveit_failure(-1).startswith(
        "MoveIt: no collision-free motion plan"
    ) and "PLANNING_FAILED" in moveit_failure(-1)
    assert "NO_IK_SOLUTION" in moveit_failure(-31)
    assert "unlisted" in moveit_failure(-999)


def test_top_down_grasp_is_a_unit_quaternion() -> None:
    assert math.isclose(sum(c * c for c in ArmSettings().grasp_orientation), 1.0)


def test_turned_turns_an_orientation_about_the_vertical() -> None:
    down = ArmSettings().grasp_orientation
    for yaw in (-2.0, -math.pi / 2, 0.3, math.pi / 2, 3.0):
        q = turned(down, yaw)
        assert math.isclose(sum(c * c for c in q), 1.0)
        for v in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)):
            assert rotate(q, v) == pytest.approx(rotate(yaw_quaternion(yaw), rotate(down, v)), abs=1e-12)
    assert half_turn(-math.pi / 2) == pytest.approx(math.pi / 2)
    assert half_turn(math.pi) == pytest.approx(0.0, abs=1e-12)
    assert half_turn(3 * math.pi / 4) == pytest.approx(-math.pi / 4)


def test_an_object_hovering_a_little_over_the_surface_is_extended_down_to_it() -> None:
    seen = PerceivedObject("apple_1", "apple", "close counter", Pose("map", 1.0, 0.5, 0.938), 0.05, (0.05, 0.036))
    resting = resting_on(seen, 0.9)
    assert resting.height == pytest.approx(0.063) and resting.pose.z == pytest.approx(0.9315)
    assert (resting.pose.x, resting.pose.y, resting.footprint) == (1.0, 0.5, (0.05, 0.036))
    assert resting_on(seen, 0.85) == seen  # 6.3 cm above: on something else, not on this surface
    assert resting_on(seen, 0.92) == seen  # reaching below the surface: as reported


def _closes_along(yaw: float) -> tuple[float, float]:
    x, y, _ = rotate(turned(ArmSettings().grasp_orientation, yaw), (0.0, 1.0, 0.0))
    return round(abs(x), 6), round(abs(y), 6)


def test_the_grasp_closes_across_the_base_unless_the_object_is_too_wide_there() -> None:
    settings = ArmSettings()
    facing_minus_y, facing_minus_x = -math.pi / 2, math.pi
    apple = PerceivedObject("apple_1", "apple", "close counter", Pose("map", 1.0, 0.5, 0.94), 0.074, (0.05, 0.036))
    assert _closes_along(grasp_yaw(apple, facing_minus_y, settings)) == (1.0, 0.0)
    assert _closes_along(grasp_yaw(apple, facing_minus_x, settings)) == (0.0, 1.0)
    # No footprint reported: across the base too.
    unsized = PerceivedObject("coke_1", "coke", "table", Pose("map", 2.5, 3.5, 0.8), 0.12)
    assert _closes_along(grasp_yaw(unsized, facing_minus_y, settings)) == (1.0, 0.0)
    # An energy bar lying across the view (11.7 cm along x) is taken across its 3.2 cm side instead.
    bar = PerceivedObject(
        "energy_bar_1", "energy bar", "close counter", Pose("map", 1.0, 0.5, 0.91), 0.02, (0.117, 0.032)
    )
    assert _closes_along(grasp_yaw(bar, facing_minus_y, settings)) == (0.0, 1.0)
    # A 20 cm bottle: along the heading, where the closing fingers centre it.
    bottle = PerceivedObject(
        "water_bottle_1", "water bottle", "far counter", Pose("map", 4.5, 0.5, 1.0), 0.2, (0.05, 0.045)
    )
    assert _closes_along(grasp_yaw(bottle, facing_minus_y, settings)) == (0.0, 1.0)
    assert _closes_along(grasp_yaw(bottle, facing_minus_y, ArmSettings(tall_ratio=5.0))) == (1.0, 0.0)
    # A phone turned a quarter from the map's axes: its 14 x 7 cm footprint is along its own axes, so
    # from a base facing -x its 7 cm side lies along x, and the fingers close there.
    phone = PerceivedObject(
        "phone_1", "phone", "desk", Pose("map", 0.0, 0.0, 0.77, yaw_quaternion(math.pi / 2)), 0.025, (0.14, 0.07)
    )
    assert _closes_along(grasp_yaw(phone, facing_minus_x, settings)) == (1.0, 0.0)
    assert _closes_along(grasp_yaw(phone, facing_minus_y, settings)) == (1.0, 0.0)
    # Wide both ways: across the base, the narrower side is no better.
    tray = PerceivedObject("tray_1", "tray", "table", Pose("map", 2.5, 3.5, 0.8), 0.03, (0.2, 0.3))
    assert _closes_along(grasp_yaw(tray, facing_minus_y, settings)) == (1.0, 0.0)
    assert grasp_yaw(apple, facing_minus_y, ArmSettings(turn_grasp=False)) == 0.0
    # A put down opens the fingers along the heading, away from the neighbours beside its spot.
    assert _closes_along(release_yaw(facing_minus_y, settings)) == (0.0, 1.0)
    assert _closes_along(release_yaw(facing_minus_x, settings)) == (1.0, 0.0)
    assert release_yaw(facing_minus_x, ArmSettings(turn_grasp=False)) == 0.0
    motion = pick_motion(apple, settings, grasp_yaw(apple, facing_minus_y, settings))
    assert {step.pose.orientation for step in motion if isinstance(step, ArmMove)} == {
        turned(settings.grasp_orientation, math.pi / 2)
    }


def test_the_drawer_of_the_robot_map_matches_the_physics_kitchens_cabinet() -> None:
    """The handle and interior of config/robot_map.yaml where config/physics_kitchen.yaml builds them: the
    cabinet at the drawers' point (3.0, -0.5) faces -y, its drawer slides 0.3 m towards +y."""
    drawer = load_place_map().place("drawers").drawer
    assert drawer is not None and drawer.travel == 0.3
    assert drawer.direction == pytest.approx((0.0, 1.0, 0.0), abs=1e-5)
    assert drawer.handle_at(True).y == pytest.approx(drawer.handle.y + 0.3)
    assert drawer.handle_at(False) == drawer.handle


def test_the_hand_faces_the_handle_with_its_fingers_vertical() -> None:
    drawer = load_place_map().place("drawers").drawer
    q = handle_orientation(drawer, 0.0)
    assert math.isclose(sum(c * c for c in q), 1.0)
    assert rotate(q, (0.0, 0.0, 1.0)) == pytest.approx((0.0, -1.0, 0.0), abs=1e-5)  # into the cabinet
    assert rotate(q, (0.0, 1.0, 0.0)) == pytest.approx((0.0, 0.0, 1.0), abs=1e-5)  # fingers close vertically
    turned = handle_orientation(drawer, math.pi / 2)  # a vertical bar: fingers close horizontally
    assert rotate(turned, (0.0, 0.0, 1.0)) == pytest.approx((0.0, -1.0, 0.0), abs=1e-5)
    assert rotate(turned, (0.0, 1.0, 0.0))[2] == pytest.approx(0.0, abs=1e-5)


def test_drawer_motions_open_close_and_put_in(kitchen: Domain) -> None:
    world = kitchen.world({"robot": {"at": "drawers", "holding": None}, "objects": [], "drawer": {"open": False}})
    drawer, arm, settings = load_place_map().place("drawers").drawer, ArmSettings(), DrawerSettings(pull_steps=2)
    opening = drawer_skill_motion(world.skill("open the drawer"), drawer, 0.12, arm, settings)
    pulls = [m for m in opening if isinstance(m, LinearMove)]
    assert [m.phase for m in pulls] == ["pull 1/2", "pull 2/2"]
    assert pulls[0].start.y == pytest.approx(drawer.handle.y + arm.grasp_offset, abs=1e-6)
    assert pulls[-1].pose.y - pulls[0].start.y == pytest.approx(drawer.travel, abs=1e-6)
    assert [m.phase for m in opening if isinstance(m, GripperMove) and m.grasp] == ["close on handle"]
    closing = drawer_skill_motion(world.skill("close the drawer"), drawer, 0.12, arm, settings)
    pushes = [m for m in closing if isinstance(m, LinearMove)]
    assert pushes[0].start.y == pytest.approx(drawer.handle.y + arm.grasp_offset + drawer.travel, abs=1e-6)
    assert pushes[-1].pose.y == pytest.approx(drawer.handle.y + arm.grasp_offset, abs=1e-6)
    putting = drawer_skill_motion(world.skill("put the coke in the drawer"), drawer, 0.12, arm, settings)
    assert putting == place_motion(drawer.interior, 0.12, arm)
    with pytest.raises(MotionError, match="not a drawer skill"):
        drawer_action(world.skill("pick up the coke"))


def test_a_bad_drawer_entry_lists_its_problems(tmp_path: Path) -> None:
    path = tmp_path / "map.yaml"
    path.write_text(
        "places:\n  drawers:\n    base: {x: 3, y: 0, yaw: 0}\n"
        "    drawer: {handle: {x: 3, y: 0}, open_yaw: 1.57, travel: -0.3}\n"
    )
    with pytest.raises(PlaceMapError) as error:
        load_place_map(path)
    text = str(error.value)
    assert "places.drawers.drawer.handle.z" in text and "places.drawers.drawer.interior" in text
    assert "places.drawers.drawer.travel" in text and "must be positive" in text


def test_a_pick_plan_takes_the_object_at_the_robots_place_resting_on_its_surface() -> None:
    places = load_place_map()
    counter = places.place("close counter")
    assert counter is not None and counter.surface is not None
    z = counter.surface.z
    hovering = PerceivedObject("apple_1", "apple", "close counter", Pose("map", 1.0, 0.5, z + 0.038), 0.05)
    elsewhere = PerceivedObject("apple_2", "apple", "table", Pose("map", 2.5, 3.5, 0.8), 0.074)
    plan = plan_pick("apple", [elsewhere, hovering], "close counter", places, ArmSettings())
    assert plan.target.id == "apple_1" and plan.target.height == pytest.approx(0.063)  # down to the surface
    approach = next(m for m in plan.motions if isinstance(m, ArmMove) and m.phase == "approach")
    turned_to_counter = grasp_yaw(plan.target, counter.heading, ArmSettings())
    assert approach.pose.orientation == turned(ArmSettings().grasp_orientation, turned_to_counter)
    # At no place of the map: the report as perceived, the grasp unturned.
    plan = plan_pick("apple", [elsewhere], None, places, ArmSettings())
    approach = next(m for m in plan.motions if isinstance(m, ArmMove) and m.phase == "approach")
    assert plan.target == elsewhere and approach.pose.orientation == ArmSettings().grasp_orientation
    with pytest.raises(MotionError, match="perception reports no coke to pick"):
        plan_pick("coke", [hovering], "close counter", places, ArmSettings())


def test_the_object_heights_are_the_layouts_object_models_unless_a_catalogue_is_given(
    kitchen: Domain, tmp_path: Path
) -> None:
    heights, models = load_object_heights(), load_layout(kitchen.config).models
    assert set(heights.heights) == set(kitchen.config.labels) == set(models)
    assert heights.height("coke") == pytest.approx(0.122) and heights.height("apple") == pytest.approx(0.074)
    assert heights.height("kettle") is None and heights.height(None) is None
    office = load_domain(REPO_ROOT / "domains" / "office").config
    assert load_object_heights(None, office).height("mug") == pytest.approx(0.1)  # domains/office/layout.yaml
    catalogue = tmp_path / "heights.yaml"
    catalogue.write_text("heights: {coke: 0.13}\n")
    assert load_object_heights(catalogue).heights == {"coke": 0.13}

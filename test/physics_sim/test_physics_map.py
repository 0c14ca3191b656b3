"""The robot's place map (config/robot_map.yaml) against the physics kitchen it drives: the executors send
the base where the physics counts the robot at a place, the drawer's handle is where the cabinet's is,
and the arm reaches the handle from the drawer's base pose without folding into its own base (drawer-01..03
failed at `pre-grasp handle` with NO_IK_SOLUTION from a base pose 0.4 m nearer)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from llm_planner_ros.domain import Domain
from llm_planner_ros.domain.layout import Pose2D
from llm_planner_ros.physics_sim import PhysicsKitchen, load_layout
from llm_planner_ros.physics_sim.builder import drawer_handle
from llm_planner_ros.physics_sim.motions import Outcome
from llm_planner_ros.physics_sim.robot import LINK_INDEX
from llm_planner_ros.robot_motion.drawer import DrawerSettings, drawer_motion
from llm_planner_ros.robot_motion.manipulation import ArmMove, ArmSettings, LinearMove
from llm_planner_ros.robot_motion.place_map import load_place_map

DRAWER_SCENE = {"robot": {"at": "drawers", "holding": None}, "objects": [], "drawer": {"open": False}}


@pytest.fixture(scope="module")
def sim(kitchen: Domain) -> Iterator[PhysicsKitchen]:
    world = PhysicsKitchen(
        kitchen, load_layout(kitchen.config), kitchen.world(DRAWER_SCENE).scene(), image_size=(64, 48)
    )
    yield world
    world.close()


def test_every_base_pose_of_the_map_is_the_physics_standing_pose(kitchen: Domain) -> None:
    layout, places = load_layout(kitchen.config), load_place_map()
    for name, piece in layout.furniture.items():
        base = places.place(name)
        assert (base.base.x, base.base.y) == pytest.approx((piece.standing.x, piece.standing.y), abs=1e-3), name
        assert math.cos(base.heading - piece.standing.yaw) == pytest.approx(1.0, abs=1e-6), name


def test_the_map_drawer_handle_is_the_cabinet_handle(kitchen: Domain) -> None:
    drawer = load_place_map().place("drawers").drawer
    built = drawer_handle(load_layout(kitchen.config).furniture["drawers"])
    assert (drawer.handle.x, drawer.handle.y, drawer.handle.z) == pytest.approx(built, abs=1e-3)


def test_every_handle_waypoint_is_reachable_from_the_drawer_base_pose(sim: PhysicsKitchen) -> None:
    drawer = load_place_map().place("drawers").drawer
    hand = LINK_INDEX["panda_hand"]
    assert sim.robot.pose == sim.standing_pose("drawers")
    for opening in (True, False):
        for motion in drawer_motion(drawer, opening, ArmSettings(), DrawerSettings()):
            if isinstance(motion, ArmMove | LinearMove):
                pose = motion.pose
                planned = sim.move_arm((pose.x, pose.y, pose.z), pose.orientation, hand, plan_only=True)
                assert planned.outcome is Outcome.SUCCEEDED, (opening, motion.phase, planned.message)


def test_an_arm_goal_that_folds_the_arm_into_the_base_is_in_collision(sim: PhysicsKitchen) -> None:
    standing = sim.standing_pose("drawers")
    sim.robot.set_base_pose(Pose2D(standing.x, standing.y - 0.4, standing.yaw))  # the old base pose
    try:
        pose = drawer_motion(load_place_map().place("drawers").drawer, True, ArmSettings(), DrawerSettings())[1].pose
        planned = sim.move_arm((pose.x, pose.y, pose.z), pose.orientation, LINK_INDEX["panda_hand"], plan_only=True)
        assert planned.outcome is Outcome.IN_COLLISION and "the robot's base" in planned.message, planned.message
    finally:
        sim.robot.set_base_pose(standing)

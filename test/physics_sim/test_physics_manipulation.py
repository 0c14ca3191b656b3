"""The executors' moveit motions (llm_planner_ros.robot_motion.manipulation, with config/physics_graph.yaml's
settings) on the physics kitchen without ROS: what the physics graph's pick and put down do, step by step.

Regressions of the dev episodes noun-02 (a 16 cm snack bag stopped the arm's fold; the IK answered a wrist
angle beyond its limit over the bin), verb-04 (the put-down point was taken by the sponge, and the
bottle set on it did not end on the table) and noun-01 (a released can hung from an open finger, rose
with the retreating hand and fell off the user's table)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
import yaml

from llm_planner_ros.domain import Domain, load_episodes
from llm_planner_ros.paths import default_domain_file
from llm_planner_ros.physics_sim import PhysicsKitchen, load_layout
from llm_planner_ros.physics_sim.motions import Outcome
from llm_planner_ros.physics_sim.robot import LINK_INDEX, TUCKED, within_limits
from llm_planner_ros.physics_sim.scripted import graph_arm_settings
from llm_planner_ros.robot_motion.geometry import Pose
from llm_planner_ros.robot_motion.manipulation import (
    ArmSettings,
    GripperMove,
    JointMove,
    Motion,
    grasp_yaw,
    pick_motion,
    place_motion,
    release_yaw,
)
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject, resting_on

EPISODES = "domains/saycan_kitchen/dev.yaml"


def surface(place: str) -> Pose:
    """Where put down sets objects at ``place`` (the kitchen's robot_map.yaml, as the executor reads it)."""
    point = yaml.safe_load(default_domain_file("robot_map.yaml").read_text())["places"][place]["surface"]
    return Pose("map", point["x"], point["y"], point["z"])


@pytest.fixture(scope="module")
def sim(kitchen: Domain) -> Iterator[PhysicsKitchen]:
    world = PhysicsKitchen(kitchen, load_layout(kitchen.config), kitchen.world().scene(), image_size=(64, 48))
    yield world
    world.close()


def load(sim: PhysicsKitchen, kitchen: Domain, episode_id: str) -> None:
    episode = load_episodes(EPISODES, kitchen).select(episode_id)
    sim.load(episode.initial, episode.id)


def run(sim: PhysicsKitchen, motions: list[Motion], idle_s: float = 0.0) -> None:
    """Each motion as the physics node runs the executor's goal, the simulation going on ``idle_s`` between
    them (as it does while the executor sends the next goal); fails naming the phase that did not succeed."""
    for motion in motions:
        sim.step(int(idle_s / sim.time_step))
        if isinstance(motion, GripperMove):
            done = sim.run(sim.gripper(close=motion.position <= 0.02))
        elif isinstance(motion, JointMove):
            done = sim.run(sim.move_joints(list(motion.positions)))
        else:
            pose = motion.pose
            done = sim.run(sim.move_arm((pose.x, pose.y, pose.z), pose.orientation, LINK_INDEX["panda_hand"]))
        assert done.outcome is Outcome.SUCCEEDED, f"{motion.phase}: {done.outcome.value}: {done.message}"


def go_and_pick(sim: PhysicsKitchen, place: str, object_id: str, settings: ArmSettings) -> None:
    assert sim.run(sim.navigate(sim.standing_pose(place))).outcome is Outcome.SUCCEEDED
    truth = next(o for o in sim.truth().objects if o.id == object_id)
    height = sim.layout.models[truth.label].height
    target = PerceivedObject(object_id, truth.label, place, Pose("map", *truth.position), height)
    run(sim, pick_motion(target, settings))
    assert sim.holding() == object_id


def go_and_put_down(sim: PhysicsKitchen, place: str, settings: ArmSettings, idle_s: float = 0.0) -> str:
    held = sim.holding()
    assert held is not None
    height = sim.layout.models[next(o.label for o in sim.truth().objects if o.id == held)].height
    assert sim.run(sim.navigate(sim.standing_pose(place))).outcome is Outcome.SUCCEEDED
    run(sim, place_motion(surface(place), height, settings), idle_s)
    sim.step(int(1.0 / sim.time_step))  # let it settle
    return held


def test_the_physics_stow_is_the_tucked_pose() -> None:
    assert graph_arm_settings().stow_joints == pytest.approx(TUCKED)


def test_a_snack_bag_folds_with_the_arm_and_drops_into_the_bin(sim: PhysicsKitchen, kitchen: Domain) -> None:
    load(sim, kitchen, "noun-02")
    settings = graph_arm_settings()
    go_and_pick(sim, "close counter", "jalapeno_chips_1", settings)
    bag = go_and_put_down(sim, "trash can", settings)
    truth = {o.id: o for o in sim.truth().objects}
    assert truth[bag].at == "trash can" and sim.holding() is None
    assert truth["kettle_chips_1"].at == "close counter"  # its neighbour stays where it stood


def test_a_bottle_put_down_on_the_table_stands_on_the_table_beside_the_sponge(
    sim: PhysicsKitchen, kitchen: Domain
) -> None:
    load(sim, kitchen, "verb-04")
    settings = graph_arm_settings()
    go_and_pick(sim, "close counter", "water_bottle_1", settings)
    bottle = go_and_put_down(sim, "table", settings)
    truth = {o.id: o for o in sim.truth().objects}
    assert truth[bottle].at == "table" and truth[bottle].upright
    assert "table" in truth[bottle].touching and "sponge_1" not in truth[bottle].touching
    assert truth["tea_1"].at == "close counter" and truth["sponge_1"].at == "table"


def test_a_released_can_stays_on_the_table_when_the_hand_waits_before_retreating(
    sim: PhysicsKitchen, kitchen: Domain
) -> None:
    load(sim, kitchen, "noun-01")
    settings = graph_arm_settings()
    go_and_pick(sim, "far counter", "grapefruit_soda_1", settings)
    can = go_and_put_down(sim, "user", settings, idle_s=1.0)
    truth = {o.id: o for o in sim.truth().objects}
    assert truth[can].at == "user" and truth[can].upright and truth[can].touching == ("user",)


def test_objects_are_set_out_off_the_put_down_point_within_reach_of_every_surface(kitchen: Domain) -> None:
    layout = load_layout(kitchen.config)
    spec = layout.placement
    for place, piece in layout.furniture.items():
        if piece.kind in ("bin", "drawers"):
            continue
        point = piece.to_map(-piece.depth / 2 + spec.row_inset, 0.0)
        for count in range(1, 5):  # the dev episodes have at most 4 objects at one place
            spots = layout.slots(place, count)
            assert len(set(spots)) == count, (place, spots)
            for local_x, local_y in spots:
                x, y = piece.to_map(local_x, local_y)
                assert spec.min_spacing - 1e-9 <= abs(local_y) <= spec.max_offset + 1e-9, (place, count, spots)
                assert math.dist((x, y), point) >= spec.min_spacing - 1e-9, (place, count)
                assert piece.covers(x, y, margin=-0.08), f"{place}: a spot at ({x:.2f}, {y:.2f}) overhangs the top"
        assert layout.slots(place, 2) == [(-piece.depth / 2 + spec.row_inset, s * spec.spacing) for s in (1, -1)]


def test_an_ik_angle_beyond_a_limit_turns_a_whole_turn_or_clamps() -> None:
    assert within_limits(3.91, -2.9, 2.9) == pytest.approx(3.91 - 2 * math.pi)
    assert within_limits(-3.91, -2.9, 2.9) == pytest.approx(-3.91 + 2 * math.pi)
    assert within_limits(1.0, -2.9, 2.9) == 1.0
    assert within_limits(3.2, -0.02, 3.0) == 3.0  # 2 pi away is outside as well: the nearer limit


def test_an_apple_seen_off_centre_towards_the_camera_is_picked_across_the_view_and_handed_over(
    sim: PhysicsKitchen, kitchen: Domain
) -> None:
    """emb-08: perception put the 7.4 cm apple's centre 1.4 cm towards the head camera (along -y's
    opposite at the close counter) and 1.3 cm high, 5 cm tall; 3 mm a side is all the open fingers have."""
    load(sim, kitchen, "emb-08")
    settings = graph_arm_settings()
    assert sim.run(sim.navigate(sim.standing_pose("close counter"))).outcome is Outcome.SUCCEEDED
    truth = next(o for o in sim.truth().objects if o.id == "apple_1")
    x, y, z = truth.position
    seen = PerceivedObject(
        "apple_1", "apple", "close counter", Pose("map", x, y + 0.014, z + 0.013), 0.05, (0.051, 0.036)
    )
    # Fingers closing along the view (the grasp before turn_grasp) land on the apple.
    approach = next(m for m in pick_motion(seen, settings) if m.phase == "approach")
    blocked = sim.run(
        sim.move_arm(
            (approach.pose.x, approach.pose.y, approach.pose.z), approach.pose.orientation, LINK_INDEX["panda_hand"]
        )
    )
    assert blocked.outcome is Outcome.IN_COLLISION
    heading = sim.robot.pose.yaw
    target = resting_on(seen, surface("close counter").z)
    run(sim, pick_motion(target, settings, grasp_yaw(target, heading, settings)))
    assert sim.holding() == "apple_1"
    assert sim.run(sim.navigate(sim.standing_pose("user"))).outcome is Outcome.SUCCEEDED
    run(sim, place_motion(surface("user"), target.height, settings, release_yaw(sim.robot.pose.yaw, settings)))
    sim.step(int(1.0 / sim.time_step))
    assert next(o for o in sim.truth().objects if o.id == "apple_1").at == "user" and sim.holding() is None

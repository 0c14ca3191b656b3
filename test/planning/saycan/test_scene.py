"""The scene line a grounded SayCan prompt gives the model."""

from __future__ import annotations

from world_builders import MakeWorld

from llm_planner_ros.planning.saycan.scene import describe_scene


def test_scene_names_robot_place_gripper_and_objects_per_place(make_world: MakeWorld) -> None:
    world = make_world(
        "table", holding="coke_1", coke_1="robot", apple_1="close counter", sponge_1="close counter", pepsi_1="user"
    )
    assert describe_scene(world) == (
        "Scene: robot at the table, holding the coke. close counter: apple, sponge. far counter: nothing. "
        "table: nothing. trash can: nothing. you: pepsi."
    )


def test_the_person_reads_you_and_the_drawer_shows_its_state(make_world: MakeWorld) -> None:
    world = make_world("user", drawer=False, tea_1="drawer")
    scene = describe_scene(world)
    assert scene.startswith("Scene: robot with you, holding nothing.")
    assert scene.endswith("drawer (closed): tea.")


def test_equal_states_read_alike_and_changes_show(make_world: MakeWorld) -> None:
    world = make_world("far counter", coke_1="far counter")
    same = make_world("far counter", coke_1="far counter")
    assert describe_scene(world) == describe_scene(same)
    world.apply("pick up the coke")
    assert "holding the coke" in describe_scene(world) and "far counter: nothing" in describe_scene(world)

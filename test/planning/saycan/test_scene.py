"""The scene line a grounded SayCan prompt gives the model."""

from __future__ import annotations

from pathlib import Path

from office_copy import OFFICE, copy_domain
from world_builders import MakeWorld

from llm_planner_ros.domain.domain_folder import load_domain
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


def test_saycans_line_says_which_objects_are_of_a_kind_and_where_facts_change() -> None:
    # What a request leaves unsaid: "something to clean with" names no object, "turn on the printer" no place.
    office = load_domain(OFFICE).world()
    assert describe_scene(office).endswith("table_clean(meeting room).")
    scene = describe_scene(office, unsaid=True)
    assert scene.endswith(
        "facts: printer_on, table_clean(desk), table_clean(kitchenette), table_clean(meeting room). "
        "tableware here: mug. office supplies here: stapler, notepad, marker. paper here: notepad. "
        "writing tool here: marker. cleaning supplies here: sponge. drink here: water bottle. "
        "where: door_open at the hall, elevator_called at the hall, printer_on at the printer, "
        "table_clean(desk) at the desk, table_clean(kitchenette) at the kitchenette, "
        "table_clean(meeting room) at the meeting room."
    ), scene
    # A category none of whose objects is in the scene is not named.
    bare = load_domain(OFFICE).world({"robot": {"at": "desk", "holding": None}, "objects": []})
    assert " here: " not in describe_scene(bare, unsaid=True)
    assert "where: door_open at the hall" in describe_scene(bare, unsaid=True)


def test_a_fact_changed_at_two_places_is_given_no_place(tmp_path: Path) -> None:
    # The door also closes from the meeting room: "door_open at the hall" would send the robot to one of two.
    folder = copy_domain(tmp_path, bank=False)
    skills = folder / "skills.yaml"
    skills.write_text(
        skills.read_text().replace(
            "    preconditions: [{robot_at: hall}, {holding: null}, {fact: door_open}]",
            "    preconditions: [{robot_at: meeting room}, {holding: null}, {fact: door_open}]",
        )
    )
    scene = describe_scene(load_domain(folder).world(), unsaid=True)
    assert "where: elevator_called at the hall, printer_on at the printer," in scene and "door_open at" not in scene

"""The world model: skills change it by their effects, refuse with reasons, and never break invariants."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_planner_ros.domain import (
    HELD,
    Domain,
    PreconditionError,
    SceneError,
    UnknownSkillError,
    World,
    domain_skill_texts,
)

MakeWorld = Callable[..., World]


def test_fetch_sequence_moves_robot_and_object(make_world: MakeWorld) -> None:
    world = make_world("table", coke_1="far counter", apple_1="table")
    world.apply("find a coke")
    assert world.robot_at == "far counter"
    world.apply("pick up the coke")
    assert world.holding is not None and world.holding.id == "coke_1"
    world.apply("bring it to you")
    world.apply("put down the coke")
    assert world.robot_at == "user"
    assert [o.id for o in world.placed_at("user")] == ["coke_1"]
    assert world.holding is None
    assert world.visited == ("table", "far counter", "user")


def test_find_goes_to_the_nearest_instance(make_world: MakeWorld) -> None:
    world = make_world("close counter", coke_1="user", coke_2="trash can")
    world.apply("find a coke")
    assert world.robot_at == "trash can"


def test_pick_takes_an_instance_at_the_robots_place(make_world: MakeWorld) -> None:
    world = make_world("table", coke_1="far counter", coke_2="table")
    world.apply("pick up the coke")
    assert world.holding is not None and world.holding.id == "coke_2"
    assert {o.id: o.at for o in world.objects} == {"coke_1": "far counter", "coke_2": HELD}


@pytest.mark.parametrize(
    ("skill", "reason"),
    [
        ("pick up the coke", "no coke within reach at the table; there is one at: far counter"),
        ("pick up the pepsi", "there is no pepsi to pick"),
        ("put down the coke", "the gripper is empty"),
        ("find a pepsi", "there is no pepsi in the scene"),
    ],
)
def test_precondition_errors_say_why(make_world: MakeWorld, skill: str, reason: str) -> None:
    world = make_world("table", coke_1="far counter")
    before = world.to_initial()
    with pytest.raises(PreconditionError, match=reason):
        world.apply(skill)
    assert world.to_initial() == before


def test_full_gripper_blocks_pick_and_wrong_label_blocks_put_down(make_world: MakeWorld) -> None:
    world = make_world("table", holding="sponge_1", sponge_1=HELD, apple_1="table")
    with pytest.raises(PreconditionError, match=r"already holds sponge \(sponge_1\)"):
        world.apply("pick up the apple")
    with pytest.raises(PreconditionError, match="not an apple"):
        world.apply("put down the apple")
    with pytest.raises(PreconditionError, match="the only sponge is in the gripper"):
        world.apply("find a sponge")


def test_unknown_skill_suggests_near_matches(make_world: MakeWorld) -> None:
    world = make_world("table")
    with pytest.raises(UnknownSkillError, match="did you mean 'pick up the coke'"):
        world.apply("pick the coke up")


def test_drawer_skills_exist_only_in_drawer_scenes(make_world: MakeWorld) -> None:
    plain = make_world("table")
    with_drawer = make_world("table", drawer=False)
    extra = set(s.text for s in with_drawer.admissible_skills()) - set(s.text for s in plain.admissible_skills())
    assert {"go to the drawers", "open the drawer", "close the drawer", "put the coke in the drawer"} <= extra
    with pytest.raises(UnknownSkillError, match="needs the drawer"):
        plain.apply("open the drawer")


def test_restock_into_the_drawer_and_take_out_again(make_world: MakeWorld) -> None:
    world = make_world("table", drawer=False, coke_1="table", rice_chips_1="drawer")
    world.apply("pick up the coke")
    world.apply("go to the drawers")
    with pytest.raises(PreconditionError, match="gripper must be free|already holds"):
        world.apply("open the drawer")
    world.apply("put down the coke")
    world.apply("open the drawer")
    assert world.drawer_open is True
    world.apply("pick up the rice chips")
    with pytest.raises(PreconditionError, match="already holds"):
        world.apply("close the drawer")
    world.apply("put the rice chips in the drawer")
    world.apply("close the drawer")
    assert {o.id: o.at for o in world.objects} == {"coke_1": "drawers", "rice_chips_1": "drawer"}
    world.apply("pick up the coke")
    with pytest.raises(PreconditionError, match="the drawer is closed"):
        world.apply("put the coke in the drawer")


def test_closed_drawer_hides_its_contents_from_the_arm(make_world: MakeWorld) -> None:
    world = make_world("drawers", drawer=False, rice_chips_1="drawer")
    with pytest.raises(PreconditionError, match="in the closed drawer; open the drawer first"):
        world.apply("pick up the rice chips")
    far = make_world("table", drawer=False, rice_chips_1="drawer")
    far.apply("find a rice chips")
    assert far.robot_at == "drawers"


def test_copy_is_independent(make_world: MakeWorld) -> None:
    world = make_world("table", apple_1="table")
    look_ahead = world.copy()
    look_ahead.apply("pick up the apple")
    look_ahead.apply("go to the trash can")
    assert world.holding is None and world.robot_at == "table" and world.visited == ("table",)
    assert look_ahead.visited == ("table", "trash can")


def test_summary_names_every_place_and_the_gripper(make_world: MakeWorld) -> None:
    world = make_world("far counter", holding="coke_1", coke_1=HELD, apple_1="table")
    lines = world.summary().splitlines()
    assert lines[0] == "robot: at far counter, holding coke (coke_1)"
    assert "table: apple (apple_1)" in lines
    assert "trash can: nothing" in lines


def test_from_initial_rejects_bad_blocks_with_fields(kitchen: Domain) -> None:
    with pytest.raises(SceneError, match=r"objects\[0\].label: unknown label 'banana'"):
        kitchen.world({"robot": {"at": "table"}, "objects": [{"id": "b", "label": "banana", "at": "table"}]})


def test_default_world_has_the_51_kitchen_skills(kitchen: Domain) -> None:
    texts = domain_skill_texts(kitchen.world())
    assert len(texts) == len(set(texts)) == 51
    labels = kitchen.config.labels
    assert len(labels) == 15
    for label in labels:
        article = kitchen.config.articles[label]
        assert {f"find {article} {label}", f"pick up the {label}", f"put down the {label}"} <= set(texts)
    assert {
        "go to the close counter",
        "go to the far counter",
        "go to the table",
        "go to the trash can",
        "bring it to you",
        "done",
    } <= set(texts)


def test_families_and_executors_of_the_skills(kitchen: Domain) -> None:
    by_text = {s.text: s for s in kitchen.library.skills(with_drawer=True)}
    assert by_text["find an apple"].family == "find" and by_text["find an apple"].executor == "mobile_base"
    assert by_text["pick up the coke"].executor == "manipulator" and by_text["pick up the coke"].arguments == ("coke",)
    assert by_text["bring it to you"].family == "goto" and by_text["bring it to you"].arguments == ("user",)
    assert by_text["done"].family == "terminate" and by_text["done"].executor == "" and by_text["done"].arguments == ()
    assert by_text["open the drawer"].family == "drawer" and by_text["open the drawer"].executor == "manipulator"
    assert by_text["go to the drawers"].executor == "mobile_base"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_skill_sequences_keep_the_world_consistent(kitchen: Domain, data: st.DataObject) -> None:
    world = kitchen.world(
        {
            "robot": {"at": "table", "holding": None},
            "drawer": {"open": False},
            "objects": [
                {"id": "coke_1", "label": "coke", "at": "far counter"},
                {"id": "coke_2", "label": "coke", "at": "drawer"},
                {"id": "apple_1", "label": "apple", "at": "table"},
            ],
        }
    )
    texts = [s.text for s in world.admissible_skills()]
    for text in data.draw(st.lists(st.sampled_from(texts), max_size=25)):
        before = world.to_initial()
        if world.can_apply(text):
            world.apply(text)
        else:
            assert world.to_initial() == before
        # The state always round-trips through the episode format's validation.
        assert kitchen.world(world.to_initial()).to_initial() == world.to_initial()
        assert sum(o.held for o in world.objects) <= 1
        assert world.robot_at in world.visited


def test_find_prefers_an_instance_that_is_not_put_away() -> None:
    from llm_planner_ros.domain.definition import load_domain_files

    world = load_domain_files().world(
        {
            "robot": {"at": "trash can", "holding": None},
            "objects": [
                {"id": "coke_1", "label": "coke", "at": "trash can"},
                {"id": "coke_2", "label": "coke", "at": "far counter"},
                {"id": "apple_1", "label": "apple", "at": "user"},
            ],
        }
    )
    assert world.nearest_place_of("coke") == "far counter"  # not the one already thrown away, though nearer
    assert world.nearest_place_of("apple") == "user"  # the only apple: found where it is
    world.apply(world.skill("find a coke"))
    assert world.robot_at == "far counter"

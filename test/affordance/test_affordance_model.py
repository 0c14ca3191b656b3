"""SayCan's calibrated affordances (SayCan, arXiv 2204.01691, appendix D.2) on chosen world states."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_planner_ros.affordance.calibration import Calibration
from llm_planner_ros.affordance.model import AffordanceError, AffordanceModel
from llm_planner_ros.domain import HELD, Domain, Skill, World

MakeWorld = Callable[..., World]
MODEL = AffordanceModel()
CAL = MODEL.calibration


def p(world: World, text: str) -> float:
    return MODEL.affordance(world.skill(text), world)


def test_paper_constants_are_the_defaults() -> None:
    assert (CAL.pick_v_min, CAL.pick_v_max, CAL.goto_d_min, CAL.goto_d_max, CAL.terminate) == (
        0.2,
        0.5,
        0.0,
        100.0,
        0.1,
    )


def test_pick_is_high_only_with_the_object_here_and_the_gripper_empty(make_world: MakeWorld) -> None:
    here = make_world("table", apple_1="table", coke_1="far counter")
    expected_high = (CAL.pick_v_reachable - 0.2) / (0.5 - 0.2)
    assert p(here, "pick up the apple") == pytest.approx(expected_high)
    assert expected_high > 0.8
    assert p(here, "pick up the coke") == 0.0  # elsewhere: the value function's minimum
    assert p(here, "pick up the pepsi") == 0.0  # not in the scene
    full = make_world("table", holding="sponge_1", sponge_1=HELD, apple_1="table")
    assert p(full, "pick up the apple") == 0.0
    assert p(full, "pick up the sponge") == 0.0  # already holding it: the effect holds


def test_pick_value_normalization_is_clamped() -> None:
    assert CAL.pick(0.1) == 0.0 and CAL.pick(0.35) == pytest.approx(0.5) and CAL.pick(0.9) == 1.0


def test_goto_decays_with_distance_and_is_zero_where_the_robot_is(kitchen: Domain, make_world: MakeWorld) -> None:
    world = make_world("close counter")
    for place, text in (("far counter", "go to the far counter"), ("user", "bring it to you")):
        d = kitchen.config.position("close counter").distance_to(kitchen.config.position(place))
        assert p(world, text) == pytest.approx((100.0 - d) / 100.0)
    assert p(world, "go to the far counter") > p(world, "bring it to you")  # the user is farther
    assert p(world, "go to the close counter") == 0.0
    assert CAL.goto(150.0) == 0.0 and CAL.goto(0.0) == 1.0


def test_find_shares_the_goto_calibration_towards_the_nearest_instance(kitchen: Domain, make_world: MakeWorld) -> None:
    world = make_world("close counter", coke_1="user", coke_2="trash can", apple_1="close counter")
    d = kitchen.config.position("close counter").distance_to(kitchen.config.position("trash can"))
    assert p(world, "find a coke") == pytest.approx(CAL.goto(d))
    assert p(world, "find an apple") == 0.0  # already where an apple is
    assert p(world, "find a pepsi") == 0.0  # nowhere to go


def test_place_follows_the_gripper(make_world: MakeWorld) -> None:
    holding = make_world("table", holding="coke_1", coke_1=HELD)
    assert p(holding, "put down the coke") == 1.0
    assert p(holding, "put down the pepsi") == 0.0
    assert p(make_world("table", coke_1="table"), "put down the coke") == 0.0


def test_terminate_is_small_but_positive(make_world: MakeWorld) -> None:
    assert p(make_world("table"), "done") == pytest.approx(0.1)


def test_drawer_skills_need_the_robot_at_the_drawer(make_world: MakeWorld) -> None:
    away = make_world("table", drawer=False)
    assert p(away, "open the drawer") == 0.0
    assert p(away, "go to the drawers") > 0.9
    closed = make_world("drawers", drawer=False, holding="coke_1", coke_1=HELD)
    assert p(closed, "go to the drawers") == 0.0
    assert p(closed, "open the drawer") == 0.0  # one arm, and it is full
    assert p(closed, "put the coke in the drawer") == 0.0  # closed
    open_ = make_world("drawers", drawer=True, holding="coke_1", coke_1=HELD)
    assert p(open_, "put the coke in the drawer") == CAL.drawer_possible
    assert p(open_, "open the drawer") == 0.0  # already open


def test_calibration_from_config_values() -> None:
    calibration = Calibration.from_mapping({"goto_d_max": 10.0, "terminate": 0.2})
    assert calibration.goto(5.0) == pytest.approx(0.5) and calibration.terminate == 0.2
    with pytest.raises(ValueError, match="unknown calibration constants"):
        Calibration.from_mapping({"pick_vmax": 0.5})
    with pytest.raises(ValueError, match="must exceed"):
        Calibration(pick_v_min=0.5, pick_v_max=0.5)


def test_malformed_skills_raise(make_world: MakeWorld) -> None:
    world = make_world("table")
    with pytest.raises(AffordanceError, match="unknown family 'fly'"):
        MODEL.affordance(Skill("fly away", "fly"), world)
    with pytest.raises(AffordanceError, match="needs one argument"):
        MODEL.affordance(Skill("pick up", "pick", (), "manipulator"), world)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_affordances_are_probabilities_and_zero_for_impossible_skills(kitchen: Domain, data: st.DataObject) -> None:
    world = kitchen.world(
        {
            "robot": {"at": "table"},
            "drawer": {"open": False},
            "objects": [
                {"id": "coke_1", "label": "coke", "at": "far counter"},
                {"id": "apple_1", "label": "apple", "at": "drawer"},
            ],
        }
    )
    skills = world.admissible_skills()
    for text in data.draw(st.lists(st.sampled_from([s.text for s in skills]), max_size=12)):
        if world.can_apply(text):
            world.apply(text)
    for skill, value in zip(skills, MODEL.evaluate(skills, world), strict=False):
        assert 0.0 <= value <= 1.0
        if skill.family != "terminate" and not world.can_apply(skill):
            assert value == 0.0, f"{skill.text} is impossible here but got {value}"

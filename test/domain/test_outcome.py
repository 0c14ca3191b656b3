"""Reading a skill's outcome back from the world state (llm_planner_ros.domain.outcome), as the planner does
when an
executor died or timed out mid-skill."""

from __future__ import annotations

import pytest
from world_builders import MakeWorld

from llm_planner_ros.domain import HELD, World
from llm_planner_ros.domain.outcome import ReadBack, read_back, shows_effects


def verdict(before: World, after: World, text: str) -> ReadBack:
    return read_back(before, after, before.skill(text))


def test_a_pick_the_world_shows_done_was_applied(make_world: MakeWorld) -> None:
    before = make_world("table", sponge_1="table", apple_1="table")
    after = make_world("table", holding="sponge_1", sponge_1=HELD, apple_1="table")
    assert verdict(before, after, "pick up the sponge") == ReadBack.APPLIED


def test_an_unchanged_world_means_the_skill_did_not_take_effect(make_world: MakeWorld) -> None:
    before = make_world("table", sponge_1="table")
    assert verdict(before, make_world("table", sponge_1="table"), "pick up the sponge") == ReadBack.NOT_APPLIED


@pytest.mark.parametrize(
    ("after", "why"),
    [
        ({"robot_at": "table", "holding": "apple_1", "sponge_1": "table", "apple_1": HELD}, "another object picked"),
        ({"robot_at": "far counter", "sponge_1": "table", "apple_1": "table"}, "the robot moved instead"),
    ],
)
def test_a_world_changed_otherwise_is_unknown(make_world: MakeWorld, after: dict, why: str) -> None:
    before = make_world("table", sponge_1="table", apple_1="table")
    assert verdict(before, make_world(**after), "pick up the sponge") == ReadBack.UNKNOWN, why


def test_navigation_compares_the_place_not_the_visited_history(make_world: MakeWorld) -> None:
    before = make_world("table", coke_1="far counter")
    after = make_world("far counter", coke_1="far counter")  # visited lists only the far counter
    assert after.visited != before.visited
    assert verdict(before, after, "find a coke") == ReadBack.APPLIED
    assert verdict(before, after, "go to the close counter") == ReadBack.UNKNOWN


def test_a_skill_without_visible_effect_counts_as_applied(make_world: MakeWorld) -> None:
    before = make_world("table", coke_1="far counter")
    assert verdict(before, before.copy(), "go to the table") == ReadBack.APPLIED


def test_a_skill_infeasible_before_can_only_be_not_applied_or_unknown(make_world: MakeWorld) -> None:
    before = make_world("table", coke_1="far counter")  # the coke is out of reach
    assert verdict(before, before.copy(), "pick up the coke") == ReadBack.NOT_APPLIED
    held = make_world("table", holding="coke_1", coke_1=HELD)
    assert verdict(before, held, "pick up the coke") == ReadBack.UNKNOWN


def test_drawer_state_is_compared(make_world: MakeWorld) -> None:
    before = make_world("drawers", drawer=False, sponge_1="drawer")
    assert verdict(before, make_world("drawers", drawer=True, sponge_1="drawer"), "open the drawer") == ReadBack.APPLIED
    assert verdict(before, before.copy(), "open the drawer") == ReadBack.NOT_APPLIED


def test_a_put_down_shows_its_effects_only_once_the_object_is_seen_where_it_was_put(make_world: MakeWorld) -> None:
    """The perceived scene lags the robot: after a put down the gripper is empty at once (robot state),
    but the object is seen on the surface only in a later frame. The planner waits for that."""
    before = make_world("user", holding="coke_1", coke_1=HELD)
    skill = before.skill("put down the coke")
    not_seen_yet = make_world("user")
    seen = make_world("user", coke_1="user")
    assert not shows_effects(before, not_seen_yet, skill)
    assert shows_effects(before, seen, skill)


def test_objects_the_skill_does_not_name_do_not_count(make_world: MakeWorld) -> None:
    """A robot that drove to the table sees what is there: that says nothing about the drive."""
    before = make_world("close counter", sponge_1="close counter")
    after = make_world("table", sponge_1="close counter", apple_1="table")
    assert shows_effects(before, after, before.skill("go to the table"))
    assert not shows_effects(before, before, before.skill("go to the table"))

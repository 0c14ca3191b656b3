"""Goal conditions: evaluation of each kind on chosen worlds, and the parts GCR counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from llm_planner_ros.domain import HELD, Domain, World, goal_checks, goal_condition_recall
from llm_planner_ros.domain.conditions import ConditionError, condition_from_yaml

MakeWorld = Callable[..., World]


@pytest.fixture
def world(make_world: MakeWorld) -> World:
    w = make_world("table", coke_1="user", coke_2="user", pepsi_1="user", apple_1="table", drawer=False)
    w.apply("go to the far counter")
    return w


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ({"at": {"label": "coke", "location": "user"}}, True),
        ({"at": {"label": "apple", "location": "user"}}, False),
        ({"at": {"label": ["apple", "pepsi"], "location": "user"}}, True),
        ({"count": {"labels": ["coke"], "location": "user", "min": 2}}, True),
        ({"count": {"labels": ["coke", "apple"], "location": "user", "min": 2, "distinct": True}}, False),
        ({"count": {"labels": ["coke", "pepsi"], "location": "user", "min": 2, "distinct": True}}, True),
        ({"count": {"labels": ["coke", "pepsi"], "location": "user", "min": 4}}, False),
        ({"holding": None}, True),
        ({"holding": "coke"}, False),
        ({"robot_at": "far counter"}, True),
        ({"robot_at": "table"}, False),
        ({"visited": ["table", "far counter"]}, True),
        ({"visited": ["table", "user"]}, False),
        ({"not": {"robot_at": "table"}}, True),
        ({"all": [{"robot_at": "far counter"}, {"holding": None}]}, True),
        ({"all": [{"robot_at": "far counter"}, {"holding": "coke"}]}, False),
        ({"any": [{"robot_at": "table"}, {"holding": None}]}, True),
        ({"any": [{"robot_at": "table"}, {"holding": "coke"}]}, False),
        ({"at": {"label": "coke", "location": "drawer"}}, False),
    ],
)
def test_condition_kinds(kitchen: Domain, world: World, condition: dict[str, Any], holds: bool) -> None:
    assert condition_from_yaml(condition, kitchen.config).holds(world) is holds


def test_held_objects_are_not_placed(kitchen: Domain, make_world: MakeWorld) -> None:
    world = make_world("user", holding="coke_1", coke_1=HELD)
    assert not condition_from_yaml({"at": {"label": "coke", "location": "user"}}, kitchen.config).holds(world)
    assert condition_from_yaml({"holding": ["pepsi", "coke"]}, kitchen.config).holds(world)


def test_goal_checks_flatten_nested_all_and_keep_other_parts_whole(kitchen: Domain, world: World) -> None:
    goal = condition_from_yaml(
        {
            "all": [
                {"at": {"label": "coke", "location": "user"}},
                {"all": [{"holding": "coke"}, {"robot_at": "far counter"}]},
                {"any": [{"robot_at": "table"}, {"holding": None}]},
                {"not": {"at": {"label": "apple", "location": "table"}}},
            ]
        },
        kitchen.config,
    )
    checks = goal_checks(goal, world)
    assert [(c.text, c.holds) for c in checks] == [
        ("at(coke, user)", True),
        ("holding(coke)", False),
        ("robot_at(far counter)", True),
        ("any(robot_at(table), holding(nothing))", True),
        ("not(at(apple, table))", False),
    ]
    assert goal_condition_recall(goal, world) == pytest.approx(3 / 5)
    assert not goal.holds(world)


def test_condition_errors_list_fields(kitchen: Domain) -> None:
    with pytest.raises(ConditionError) as raised:
        condition_from_yaml({"all": [{"at": {"label": "coke"}}, {"visited": []}]}, kitchen.config)
    assert {p.field for p in raised.value.problems} == {"all[0].at.location", "all[1].visited"}

"""The oracle against an exhaustive search on random small scenes and random goals.

The oracle's shortcuts (searching only the objects a goal names, leaving out "find", never moving twice
in a row, the A* estimate) must never change the length of the plan it finds; an estimate that
overshoots, or a shortcut that drops a needed skill, shows up here as a length mismatch.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from oracle_reference import naive_steps

from llm_planner_ros.domain import Domain
from llm_planner_ros.domain.conditions import condition_from_yaml
from llm_planner_ros.domain.oracle import shortest_plan, steps_to_goal

LABELS = ("coke", "pepsi", "apple", "sponge")
PLACES = ("close counter", "far counter", "table", "trash can", "user")
DEPTH = 9

labels = st.sampled_from(LABELS)
label_lists = st.lists(labels, min_size=1, max_size=3, unique=True)
places = st.sampled_from(PLACES)


def leaves(with_drawer: bool) -> st.SearchStrategy[dict[str, Any]]:
    object_places = st.sampled_from(PLACES + (("drawer",) if with_drawer else ()))
    return st.one_of(
        st.builds(
            lambda label, p: {"at": {"label": label, "location": p}}, st.one_of(labels, label_lists), object_places
        ),
        st.builds(
            lambda ls, p, n, d: {
                "count": {"labels": ls, "location": p, "min": min(n, len(ls)) if d else n, "distinct": d}
            },
            label_lists,
            object_places,
            st.integers(1, 2),
            st.booleans(),
        ),
        st.builds(lambda label: {"holding": label}, st.one_of(st.none(), labels)),
        st.builds(lambda p: {"robot_at": p}, places),
        st.builds(lambda ps: {"visited": ps}, st.lists(places, min_size=1, max_size=3, unique=True)),
    )


def goals(with_drawer: bool) -> st.SearchStrategy[dict[str, Any]]:
    leaf = leaves(with_drawer)
    return st.one_of(
        leaf,
        st.builds(lambda cs: {"all": cs}, st.lists(leaf, min_size=2, max_size=3)),
        st.builds(lambda cs: {"any": cs}, st.lists(leaf, min_size=2, max_size=2)),
        st.builds(lambda a, b: {"all": [a, {"not": b}]}, leaf, leaf),
    )


@st.composite
def episodes(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """An initial block with two or three objects (one maybe held, some in a drawer) and a goal."""
    with_drawer = draw(st.booleans())
    object_places = PLACES + (("drawer",) if with_drawer else ())
    chosen = draw(st.lists(labels, min_size=2, max_size=3))
    objects = [
        {"id": f"{label.replace(' ', '_')}_{i}", "label": label, "at": draw(st.sampled_from(object_places))}
        for i, label in enumerate(chosen, start=1)
    ]
    held = draw(st.one_of(st.none(), st.sampled_from(objects)))
    if held is not None:
        held["at"] = "robot"
    robot_places = PLACES + (("drawers",) if with_drawer else ())
    initial: dict[str, Any] = {
        "robot": {"at": draw(st.sampled_from(robot_places)), "holding": held["id"] if held else None},
        "objects": objects,
    }
    if with_drawer:
        initial["drawer"] = {"open": draw(st.booleans())}
    return initial, draw(goals(with_drawer))


# Derandomized so that CI runs the same 60 scenes every time; the examples below are scenes a random
# run once found (each was a real oracle bug) and stay checked for good.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(episodes())
@example(
    (  # "holding anything": the focus must not drop the labels (no label is named)
        {
            "robot": {"at": "close counter", "holding": None},
            "objects": [
                {"id": "coke_1", "label": "coke", "at": "close counter"},
                {"id": "coke_2", "label": "coke", "at": "close counter"},
            ],
        },
        {"all": [{"visited": ["close counter"]}, {"not": {"holding": None}}]},
    )
)
def test_oracle_length_equals_exhaustive_search(
    kitchen: Domain, episode: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    initial, goal_data = episode
    world = kitchen.world(initial)
    goal = condition_from_yaml(goal_data, kitchen.config)
    expected = naive_steps(world, goal, DEPTH)
    assert steps_to_goal(world, goal, max_depth=DEPTH) == expected, (initial, goal_data)
    plan = shortest_plan(world, goal, max_depth=DEPTH + 1)
    if expected is None:
        assert plan is None
        return
    assert plan is not None and len(plan) == expected + 1 and plan[-1].text == "done"
    # With no slack at all the search must still find it: an estimate that overshoots anywhere on the
    # way prunes the only plans that fit.
    assert steps_to_goal(world, goal, max_depth=expected) == expected
    replay = world.copy()
    for skill in plan[:-1]:
        replay.apply(skill)
    assert goal.holds(replay)

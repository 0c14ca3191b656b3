"""The oracle planner on small hand-made worlds: shortest plans, unreachable goals, distances, CLI."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from oracle_reference import naive_steps
from repo_paths import DEV_SUITE

from llm_planner_ros.cli.main import run_command
from llm_planner_ros.domain import Condition, Domain, World, load_episodes
from llm_planner_ros.domain.conditions import condition_from_yaml
from llm_planner_ros.domain.oracle import optimal_next_skills, shortest_plan, steps_to_goal

MakeWorld = Callable[..., World]


@pytest.fixture
def goal(kitchen: Domain) -> Callable[[Any], Condition]:
    """A goal condition from its episode-file form."""
    return lambda data: condition_from_yaml(data, kitchen.config)


def texts(plan: list[Any] | None) -> list[str] | None:
    return None if plan is None else [skill.text for skill in plan]


def test_fetch_plan_is_the_prompt_shaped_shortest_one(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    world = make_world("table", coke_1="far counter", apple_1="table")
    plan = shortest_plan(world, goal({"at": {"label": "coke", "location": "user"}}))
    assert texts(plan) == ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]


def test_goal_that_holds_already_needs_only_done(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    world = make_world("table", apple_1="table")
    condition = goal({"robot_at": "table"})
    assert texts(shortest_plan(world, condition)) == ["done"]
    assert steps_to_goal(world, condition) == 0
    assert texts(optimal_next_skills(world, condition)) == ["done"]


def test_unreachable_goal_gives_none(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    # No pepsi anywhere in the scene: nothing can put one at the user.
    world = make_world("table", coke_1="far counter")
    condition = goal({"at": {"label": "pepsi", "location": "user"}})
    assert shortest_plan(world, condition) is None
    assert steps_to_goal(world, condition) is None
    assert optimal_next_skills(world, condition) == []


def test_contradictory_goal_gives_none(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    world = make_world("table", coke_1="far counter")
    condition = goal({"all": [{"holding": "coke"}, {"holding": None}]})
    assert shortest_plan(world, condition) is None


def test_max_depth_counts_done(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    world = make_world("table", coke_1="far counter")
    condition = goal({"at": {"label": "coke", "location": "user"}})
    assert shortest_plan(world, condition, max_depth=4) is None
    assert len(shortest_plan(world, condition, max_depth=5) or []) == 5
    assert steps_to_goal(world, condition, max_depth=3) is None
    assert steps_to_goal(world, condition, max_depth=4) == 4


def test_optimal_plan_is_shorter_than_the_naive_order(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    """Visit three places, then hand over the sponge: doing the round first and fetching the sponge after
    takes 3 moves + find, pick, bring, put down = 7 skills; picking the sponge up first (it lies where
    the robot stands) and carrying it round takes 6."""
    world = make_world("far counter", sponge_1="far counter", tea_1="table")
    condition = goal(
        {"all": [{"visited": ["trash can", "table", "close counter"]}, {"at": {"label": "sponge", "location": "user"}}]}
    )
    naive = [
        "go to the trash can",
        "go to the table",
        "go to the close counter",
        "find a sponge",
        "pick up the sponge",
        "bring it to you",
        "put down the sponge",
    ]
    check = world.copy()
    for text in naive:
        check.apply(text)
    assert condition.holds(check), "the naive plan must itself be a valid plan"
    plan = shortest_plan(world, condition)
    assert plan is not None and len(plan) - 1 == 6 < len(naive)
    assert plan[0].text == "pick up the sponge"


def test_holding_the_requested_object_shortens_the_plan(
    make_world: MakeWorld, goal: Callable[[Any], Condition]
) -> None:
    world = make_world("table", holding="coke_1", coke_1="robot", coke_2="far counter")
    plan = shortest_plan(world, goal({"at": {"label": "coke", "location": "user"}}))
    assert texts(plan) == ["bring it to you", "put down the coke", "done"]


def test_full_gripper_is_emptied_first(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    world = make_world("close counter", holding="energy_bar_1", energy_bar_1="robot", sponge_1="close counter")
    plan = shortest_plan(world, goal({"at": {"label": "sponge", "location": "user"}}))
    assert texts(plan) == [
        "put down the energy bar",
        "pick up the sponge",
        "bring it to you",
        "put down the sponge",
        "done",
    ]


def test_named_instance_is_fetched_even_when_find_would_stop_elsewhere(
    make_world: MakeWorld, goal: Callable[[Any], Condition]
) -> None:
    # "find a coke" stays at the close counter (the nearest coke); the table's coke needs a "go to".
    world = make_world("close counter", coke_1="table", coke_2="close counter")
    condition = goal(
        {
            "all": [
                {"at": {"label": "coke", "location": "trash can"}},
                {"not": {"at": {"label": "coke", "location": "table"}}},
            ]
        }
    )
    assert texts(shortest_plan(world, condition)) == [
        "go to the table",
        "pick up the coke",
        "go to the trash can",
        "put down the coke",
        "done",
    ]


def test_one_armed_drawer_plan(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    # The drawer opens only with an empty gripper: the apple goes down first.
    world = make_world("drawers", holding="apple_1", drawer=False, apple_1="robot", kettle_chips_1="drawer")
    plan = shortest_plan(world, goal({"at": {"label": "kettle chips", "location": "table"}}))
    assert texts(plan) == [
        "put down the apple",
        "open the drawer",
        "pick up the kettle chips",
        "go to the table",
        "put down the kettle chips",
        "done",
    ]


def test_counting_goal_with_distinct_labels(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    # Two cokes sit together but only one of them counts towards two *different* drinks.
    world = make_world("user", coke_1="far counter", coke_2="far counter", pepsi_1="table", sponge_1="table")
    condition = goal({"count": {"labels": ["coke", "pepsi"], "location": "user", "min": 2, "distinct": True}})
    plan = shortest_plan(world, condition)
    assert plan is not None and len(plan) == 9
    assert naive_steps(world, condition, 8) == 8
    picked = [skill.argument for skill in plan if skill.text.startswith("pick up")]
    assert sorted(picked) == ["coke", "pepsi"]


@pytest.mark.parametrize(
    "scene, data",
    [
        (
            {"robot_at": "far counter", "apple_1": "table", "energy_bar_1": "close counter"},
            {
                "all": [
                    {"at": {"label": "apple", "location": "close counter"}},
                    {"at": {"label": "energy bar", "location": "table"}},
                ]
            },
        ),
        (
            {"robot_at": "trash can", "holding": "7up_1", "7up_1": "robot", "lime_soda_1": "table"},
            {
                "all": [
                    {"at": {"label": "lime soda", "location": "trash can"}},
                    {"not": {"at": {"label": "7up", "location": "trash can"}}},
                ]
            },
        ),
        (
            {"robot_at": "table", "drawer": False, "pepsi_1": "far counter", "coke_1": "table"},
            {"at": {"label": "pepsi", "location": "drawer"}},
        ),
        (
            {"robot_at": "drawers", "drawer": False, "pepsi_1": "drawers"},
            {"at": {"label": "pepsi", "location": "drawer"}},
        ),
        (
            {"robot_at": "user", "coke_1": "table"},
            {"all": [{"visited": ["close counter", "far counter"]}, {"holding": "coke"}]},
        ),
        (
            {"robot_at": "table", "holding": "tea_1", "tea_1": "robot", "apple_1": "table"},
            {"all": [{"holding": None}, {"robot_at": "user"}]},
        ),
    ],
)
def test_lengths_agree_with_an_exhaustive_search(
    make_world: MakeWorld, goal: Callable[[Any], Condition], scene: dict[str, Any], data: Any
) -> None:
    scene = dict(scene)
    world = make_world(scene.pop("robot_at"), scene.pop("holding", None), scene.pop("drawer", None), **scene)
    condition = goal(data)
    distance = steps_to_goal(world, condition, max_depth=12)
    assert distance is not None
    assert naive_steps(world, condition, distance) == distance
    assert steps_to_goal(world, condition, max_depth=distance) == distance, "found only with slack"


def test_search_leaves_the_given_world_unchanged(make_world: MakeWorld, goal: Callable[[Any], Condition]) -> None:
    world = make_world("table", coke_1="far counter")
    before = (world.to_initial(), world.visited)
    shortest_plan(world, goal({"at": {"label": "coke", "location": "user"}}))
    optimal_next_skills(world, goal({"at": {"label": "coke", "location": "user"}}))
    assert (world.to_initial(), world.visited) == before


def test_steps_to_goal_falls_by_one_along_the_plan_and_not_for_a_detour(
    make_world: MakeWorld, goal: Callable[[Any], Condition]
) -> None:
    world = make_world("close counter", coke_1="far counter", apple_1="table")
    condition = goal({"at": {"label": "coke", "location": "user"}})
    plan = shortest_plan(world, condition)
    assert plan is not None
    distances = []
    state = world.copy()
    for skill in plan[:-1]:
        distances.append(steps_to_goal(state, condition))
        state.apply(skill)
    assert distances == [4, 3, 2, 1]
    assert steps_to_goal(state, condition) == 0
    detour = world.copy()
    detour.apply("go to the trash can")
    assert steps_to_goal(detour, condition) == 4


def test_optimal_next_skills_lists_every_first_step_of_a_shortest_plan(
    make_world: MakeWorld, goal: Callable[[Any], Condition]
) -> None:
    world = make_world("close counter", coke_1="far counter", apple_1="table")
    condition = goal({"at": {"label": "coke", "location": "user"}})
    assert texts(optimal_next_skills(world, condition)) == ["find a coke", "go to the far counter"]


def test_episode_defaults_goal_and_max_steps(kitchen: Domain, tmp_path: Path) -> None:
    path = _episode_file(tmp_path, kitchen, max_steps=4)
    episode = load_episodes(path, kitchen).episode("fetch")
    assert shortest_plan(episode, kitchen=kitchen) is None  # 5 skills needed, max_steps 4
    assert len(shortest_plan(episode, kitchen=kitchen, max_depth=5) or []) == 5


def test_world_without_goal_is_refused_with_the_fix(make_world: MakeWorld) -> None:
    with pytest.raises(TypeError, match="needs a goal"):
        shortest_plan(make_world("table"))


@dataclass(frozen=True)
class DrawerIsOpen(Condition):
    """A condition kind the oracle does not know: it must search everything and still be right."""

    def holds(self, world: World) -> bool:
        return world.drawer_open is True


def test_unknown_condition_kind_is_searched_without_shortcuts(make_world: MakeWorld) -> None:
    world = make_world("close counter", holding="sponge_1", drawer=False, sponge_1="robot", coke_1="table")
    plan = texts(shortest_plan(world, DrawerIsOpen()))
    # Put the sponge down and go to the drawers, in either order, then open it.
    assert plan is not None and len(plan) == 4 and plan[2:] == ["open the drawer", "done"]
    assert sorted(plan[:2]) == ["go to the drawers", "put down the sponge"]


def test_command_line_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(["oracle", str(DEV_SUITE)]) == 0
    out = capsys.readouterr().out
    assert "nl_single_primitive" in out and "long_horizon" in out and "solved in" in out


def test_command_line_reports_bad_episodes(kitchen: Domain, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _episode_file(tmp_path, kitchen, max_steps=4)
    assert run_command(["oracle", str(path)]) == 1
    err = capsys.readouterr().err
    assert "episode fetch" in err and "raise max_steps" in err
    already = tmp_path / "already.yaml"
    data = yaml.safe_load(path.read_text())
    data["episodes"][0]["goal"] = {"robot_at": "table"}
    data["episodes"][0]["max_steps"] = 30
    already.write_text(yaml.safe_dump(data))
    assert run_command(["oracle", str(already)]) == 1
    assert "holds already" in capsys.readouterr().err


def test_command_line_refuses_a_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("world: saycan_kitchen\nepisodes: [{id: x}]\n")
    assert run_command(["oracle", str(broken)]) == 2
    assert "cannot check" in capsys.readouterr().err
    assert run_command(["oracle", str(tmp_path / "missing.yaml")]) == 2


def _episode_file(tmp_path: Path, kitchen: Domain, max_steps: int) -> Path:
    """A one-episode file: fetch a coke from the far counter (5 skills with done)."""
    data = {
        "world": kitchen.config.world,
        "episodes": [
            {
                "id": "fetch",
                "family": "test",
                "instruction": "Bring me the coke.",
                "max_steps": max_steps,
                "initial": {
                    "robot": {"at": "table", "holding": None},
                    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
                },
                "goal": {"at": {"label": "coke", "location": "user"}},
            }
        ],
    }
    path = tmp_path / "episodes.yaml"
    path.write_text(yaml.safe_dump(data))
    return path

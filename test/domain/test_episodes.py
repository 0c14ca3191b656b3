"""Episode files: the valid sample loads as written, every malformed file is rejected usefully."""

from __future__ import annotations

import re

import pytest
import yaml
from data_files import SAMPLE_EPISODES, Expectation, bad_episode_expectations

from llm_planner_ros.domain import Domain, EpisodeFileError, load_episodes
from llm_planner_ros.domain.episodes import DEFAULT_MAX_STEPS


def test_sample_file_loads_with_every_field(kitchen: Domain) -> None:
    episodes = load_episodes(SAMPLE_EPISODES, kitchen)
    raw = yaml.safe_load(SAMPLE_EPISODES.read_text())["episodes"]
    assert [e.id for e in episodes] == [item["id"] for item in raw]
    for episode, item in zip(episodes, raw, strict=False):
        assert episode.family == item["family"]
        assert episode.instruction == item["instruction"]
        assert episode.max_steps == item.get("max_steps", DEFAULT_MAX_STEPS)
        expected_initial = dict(item["initial"])
        expected_initial["robot"] = {"holding": None, **expected_initial["robot"]}
        assert episode.initial.to_initial() == expected_initial


def test_episode_lookup_names_known_ids(kitchen: Domain) -> None:
    episodes = load_episodes(SAMPLE_EPISODES, kitchen)
    assert episodes.episode("tour").instruction.startswith("Visit")
    with pytest.raises(KeyError, match="nl-verb-03"):
        episodes.episode("no-such-episode")


def test_initial_state_of_a_held_object(kitchen: Domain) -> None:
    world = load_episodes(SAMPLE_EPISODES, kitchen).episode("already-holding").world(kitchen)
    assert world.holding is not None and world.holding.id == "sponge_1"
    assert world.can_apply("put down the sponge")
    assert not world.can_apply("pick up the apple")


@pytest.mark.parametrize("expected", bad_episode_expectations(), ids=lambda e: e.path.stem)
def test_malformed_file_is_rejected_naming_file_episode_and_field(kitchen: Domain, expected: Expectation) -> None:
    with pytest.raises(EpisodeFileError) as raised:
        load_episodes(expected.path, kitchen)
    error = raised.value
    assert str(error).startswith(str(expected.path))
    matching = [p for p in error.problems if p.field == expected.field and expected.message in p.message]
    assert matching, f"no problem at {expected.field!r} saying {expected.message!r} in:\n{error}"
    if expected.episode is not None:
        assert matching[0].episode is not None and repr(expected.episode) in matching[0].episode
        assert repr(expected.episode) in str(error)
    # The line named is the field's own line: its key's, or its list item's (a "-" line or a flow list).
    line = expected.path.read_text().splitlines()[matching[0].line - 1]
    last = [part for part in re.split(r"[.\[\]]", expected.field) if part][-1] if expected.field else ""
    if last.isdigit():
        assert line.lstrip().startswith("-") or "[" in line, (matching[0], line)
    elif "missing" not in expected.message:
        assert last in line, (matching[0], line)


def test_bad_set_covers_the_kinds_of_mistake_the_format_forbids() -> None:
    messages = " ".join(e.message for e in bad_episode_expectations())
    for kind in (
        "unknown key",
        "missing",
        "unknown label",
        "unknown place",
        "duplicate episode id",
        "duplicate object id",
        "at: robot",
        "unknown condition",
        "not valid YAML",
    ):
        assert kind in messages


def test_every_problem_of_a_file_is_reported_at_once(kitchen: Domain, tmp_path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "world": "saycan_kitchen",
                "episodes": [
                    {
                        "id": "many",
                        "family": "x",
                        "instruction": "y",
                        "initial": {
                            "robot": {"at": "moon", "holding": None},
                            "objects": [{"id": "b_1", "label": "banana", "at": "table"}],
                        },
                        "goal": {"robot_at": "mars"},
                    }
                ],
            }
        )
    )
    with pytest.raises(EpisodeFileError) as raised:
        load_episodes(path, kitchen)
    fields = {p.field for p in raised.value.problems}
    assert fields == {"initial.robot.at", "initial.objects[0].label", "goal.robot_at"}


def test_lenient_shapes_the_format_allows(kitchen: Domain, tmp_path) -> None:
    """Integer ids, a single label where a list fits, defaults for max_steps, min and distinct."""
    path = tmp_path / "lenient.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "world": "saycan_kitchen",
                "episodes": [
                    {
                        "id": 7,
                        "family": "x",
                        "instruction": "y",
                        "initial": {"robot": {"at": "table"}, "objects": [{"id": 1, "label": "coke", "at": "table"}]},
                        "goal": {"all": [{"count": {"labels": "coke", "location": "table"}}, {"visited": "table"}]},
                    }
                ],
            }
        )
    )
    episode = load_episodes(path, kitchen).episode("7")
    world = episode.world(kitchen)
    assert episode.max_steps == DEFAULT_MAX_STEPS
    assert episode.goal_holds(world)


def test_blocked_places_load_and_the_symbolic_world_ignores_them(kitchen: Domain, tmp_path) -> None:
    """``blocked`` is physical (the physics kitchen puts a box there): it round-trips through the scene,
    and the symbolic world, which has no floor, still lets the robot go there."""
    initial = {
        "robot": {"at": "table", "holding": None},
        "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
        "blocked": ["far counter", "close counter"],
    }
    path = tmp_path / "blocked.yaml"
    episode = {"id": "b", "family": "x", "instruction": "y", "initial": initial, "goal": {"robot_at": "far counter"}}
    path.write_text(yaml.safe_dump({"world": "saycan_kitchen", "episodes": [episode]}))
    loaded = load_episodes(path, kitchen).episode("b")
    assert loaded.initial.blocked == ("far counter", "close counter")
    assert loaded.initial.to_initial() == initial
    assert loaded.world(kitchen).can_apply("go to the far counter")


def test_lying_objects_load_and_the_symbolic_world_ignores_it(kitchen: Domain, tmp_path) -> None:
    """``lying`` is physical (the physics kitchen lays the object on its side): it round-trips through the
    scene, and the symbolic world picks a lying coke as any other."""
    initial = {
        "robot": {"at": "table", "holding": None},
        "objects": [
            {"id": "coke_1", "label": "coke", "at": "table", "lying": 45.0},
            {"id": "coke_2", "label": "coke", "at": "far counter"},
        ],
    }
    path = tmp_path / "lying.yaml"
    episode = {"id": "l", "family": "x", "instruction": "y", "initial": initial, "goal": {"holding": "coke"}}
    path.write_text(yaml.safe_dump({"world": "saycan_kitchen", "episodes": [episode]}))
    loaded = load_episodes(path, kitchen).episode("l")
    assert [o.lying_deg for o in loaded.initial.objects] == [45.0, None]
    assert loaded.initial.to_initial() == initial
    world = loaded.world(kitchen)
    assert world.can_apply("pick up the coke")
    # The symbolic state does not keep it: as the physics kitchen's ground truth reports the scene.
    assert all(o.lying_deg is None for o in world.objects) and "lying" not in str(world.to_initial())

"""The BabyAI pickup world: every oracle plan of the three splits runs, single-step corruptions do not."""

from __future__ import annotations

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.babyai_domain.episodes import EpisodeFormatError, load_episodes, parse_episode
from llm_planner_ros.babyai_domain.world import (
    COLOURS,
    DONE,
    BabyAIWorld,
    WorldTextError,
    admissible_actions,
    judged_along_plan,
    run_plan_text,
    world_for_episode,
)

DATA = REPO_ROOT / "benchmarks" / "babyai"
SPLITS = ("train", "test-executable", "test-optimal")
EPISODES = {split: list(load_episodes(DATA / f"{split}.txt")) for split in SPLITS}


def test_splits_have_their_sizes() -> None:
    assert [len(EPISODES[s]) for s in SPLITS] == [399, 49, 49]


@pytest.mark.parametrize("split", SPLITS)
def test_every_oracle_plan_reaches_the_goal_with_the_recorded_observations(split: str) -> None:
    for episode in EPISODES[split]:
        world = world_for_episode(episode)
        assert world.describe() == episode.initial_state.strip()
        success, outcomes = run_plan_text(world, episode.plan)
        assert success, (episode.id, outcomes)
        assert tuple(o.message for o in outcomes[:-1]) == episode.observations, episode.id


@pytest.mark.parametrize("split", SPLITS)
def test_every_single_step_deletion_is_rejected(split: str) -> None:
    for episode in EPISODES[split]:
        world = world_for_episode(episode)
        for index in range(len(episode.plan)):
            corrupted = episode.plan[:index] + episode.plan[index + 1 :]
            assert not run_plan_text(world, corrupted)[0], (episode.id, index)


@pytest.mark.parametrize("split", SPLITS)
def test_a_toggle_with_another_colour_or_a_premature_goal_pick_is_rejected(split: str) -> None:
    for episode in EPISODES[split]:
        world = world_for_episode(episode)
        for index, action in enumerate(episode.plan):
            if action.startswith("toggle "):
                colour = action.split()[1]
                other = next(c for c in COLOURS if c != colour)
                wrong = (*episode.plan[:index], f"toggle {other} door", *episode.plan[index + 1 :])
                success, outcomes = run_plan_text(world, wrong)
                assert not success and "needs the" in outcomes[-1].message
        # The goal object is picked last; picking it first fails (behind a locked door or hands full
        # only after the first step, so it is the very first action here).
        early = (episode.plan[-2], *episode.plan)
        if len(episode.plan) > 2:
            assert not run_plan_text(world, early)[0], episode.id


def test_rules_one_object_in_hand_blocking_object_and_done_without_goal() -> None:
    world = BabyAIWorld.from_text(
        "pick up the box.",
        "Room 1 has red ball, agent, blue key. Room 2 has purple box. "
        "The door connecting Room 1 and Room 2 is locked. The red ball is blocking the door.",
    )
    world.doors[0].colour = "blue"
    assert world.apply("pick up blue key").success
    assert world.check("pick up red ball") == "hands full: holding the blue key"
    assert "blocking the door" in world.apply("toggle blue door").message
    assert world.apply("drop ball in void").message == "not holding a ball"
    for action in ("drop key in void", "pick up red ball", "drop ball in void", "pick up blue key"):
        assert world.apply(action).success, action
    assert world.apply("toggle blue door").message == "blue door unlocked"
    assert "no locked blue door" in world.apply("toggle blue door").message
    assert world.apply("drop key in void").success
    probe = world.copy()
    assert probe.apply(DONE).message == "done without the goal object" and not probe.succeeded
    assert world.apply("pick up purple box").success and world.apply(DONE).message == "goal reached"
    assert world.succeeded and "episode is over" in world.apply("drop box in void").message


def test_admissible_actions_cover_every_oracle_action() -> None:
    for episode in EPISODES["train"]:
        vocabulary = admissible_actions(world_for_episode(episode))
        assert set(episode.plan) <= set(vocabulary), episode.id
        assert vocabulary[-1] == DONE


def test_judged_actions_allow_each_oracle_step_and_reject_the_far_rooms_key() -> None:
    three_rooms = next(e for e in EPISODES["train"] if e.id == "seed-1")
    judged = judged_along_plan(three_rooms)
    assert all(step in allowed for step, (allowed, _) in zip(three_rooms.plan, judged, strict=True))
    allowed, rejected = judged[0]
    assert allowed == ["pick up yellow key", DONE]
    assert "pick up red key" in rejected and "pick up green ball" in rejected and "drop key in void" in rejected
    assert not set(allowed) & set(rejected)
    # once the yellow door is open and the key dropped, the red key of Room 3 can be picked up
    assert "pick up red key" in judged[3][0]


def test_malformed_text_is_refused_with_the_part_quoted() -> None:
    with pytest.raises(WorldTextError, match="cannot read 'Room one"):
        BabyAIWorld.from_text("pick up the ball.", "Room one has agent.")
    with pytest.raises(WorldTextError, match="goal 'fetch the ball'"):
        BabyAIWorld.from_text("fetch the ball", "Room 1 has agent.")
    with pytest.raises(EpisodeFormatError, match="step 2 out of order"):
        parse_episode("[Seed] 1\n[Goal] pick up the ball.\n[Initial State] Room 1 has agent.\n[Step 2] done picking up")


def test_a_door_colour_named_in_the_initial_state_is_known_from_the_start_and_kept_in_the_text() -> None:
    """The held-out generalisation split names a locked door's colour; the training splits never do."""
    [episode, *_] = load_episodes(DATA / "named-doors.txt")
    world = world_for_episode(episode)
    assert [(door.colour, door.named) for door in world.doors] == [("yellow", True)]
    assert "The yellow door connecting Room 1 and Room 2 is locked." in world.describe()
    assert world.check("toggle blue door") is not None
    for action in episode.plan:
        assert world.apply(action).success, action
    assert world.succeeded


def test_a_colour_learned_from_the_oracle_plan_is_never_shown() -> None:
    episode = EPISODES["test-executable"][0]
    world = world_for_episode(episode)
    assert any(door.colour for door in world.doors) and not any(door.named for door in world.doors)
    assert "The door connecting Room 1 and Room 2 is locked." in world.describe()

"""BabyAI episodes rebuilt in minigrid: the layout is the episode's, minigrid's BabyAI bot runs the oracle
plan, and every single-step corruption fails at the step the text world rejects; the bench as a user runs it."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.babyai_domain.episodes import load_episodes
from llm_planner_ros.babyai_domain.minigrid_replay import (
    corrupted_plans,
    grid_layout,
    layout_differences,
    rebuild,
    replay_plan,
    text_failed_at,
)
from llm_planner_ros.processes import entry_point

SPLIT = REPO_ROOT / "benchmarks" / "babyai" / "test-executable.txt"
EPISODES = {episode.id: episode for episode in load_episodes(SPLIT)}
# One episode of each level: UnlockToUnlock, UnlockPickup, BlockedUnlockPickup.
SAMPLE = ("seed-451", "seed-452", "seed-462")


@pytest.mark.parametrize("episode_id", SAMPLE)
def test_the_seed_rebuilds_the_episode_layout_and_the_bot_runs_the_oracle_plan(episode_id: str) -> None:
    episode = EPISODES[episode_id]
    env = rebuild(episode)
    assert layout_differences(episode, env) == []
    replay = replay_plan(env, episode.plan)
    assert replay.success, replay.steps
    assert [s.action for s in replay.steps] == list(episode.plan)
    assert all(s.moves > 0 for s in replay.steps if s.action.startswith("pick up"))
    assert env.carrying is not None and f"{env.carrying.color} {env.carrying.type}" in episode.plan[-2]


def test_another_seed_gives_a_layout_the_check_tells_apart() -> None:
    episode = EPISODES["seed-451"]
    other = rebuild(replace(episode, seed=episode.seed + 1))
    assert layout_differences(episode, other), grid_layout(other)


@pytest.mark.parametrize("episode_id", SAMPLE)
def test_every_single_step_corruption_fails_in_minigrid_where_the_text_world_rejects_it(episode_id: str) -> None:
    episode = EPISODES[episode_id]
    variants = corrupted_plans(episode.plan)
    assert len(variants) == len(episode.plan) + sum(a.startswith("toggle ") for a in episode.plan)
    for label, plan in variants:
        replay = replay_plan(rebuild(episode), plan)
        assert not replay.success, (label, replay.steps)
        assert replay.failed_at == text_failed_at(episode, plan), (label, replay.steps)


def test_the_bot_is_not_allowed_to_move_the_blocking_ball_itself() -> None:
    episode = EPISODES["seed-462"]
    assert episode.plan[:2] == ("pick up red ball", "drop ball in void")
    replay = replay_plan(rebuild(episode), episode.plan[2:])
    assert not replay.success
    assert replay.steps[-1].action.startswith("toggle ") and "the bot would first" in replay.steps[-1].message


@pytest.mark.timeout(120)
def test_bench_babyai_minigrid_reports_agreement_and_replays_recorded_plans(tmp_path: Path) -> None:
    oracle = EPISODES["seed-452"].plan
    recorded = {
        "split": str(SPLIT),
        "cells": [
            {
                "strategy": "greedy_action",
                "score": "say",
                "episodes": [
                    {"id": "seed-452", "plan": list(oracle), "success": True},
                    {"id": "seed-453", "plan": list(oracle), "success": False},  # seed-452's plan: other colours
                ],
            }
        ],
    }
    plans, out = tmp_path / "recorded.json", tmp_path / "minigrid.json"
    plans.write_text(json.dumps(recorded))
    argv = [entry_point("llm-planner"), "bench", "babyai-minigrid", "--split", str(SPLIT), "--limit", "3"]
    done = subprocess.run(
        [*argv, "--plans", str(plans), "--json", str(out)], capture_output=True, text=True, timeout=110, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    summary = report["splits"][str(SPLIT)]["summary"]
    assert summary["episodes"] == 3 and summary["layout_reproduced"] == 1.0
    assert summary["oracle_success_minigrid"] == 1.0
    assert summary["corrupted"] == 8 + 2 + 5 + 1 + 5 + 1 and summary["corrupted_minigrid_success"] == 0
    assert summary["corrupted_verdict_agreement"] == 1.0 and summary["corrupted_same_failing_step"] == 1.0
    (cell,) = report["recorded_plans"][str(plans)]
    assert cell["minigrid_success"] == 0.5 and cell["plans_verdict_agreement"] == 1.0
    assert "verdict agreement 1.000" in done.stdout

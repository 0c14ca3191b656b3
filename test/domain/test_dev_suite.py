"""The development suite domains/saycan_kitchen/dev.yaml: loads, covers the families, and every episode is fair
(its goal is not met at the start and the oracle reaches it within max_steps)."""

from __future__ import annotations

import re
import time
from collections import Counter

import pytest
import yaml
from oracle_reference import naive_steps
from repo_paths import DEV_SUITE

from llm_planner_ros.domain import Domain, Episode, EpisodeFile
from llm_planner_ros.domain.oracle import GoalFocus, check_episode, shortest_plan
from llm_planner_ros.paths import default_domain

PAPER_FAMILIES = (
    "nl_single_primitive",
    "nl_nouns",
    "nl_verbs",
    "structured_language",
    "embodiment",
    "crowd_sourced",
    "long_horizon",
)
EPISODE_IDS = [episode["id"] for episode in yaml.safe_load(DEV_SUITE.read_text())["episodes"]]


@pytest.fixture(params=EPISODE_IDS)
def episode(request: pytest.FixtureRequest, dev_suite: EpisodeFile) -> Episode:
    return dev_suite.episode(request.param)


def test_suite_size_and_family_coverage(dev_suite: EpisodeFile) -> None:
    families = Counter(episode.family for episode in dev_suite)
    assert len(dev_suite) >= 70
    for family in PAPER_FAMILIES:
        assert families[family] >= 10, f"{family} has {families[family]} episodes"
    assert families["drawer"] >= 3
    assert families["multilingual"] >= 3
    assert set(families) == {*PAPER_FAMILIES, "drawer", "multilingual"}, "a misspelled family name"


def test_episode_is_fair(episode: Episode, kitchen: Domain) -> None:
    check = check_episode(episode, kitchen)
    assert check.ok, check.problems
    assert check.plan is not None and len(check.plan) <= episode.max_steps


def test_oracle_plan_achieves_the_goal_on_the_episode_world(episode: Episode, kitchen: Domain) -> None:
    plan = shortest_plan(episode, kitchen=kitchen)
    assert plan is not None
    world = episode.world(kitchen)
    for skill in plan[:-1]:
        world.apply(skill)
    assert plan[-1].text == "done"
    assert episode.goal_holds(world)
    # A budget of exactly the plan's length still finds it (the search's estimate never overshoots).
    assert shortest_plan(episode, kitchen=kitchen, max_depth=len(plan)) is not None


def test_no_two_episodes_share_a_scene_or_an_instruction(dev_suite: EpisodeFile) -> None:
    scenes = Counter(repr(episode.initial) for episode in dev_suite)
    assert [scene for scene, n in scenes.items() if n > 1] == []
    instructions = Counter(_normalized(episode.instruction) for episode in dev_suite)
    assert [text for text, n in instructions.items() if n > 1] == []


def test_instructions_are_not_prompt_or_retrieval_examples(dev_suite: EpisodeFile) -> None:
    # The planners' example files (the domain folder's examples/*.yaml) are what they retrieve or prompt
    # with; a dev instruction that equals one of them would measure memory, not planning.
    examples = set()
    for path in sorted((default_domain() / "examples").glob("*.yaml")):
        examples |= {_normalized(task) for task in _tasks(yaml.safe_load(path.read_text()))}
    assert examples, f"no example files found in {default_domain() / 'examples'}: the check would be empty"
    assert [e.id for e in dev_suite if _normalized(e.instruction) in examples] == []


def test_single_primitive_episodes_need_exactly_one_skill(dev_suite: EpisodeFile, kitchen: Domain) -> None:
    for episode in _family(dev_suite, "nl_single_primitive"):
        plan = shortest_plan(episode, kitchen=kitchen)
        assert plan is not None and len(plan) == 2, f"{episode.id}: {plan}"


def test_long_horizon_episodes_are_long(dev_suite: EpisodeFile, kitchen: Domain) -> None:
    lengths = {e.id: len(shortest_plan(e, kitchen=kitchen) or []) for e in _family(dev_suite, "long_horizon")}
    assert all(n >= 5 for n in lengths.values()), lengths
    assert sum(n >= 10 for n in lengths.values()) >= 8, lengths


def test_embodiment_episodes_start_mid_task(dev_suite: EpisodeFile, kitchen: Domain) -> None:
    """Embodiment scenes put the robot where its state matters: holding something, or standing at an
    object the goal names."""
    for episode in _family(dev_suite, "embodiment"):
        scene = episode.initial
        here = {obj.label for obj in scene.objects if obj.at == scene.robot_at}
        goal_labels = GoalFocus.of(episode.goal).labels or frozenset()
        assert scene.holding is not None or here & goal_labels, episode.id


def test_drawer_episodes_have_the_drawer_and_others_do_not(dev_suite: EpisodeFile) -> None:
    for episode in dev_suite:
        assert episode.initial.has_drawer == (episode.family == "drawer"), episode.id


def test_multilingual_instructions_are_not_english(dev_suite: EpisodeFile) -> None:
    english = {"the", "put", "me", "please", "and", "to", "with"}
    for episode in _family(dev_suite, "multilingual"):
        words = set(re.findall(r"[a-z]+", episode.instruction.lower()))
        assert not words & english, episode.id


def test_oracle_plans_are_shortest_by_naive_search(dev_suite: EpisodeFile, kitchen: Domain) -> None:
    """Agreement with an exhaustive search on every episode whose plan is short enough for it to be
    cheap (the long ones agree too; that check takes half a minute and is not run here)."""
    checked = 0
    for episode in dev_suite:
        plan = shortest_plan(episode, kitchen=kitchen)
        assert plan is not None
        if len(plan) - 1 <= 6:
            assert naive_steps(episode.world(kitchen), episode.goal, len(plan) - 1) == len(plan) - 1, episode.id
            checked += 1
    assert checked >= 60


def test_whole_suite_is_solved_quickly(dev_suite: EpisodeFile, kitchen: Domain) -> None:
    began = time.perf_counter()
    for episode in dev_suite:
        shortest_plan(episode, kitchen=kitchen)
    # About 0.3 s on one core; the bound leaves room for a busy shared machine.
    assert time.perf_counter() - began < 5.0


def _family(suite: EpisodeFile, family: str) -> list[Episode]:
    return [episode for episode in suite if episode.family == family]


def _normalized(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _tasks(data: object) -> list[str]:
    """Every `task:` string anywhere in a parsed example file."""
    if isinstance(data, dict):
        found = [data["task"]] if isinstance(data.get("task"), str) else []
        return found + [task for value in data.values() for task in _tasks(value)]
    if isinstance(data, list):
        return [task for item in data for task in _tasks(item)]
    return []

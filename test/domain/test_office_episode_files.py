"""The shipped office's three episode files (train.yaml builds its bank, dev.yaml is what its options and
training are chosen on, episodes.yaml is measured once): each loads, every episode has a plan within its
max_steps, and no request appears in two of them."""

from __future__ import annotations

import pytest
from office_copy import OFFICE

from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.oracle import shortest_plan
from llm_planner_ros.planning.domain_tasks import normalized

FILES = ("train.yaml", "dev.yaml", "episodes.yaml")


@pytest.mark.parametrize("name", FILES)
def test_every_episode_of_the_file_has_a_plan_within_its_steps(name: str) -> None:
    office = load_domain(OFFICE)
    episodes = load_episodes(OFFICE / name, office)
    assert len(episodes) >= 24
    unsolved = [episode.id for episode in episodes if shortest_plan(episode, kitchen=office) is None]
    assert not unsolved, f"{name}: no plan within max_steps for {unsolved}"


def test_no_request_is_in_two_files() -> None:
    office = load_domain(OFFICE)
    requests = {name: {normalized(e.instruction) for e in load_episodes(OFFICE / name, office)} for name in FILES}
    for index, first in enumerate(FILES):
        for second in FILES[index + 1 :]:
            assert not requests[first] & requests[second], (first, second, requests[first] & requests[second])

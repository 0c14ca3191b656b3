"""Fixtures of the oracle tests: the dev suite (the kitchen and make_world come from test/conftest.py)."""

from __future__ import annotations

import pytest
from repo_paths import DEV_SUITE

from llm_planner_ros.domain import Domain, EpisodeFile, load_episodes


@pytest.fixture(scope="session")
def dev_suite(kitchen: Domain) -> EpisodeFile:
    return load_episodes(DEV_SUITE, kitchen)

"""Fixtures of the ProgPrompt tests: a coke scene and its program vocabulary."""

from __future__ import annotations

import pytest
from world_builders import MakeWorld, vocabulary_of

from llm_planner_ros.domain import World
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary


@pytest.fixture
def coke_world(make_world: MakeWorld) -> World:
    return make_world("table", coke_1="far counter", apple_1="table", sponge_1="close counter")


@pytest.fixture
def vocabulary(coke_world: World) -> Vocabulary:
    return vocabulary_of(coke_world)

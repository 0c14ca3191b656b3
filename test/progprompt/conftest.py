"""Fixtures of the ProgPrompt tests: the configured kitchen, compact scenes, and their program vocabulary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kitchen_sim import Kitchen, World, load_kitchen
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary

MakeWorld = Callable[..., World]


@pytest.fixture(scope="session")
def kitchen() -> Kitchen:
    return load_kitchen()


@pytest.fixture
def make_world(kitchen: Kitchen) -> MakeWorld:
    """A world from a compact scene: make_world("table", coke_1="far counter", holding=None, drawer=None)."""

    def make(robot_at: str, holding: str | None = None, drawer: bool | None = None, **objects: str) -> World:
        initial: dict[str, Any] = {
            "robot": {"at": robot_at, "holding": holding},
            "objects": [{"id": oid, "label": oid.rsplit("_", 1)[0].replace("_", " "), "at": at}
                        for oid, at in objects.items()],
        }
        if drawer is not None:
            initial["drawer"] = {"open": drawer}
        return kitchen.world(initial)

    return make


def vocabulary_of(world: World) -> Vocabulary:
    """The vocabulary a program is validated against in ``world`` (its objects: the labels present)."""
    return Vocabulary.of_scene(world.admissible_skills(), world, sorted({obj.label for obj in world.objects}))


@pytest.fixture
def coke_world(make_world: MakeWorld) -> World:
    return make_world("table", coke_1="far counter", apple_1="table", sponge_1="close counter")


@pytest.fixture
def vocabulary(coke_world: World) -> Vocabulary:
    return vocabulary_of(coke_world)

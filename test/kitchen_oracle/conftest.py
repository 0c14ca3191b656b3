"""Fixtures of the oracle tests: the configured kitchen, compact hand-made worlds, the dev suite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kitchen_sim import EpisodeFile, Kitchen, World, load_episodes, load_kitchen

from .suite import DEV_SUITE


@pytest.fixture(scope="session")
def kitchen() -> Kitchen:
    return load_kitchen()


@pytest.fixture(scope="session")
def dev_suite(kitchen: Kitchen) -> EpisodeFile:
    return load_episodes(DEV_SUITE, kitchen)


@pytest.fixture
def make_world(kitchen: Kitchen) -> Callable[..., World]:
    """A world from a compact scene: make_world("table", coke_1="far counter", holding=None, drawer=None).

    Object ids follow the episode-file convention, so the label is the id without its number.
    """

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

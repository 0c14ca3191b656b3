"""Fixtures of the kitchen tests: the configured kitchen and scenes written in the episode format."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kitchen_sim import Kitchen, World, load_kitchen


@pytest.fixture(scope="session")
def kitchen() -> Kitchen:
    return load_kitchen()


@pytest.fixture
def make_world(kitchen: Kitchen) -> Callable[..., World]:
    """A world from a compact scene: make_world("table", coke_1="far counter", holding=None, drawer=None)."""

    def make(robot_at: str, holding: str | None = None, drawer: bool | None = None, **objects: str) -> World:
        initial: dict[str, Any] = {
            "robot": {"at": robot_at, "holding": holding},
            "objects": [{"id": oid, "label": label_of(oid), "at": at} for oid, at in objects.items()],
        }
        if drawer is not None:
            initial["drawer"] = {"open": drawer}
        return kitchen.world(initial)

    return make


def label_of(object_id: str) -> str:
    """coke_1 -> coke, kettle_chips_2 -> kettle chips (ids in tests follow the episode-file convention)."""
    return object_id.rsplit("_", 1)[0].replace("_", " ")

"""Fixtures of the generative-planner tests: the kitchen, compact scenes, and the embedded MiniLM encoder."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kitchen_sim import Kitchen, World, load_kitchen
from llm_planner_ros.llm.base import Embedder

sys.path.insert(0, str(Path(__file__).parent))

MakeWorld = Callable[..., World]


@pytest.fixture(scope="session")
def kitchen() -> Kitchen:
    return load_kitchen()


@pytest.fixture
def make_world(kitchen: Kitchen) -> MakeWorld:
    """A world from a compact scene: make_world("table", coke_1="far counter", drawer=None)."""

    def make(robot_at: str, drawer: bool | None = None, **objects: str) -> World:
        initial: dict[str, Any] = {
            "robot": {"at": robot_at, "holding": None},
            "objects": [{"id": oid, "label": oid.rsplit("_", 1)[0].replace("_", " "), "at": at}
                        for oid, at in objects.items()],
        }
        if drawer is not None:
            initial["drawer"] = {"open": drawer}
        return kitchen.world(initial)

    return make


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    """The project's embedded sentence encoder (all-MiniLM-L6-v2), loaded once per session."""
    from llm_planner_ros.llm.factory import load_embedder

    return load_embedder({})

"""Fixtures of the SayCan quality tests: the kitchen and worlds from compact scenes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from llm_planner_ros.kitchen_domain.kitchen import Kitchen, load_kitchen
from llm_planner_ros.kitchen_domain.world import World

sys.path.insert(0, str(Path(__file__).parent))

from saycan_doubles import MakeWorld


@pytest.fixture(scope="session")
def kitchen() -> Kitchen:
    return load_kitchen()


@pytest.fixture
def make_world(kitchen: Kitchen) -> MakeWorld:
    """A world from a compact scene, e.g. ``make_world("table", holding="coke_1", coke_1="robot", apple_1="table")``."""

    def make(robot_at: str, holding: str | None = None, drawer: bool | None = None, **objects: str) -> World:
        initial: dict[str, Any] = {
            "robot": {"at": robot_at, "holding": holding},
            "objects": [
                {"id": i, "label": i.rsplit("_", 1)[0].replace("_", " "), "at": at} for i, at in objects.items()
            ],
        }
        if drawer is not None:
            initial["drawer"] = {"open": drawer}
        return kitchen.world(initial)

    return make

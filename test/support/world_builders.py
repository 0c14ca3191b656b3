"""Building kitchen worlds from compact scenes in tests (the ``make_world`` fixture of test/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llm_planner_ros.domain import Domain, World
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary

# make_world("table", holding=None, drawer=None, coke_1="far counter", apple_1="table") -> World
MakeWorld = Callable[..., World]


def label_of(object_id: str) -> str:
    """coke_1 -> coke, kettle_chips_2 -> kettle chips (ids in tests follow the episode-file convention)."""
    return object_id.rsplit("_", 1)[0].replace("_", " ")


def world_builder(kitchen: Domain) -> MakeWorld:
    """A function building worlds of ``kitchen`` from the robot's place, the held object's id, the
    drawer state (None: no drawer) and object ids mapped to where they are ("robot" when held)."""

    def make(robot_at: str, holding: str | None = None, drawer: bool | None = None, **objects: str) -> World:
        initial: dict[str, Any] = {
            "robot": {"at": robot_at, "holding": holding},
            "objects": [{"id": oid, "label": label_of(oid), "at": at} for oid, at in objects.items()],
        }
        if drawer is not None:
            initial["drawer"] = {"open": drawer}
        return kitchen.world(initial)

    return make


def vocabulary_of(world: World) -> Vocabulary:
    """The vocabulary a program is validated against in ``world`` (its objects: the labels present)."""
    return Vocabulary.of_scene(world.admissible_skills(), world, sorted({obj.label for obj in world.objects}))

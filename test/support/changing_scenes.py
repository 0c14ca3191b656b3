"""A simulated kitchen someone else changes between two steps of a plan (the scene-change tests of
planning and of ProgPrompt's re-plan cap)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from world_builders import label_of

from llm_planner_ros.domain.scene import ObjectInstance, Scene
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.environment import SkillOutcome
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

Edit = Callable[[World], World]


def rearranged(remove: tuple[str, ...] = (), **placed: str) -> Edit:
    """An edit of the scene by someone else: objects ``remove``d, objects (ids) put at places, new or not."""

    def edit(world: World) -> World:
        objects = {o.id: o for o in world.objects if o.id not in remove}
        for object_id, at in placed.items():
            objects[object_id] = ObjectInstance(object_id, label_of(object_id), at)
        return World(world.kitchen, Scene(world.robot_at, tuple(objects.values()), world.drawer_open), world.visited)

    return edit


class ChangingKitchen(SimulatedEnvironment):
    """A simulated kitchen someone else changes: right after the robot's skill number k (from 0) ended,
    ``edits[k]`` replaces the world (between two steps of the plan, as a person moving things would)."""

    def __init__(self, world: World, edits: Mapping[int, Edit]) -> None:
        super().__init__(world)
        self._edits = dict(edits)
        self._executed = 0

    def execute(self, skill: Skill) -> SkillOutcome:
        outcome = super().execute(skill)
        if (edit := self._edits.get(self._executed)) is not None:
            self.world = edit(self.world)
        self._executed += 1
        return outcome

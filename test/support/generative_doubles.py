"""A kitchen environment of the generative-planner tests that perceives only the places the robot has
been to (the language-model doubles are in test/support/language_model_doubles.py)."""

from __future__ import annotations

from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment


class PartiallyObservedKitchen(SimulatedEnvironment):
    """A simulated kitchen whose perception reports only objects lying at places the robot has visited
    (what a camera would have seen), instead of every object of the scene."""

    def __init__(self, world: World) -> None:
        super().__init__(world)

    def observed_objects(self) -> list[str]:
        seen = set(self.world.visited)
        labels = (obj.label for obj in self.world.objects if obj.at in seen or obj.held)
        return list(dict.fromkeys(labels))

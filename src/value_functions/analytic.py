"""Today's analytic affordance (SayCan's calibrated functions) on a perceived observation: the symbolic
world a robot assembles from the same detections (each object at its reported location, the robot at
its place, the held label in the gripper), scored by ``llm_planner_ros.affordance.AffordanceModel``."""

from __future__ import annotations

from kitchen_domain.config import HELD
from kitchen_domain.kitchen import Kitchen
from kitchen_domain.scene import ObjectInstance, Scene
from kitchen_domain.skill import DRAWER, Skill
from kitchen_domain.world import World
from robot_motion.drawer import CLOSE, OPEN
from value_functions.observation import Observation


def world_of(observation: Observation, kitchen: Kitchen) -> World:
    """The symbolic world of an observation; detections at no known place (the floor) are left out."""
    config = kitchen.config
    known = set(config.places(observation.drawer_open is not None))
    if config.drawer is not None and observation.drawer_open is not None:
        known.add(config.drawer.contents_at)
    objects = [
        ObjectInstance(f"{o.label.replace(' ', '_')}_{number}", o.label, o.location)
        for number, o in enumerate(observation.objects, 1)
        if o.location in known and o.label in config.labels
    ]
    if observation.holding_label is not None:
        objects.append(ObjectInstance("held_1", observation.holding_label, HELD))
    return World(kitchen, Scene(observation.robot_at, tuple(objects), observation.drawer_open))


def skill_of(family: str, argument: str) -> Skill:
    """A skill for scoring from its family and the argument a value function reads
    (``features.skill_argument``): the analytic model reads only these, but checks a drawer skill's
    preconditions by its text, so drawer skills get the kitchen's own text."""
    if family == DRAWER:
        if argument in (OPEN, CLOSE):
            return Skill(f"{argument} the drawer", DRAWER, ())
        return Skill(f"put the {argument} in the drawer", DRAWER, (argument,))
    return Skill(f"{family} {argument}", family, (argument,))

"""Today's analytic affordance (SayCan's calibrated functions) on a perceived observation: the symbolic
world a robot assembles from the same detections (each object at its reported location, the robot at
its place, the held label in the gripper), scored by ``llm_planner_ros.affordance.AffordanceModel``."""

from __future__ import annotations

from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.scene import ObjectInstance, Scene
from llm_planner_ros.domain.skill import DRAWER, Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.robot_motion.drawer import CLOSE, OPEN
from llm_planner_ros.value_functions.observation import Observation


def world_of(observation: Observation, kitchen: Domain) -> World:
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


def skill_of(family: str, argument: str, kitchen: Domain | None = None) -> Skill:
    """A skill for scoring from its family and the argument a value function reads
    (``features.skill_argument``): the analytic model reads only these, except that it checks a drawer
    skill's preconditions against the skill library, so a drawer skill is the ``kitchen``'s own (required
    for the drawer family)."""
    if family != DRAWER:
        return Skill(f"{family} {argument}", family, (argument,))
    if kitchen is None:
        raise ValueError("a drawer skill is the kitchen's own: pass the kitchen")
    text = f"{argument} the drawer" if argument in (OPEN, CLOSE) else f"put the {argument} in the drawer"
    rule = kitchen.library.find(text)
    if rule is None:
        raise ValueError(f"{text!r} is not a skill of the kitchen's library (argument {argument!r})")
    return rule.skill

"""Which skills drive the base, and to which pose.

Navigation skills are the ``goto`` family (``go to the table``, ``bring it to you``: the argument is a
place) and the ``find`` family (``find a coke``: the place where perception last saw the object).
Each goes to the base pose of that place in the robot's map; an object inside a drawer is found at
the place of the map's drawer.
"""

from __future__ import annotations

from collections.abc import Sequence

from llm_planner_ros.domain.skill import FIND, GOTO, Skill
from llm_planner_ros.domain.world import PUT_AWAY_PLACES
from llm_planner_ros.robot_motion.geometry import Pose
from llm_planner_ros.robot_motion.place_map import PlaceMap
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject

NAVIGATION_FAMILIES = (GOTO, FIND)
# The location of objects inside a drawer, in the scene perception publishes (the kitchen world's
# drawer.contents_at); it is no place of the map: the drawer's place is.
DRAWER_CONTENTS = "drawer"


class MotionError(ValueError):
    """A skill that cannot be turned into motions; the message is the skill's failure reason with the fix."""


def is_navigation(skill: Skill) -> bool:
    return skill.family in NAVIGATION_FAMILIES


def navigation_place(skill: Skill, objects: Sequence[PerceivedObject]) -> str:
    """The place a navigation skill goes to: its argument for ``goto``, where perception reports the
    object for ``find`` (MotionError when nothing of that label is reported)."""
    if skill.family == GOTO and skill.argument:
        return skill.argument
    if skill.family == FIND and skill.argument:
        seen = [obj.location for obj in objects if obj.label == skill.argument and not obj.held]
        if not seen:
            raise MotionError(
                f"{skill.text!r}: perception reports no {skill.argument} (on /scene/objects); "
                "look for it from another place or check the perception node"
            )
        # As in the symbolic world: an instance already put away (handed over, thrown away, stored in the
        # drawer) is found only when no other exists; after one pepsi went into the drawer, "find a
        # pepsi" means the other one.
        available = [place for place in seen if place not in (*PUT_AWAY_PLACES, DRAWER_CONTENTS)]
        return (available or seen)[0]
    raise MotionError(f"{skill.text!r} is not a navigation skill (families {', '.join(NAVIGATION_FAMILIES)})")


def navigation_goal(skill: Skill, places: PlaceMap, objects: Sequence[PerceivedObject]) -> tuple[str, Pose]:
    """The place and base pose a navigation skill drives to; MotionError when the map lacks the place."""
    name = navigation_place(skill, objects)
    if name == DRAWER_CONTENTS:
        name = next((p.name for p in places.places.values() if p.drawer is not None), name)
    place = places.place(name)
    if place is None:
        raise MotionError(
            f"{skill.text!r}: place {name!r} is not in the place map {places.source or '(given)'}: "
            "add its base pose under places:"
        )
    return name, place.base

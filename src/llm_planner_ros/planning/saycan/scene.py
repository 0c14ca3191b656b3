"""The scene context a SayCan prompt gives the language model: where the robot is, what it holds, what lies where.

The paper's LLM sees only the instruction and the steps so far; it learns about the world solely through
the affordances, which is why its "embodiment" family fails most (SayCan, arXiv 2204.01691, Table 2). A small
model gains more from being told the state in words. One line, fixed order of places, labels only
(instance ids mean nothing to the model), so equal states always read alike:

    Scene: robot at the table, holding the coke. close counter: apple, sponge. far counter: nothing.
    table: nothing. trash can: nothing. you: nothing.

The person's place (``user``) reads "you", as the skill "bring it to you" does; the drawer's contents read
"drawer (closed): ...". A domain that declares facts (docs/domains.md) ends the line with the atoms that
hold, "facts: door_open, table_clean(desk)." ("facts: none." when none does): a closed door is a fact
left out. The kitchen declares none, so its lines are unchanged.
"""

from __future__ import annotations

from llm_planner_ros.domain.world import World

# The skill vocabulary calls the person's place "you" ("bring it to you"); the scene says it the same way.
_PLACE_WORDS = {"user": "you"}


def place_word(place: str) -> str:
    """How a place is named in scene lines ("you" for the person's place)."""
    return _PLACE_WORDS.get(place, place)


def describe_scene(world: World) -> str:
    """The one-line scene context of ``world`` (see the module docstring)."""
    held = world.holding
    where = "with you" if world.robot_at == "user" else f"at the {world.robot_at}"
    parts = [f"robot {where}, holding {f'the {held.label}' if held else 'nothing'}."]
    for place in world.places():
        parts.append(f"{place_word(place)}: {_labels(world, place)}.")
    drawer = world.kitchen.config.drawer
    if drawer is not None and world.has_drawer:
        state = "open" if world.drawer_open else "closed"
        parts.append(f"drawer ({state}): {_labels(world, drawer.contents_at)}.")
    if world.kitchen.config.facts:
        parts.append(f"facts: {', '.join(sorted(world.facts)) or 'none'}.")
    return "Scene: " + " ".join(parts)


def _labels(world: World, place: str) -> str:
    return ", ".join(obj.label for obj in world.placed_at(place)) or "nothing"

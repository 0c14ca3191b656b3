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
left out. SayCan's line (``unsaid``) then adds what a request can leave unsaid: each category with objects in
the scene, and which ("drink here: mug, water bottle."), and where each fact is changed when a skill changes it
at one place only ("where: door_open at the hall, printer_on at the printer."). The kitchen declares no facts
or categories, so its lines are unchanged. The other methods' lines stay without it: their adapters learned
the line before it, and the office's own lost 2 to 3 of 28 episodes each with it (docs/benchmarks.md).
"""

from __future__ import annotations

from llm_planner_ros.domain.conditions import RobotAt
from llm_planner_ros.domain.facts import HERE
from llm_planner_ros.domain.skill import FactChange
from llm_planner_ros.domain.world import World

# The skill vocabulary calls the person's place "you" ("bring it to you"); the scene says it the same way.
_PLACE_WORDS = {"user": "you"}


def place_word(place: str) -> str:
    """How a place is named in scene lines ("you" for the person's place)."""
    return _PLACE_WORDS.get(place, place)


def describe_scene(world: World, unsaid: bool = False) -> str:
    """The one-line scene context of ``world``; with ``unsaid``, SayCan's (see the module docstring)."""
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
    if unsaid:
        parts.extend(_kinds(world))
        where = _where_facts_change(world)
        if where:
            parts.append(f"where: {', '.join(where)}.")
    return "Scene: " + " ".join(parts)


def _where_facts_change(world: World) -> list[str]:
    """Each fact a skill changes only at one place, with that place ("grinder_on at the espresso bar"):
    the request ("turn off the grinder") does not say where to go first."""
    places: dict[str, set[str]] = {}
    for rule in world.kitchen.library.rules:
        at = [c.location for c in rule.preconditions if isinstance(c, RobotAt)]
        if len(at) != 1:
            continue
        for effect in rule.effects:
            if isinstance(effect, FactChange) and HERE not in effect.atom:
                places.setdefault(effect.atom, set()).add(at[0])
    # A fact changed at two places has no one place to name: naming the first would send the robot there.
    return [
        f"{atom} at the {place_word(next(iter(where)))}" for atom, where in sorted(places.items()) if len(where) == 1
    ]


def _kinds(world: World) -> list[str]:
    """Each category of the world file with objects in the scene, and those objects ("cleaning supplies
    here: rag, sponge."): a request for a kind ("something to clean with") names none of its objects."""
    present = {obj.label for obj in world.objects}
    lines = []
    for category in world.kitchen.config.categories.values():
        members = [label for label in category.labels if label in present]
        if members:
            lines.append(f"{category.name} here: {', '.join(members)}.")
    return lines


def _labels(world: World, place: str) -> str:
    return ", ".join(obj.label for obj in world.placed_at(place)) or "nothing"

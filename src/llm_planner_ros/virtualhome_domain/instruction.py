"""A VirtualHome task as the request every planning method gets: its name, then its goals in words.

"Wash clothes. In the end: the washing machine is closed and on; the soap is on the washing machine. Do at
some point: drink." Node goals become "the X is <state>" (grouped per object), edge goals "the X is on /
in the Y", "you hold the X", "you face the X"; the character is "you". Action goals ("LOOKAT|WATCH": one of
them) become "look at or watch". The words depend only on the goals, so every method reads the same request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

CHARACTER = "character"
STATES = {"PLUGGED_IN": "plugged in", "PLUGGED_OUT": "unplugged"}
YOU_STATES = {"SITTING": "you are sitting", "LYING": "you are lying down"}
RELATIONS = {
    "ON": "the {0} is on the {1}",
    "INSIDE": "the {0} is in the {1}",
    "CLOSE": "the {0} is close to the {1}",
    "FACING": "the {0} faces the {1}",
    "HOLDS_RH": "the {0} holds the {1}",
    "HOLDS_LH": "the {0} holds the {1}",
}
YOU_RELATIONS = {
    "ON": "you are on the {1}",
    "INSIDE": "you are in the {1}",
    "CLOSE": "you are close to the {1}",
    "FACING": "you face the {1}",
    "HOLDS_RH": "you hold the {1}",
    "HOLDS_LH": "you hold the {1}",
}
VERBS = {
    "LOOKAT": "look at",
    "TURNTO": "turn to",
    "SWITCHON": "switch on",
    "SWITCHOFF": "switch off",
    "PUTBACK": "put down",
    "PUTIN": "put in",
    "POINTAT": "point at",
    "PUTON": "put on",
    "PUTOFF": "take off",
}


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def render_instruction(
    name: str,
    node_goals: Sequence[Mapping[str, Any]],
    edge_goals: Sequence[Mapping[str, Any]],
    action_goals: Sequence[str],
    name_of: Callable[[int], str],
    class_of: Callable[[int], str],
) -> str:
    """The request of a task called ``name`` with these goals; ``name_of(id)`` is an object's name in
    skill texts, ``class_of(id)`` its class ("character" for the one acting)."""
    goals: list[str] = []
    states: dict[int, list[str]] = {}
    for goal in node_goals:
        if goal["class_name"] == CHARACTER and goal["state"] in YOU_STATES:
            goals.append(YOU_STATES[goal["state"]])
            continue
        states.setdefault(int(goal["id"]), []).append(STATES.get(goal["state"], goal["state"].lower()))
    goals.extend(f"the {name_of(index)} is {_and(words)}" for index, words in states.items())
    for goal in edge_goals:
        source, target = int(goal["from_id"]), int(goal["to_id"])
        you = class_of(source) == CHARACTER
        template = (YOU_RELATIONS if you else RELATIONS).get(goal["relation_type"])
        if template is None:
            raise ValueError(f"edge goal {dict(goal)}: no wording for relation {goal['relation_type']!r}")
        goals.append(template.format("" if you else name_of(source), name_of(target)))
    text = name.strip().rstrip(".") + "."
    if goals:
        text += " In the end: " + "; ".join(goals) + "."
    if action_goals:
        actions = [" or ".join(VERBS.get(a, a.lower()) for a in goal.split("|")) for goal in action_goals]
        text += " Do at some point: " + "; ".join(actions) + "."
    return text

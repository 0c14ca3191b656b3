"""A VirtualHome task's request: its name, then its goals in words, the same for every method."""

from __future__ import annotations

import pytest

from llm_planner_ros.virtualhome_domain.instruction import render_instruction

NAMES = {65: "character", 1: "bedroom", 105: "bed", 1001: "washing machine", 1003: "clothes jacket", 7: "tv"}
CLASSES = {65: "character"}


def words(name: str, nodes: list, edges: list, actions: list) -> str:
    return render_instruction(name, nodes, edges, actions, NAMES.__getitem__, lambda i: CLASSES.get(i, "thing"))


def test_goals_are_worded_per_object_with_the_character_as_you() -> None:
    text = words(
        "Wash clothes",
        [
            {"id": 1001, "class_name": "washing_machine", "state": "CLOSED"},
            {"id": 1001, "class_name": "washing_machine", "state": "PLUGGED_IN"},
            {"id": 65, "class_name": "character", "state": "LYING"},
        ],
        [
            {"from_id": 1003, "relation_type": "INSIDE", "to_id": 1001},
            {"from_id": 65, "relation_type": "HOLDS_RH", "to_id": 105},
        ],
        ["LOOKAT|WATCH", "TOUCH"],
    )
    assert text == (
        "Wash clothes. In the end: you are lying down; the washing machine is closed and plugged in; the clothes "
        "jacket is in the washing machine; you hold the bed. Do at some point: look at or watch; touch."
    )


def test_a_task_without_goals_is_its_name_and_an_unknown_relation_is_refused() -> None:
    assert words("Go to sleep.", [], [], []) == "Go to sleep."
    with pytest.raises(ValueError, match="no wording for relation 'BETWEEN'"):
        words("x", [], [{"from_id": 1, "relation_type": "BETWEEN", "to_id": 105}], [])

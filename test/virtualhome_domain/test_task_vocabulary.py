"""A VirtualHome task's skills: VirtualHome's actions over the task's objects, filtered by what the simulator
lets each object do, written as text and mapped back to the action (class name and id) the scorer reads."""

from __future__ import annotations

import pytest

from llm_planner_ros.domain.skill import TERMINATE
from llm_planner_ros.virtualhome_domain.tasks import Action
from llm_planner_ros.virtualhome_domain.vocabulary import SceneObject, TaskVocabulary, skill_from_text

KITCHEN = SceneObject("kitchen", 11, "Rooms", frozenset())
ME = SceneObject("character", 65, "Characters", frozenset())
MUG = SceneObject("mug", 20, "Props", frozenset({"GRABBABLE", "RECIPIENT"}))
FRIDGE = SceneObject("fridge", 30, "Appliances", frozenset({"CAN_OPEN", "CONTAINERS", "HAS_SWITCH"}))
LIGHT_A = SceneObject("light", 40, "Lamps", frozenset({"HAS_SWITCH"}))
LIGHT_B = SceneObject("light", 41, "Lamps", frozenset({"HAS_SWITCH"}))
KEYBOARD = SceneObject("keyboard", 50, "Electronics", frozenset())


@pytest.fixture
def vocabulary() -> TaskVocabulary:
    return TaskVocabulary([KITCHEN, ME, MUG, FRIDGE, LIGHT_A, LIGHT_B, KEYBOARD])


def test_an_action_is_offered_only_on_objects_the_simulator_lets_it_act_on(vocabulary: TaskVocabulary) -> None:
    texts = {skill.text for skill in vocabulary.skills}
    assert {"walk to the kitchen", "grab the mug", "open the fridge", "switch on the fridge"} <= texts
    assert "grab the fridge" not in texts and "open the mug" not in texts
    # a room is walked to, never acted on; the character is no object at all
    assert not any(t.endswith("the kitchen") for t in texts - {"walk to the kitchen"})
    assert not any("character" in t for t in texts)
    # the simulator types on a keyboard without a switch, and pours only into a recipient
    assert "type on the keyboard" in texts and "pour the mug into the fridge" not in texts
    assert {"put the mug in the fridge", "put the mug on the fridge"} <= texts
    assert vocabulary.skills[-1].family == TERMINATE


def test_two_objects_of_one_class_are_told_apart_by_their_ids(vocabulary: TaskVocabulary) -> None:
    texts = {skill.text for skill in vocabulary.skills}
    assert {"switch on the light 40", "switch on the light 41"} <= texts
    assert vocabulary.action("switch on the light 41") == Action("SWITCHON", (("light", 41),))


def test_texts_and_actions_map_both_ways(vocabulary: TaskVocabulary) -> None:
    put = Action("PUTIN", (("mug", 20), ("fridge", 30)))
    assert vocabulary.text(put) == "put the mug in the fridge"
    assert vocabulary.action("put the mug in the fridge") == put
    assert vocabulary.text(Action("PUTIN", (("fridge", 30), ("mug", 20)))) is None
    skill = next(s for s in vocabulary.skills if s.text == "put the mug in the fridge")
    assert (skill.family, skill.arguments) == ("putin", ("mug", "fridge"))
    with pytest.raises(KeyError):
        vocabulary.action("done")


def test_a_skill_text_is_read_back_with_its_objects() -> None:
    skill = skill_from_text("put the dish soap on the kitchen table", ["dish soap", "kitchen table"])
    assert (skill.family, skill.arguments) == ("putback", ("dish soap", "kitchen table"))
    with pytest.raises(ValueError, match="'juggle the mug' is no VirtualHome skill"):
        skill_from_text("juggle the mug", ["mug"])
    with pytest.raises(ValueError, match="no VirtualHome skill"):
        skill_from_text("grab the cup", ["mug"])

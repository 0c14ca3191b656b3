"""Effects a skills file writes beyond facts (docs/domains.md): an object handed over at a place other
than the robot's, a fact changed at the robot's place (``{here}``), objects made and used up. On the
break room of the tests (test/data/break_room): a coffee machine makes a coffee from a pod, one "wipe the
table" serves every table, and "hand it to you" reaches the person at the desk."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from repo_paths import TEST_DATA

from llm_planner_ros.domain import Domain, PreconditionError, load_domain_files
from llm_planner_ros.domain.config import ConfigError
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.oracle import shortest_plan
from llm_planner_ros.domain.scene import SceneError
from llm_planner_ros.domain.skill_library import load_skill_library
from llm_planner_ros.planning.domain_tasks import TaskWriter, generate_examples
from llm_planner_ros.planning.instruction_check import ObjectVocabulary, check_instruction
from llm_planner_ros.planning.plan_loop import EndReason

BREAK_ROOM = TEST_DATA / "break_room"


@pytest.fixture(scope="module")
def room() -> Domain:
    return load_domain(BREAK_ROOM)


def scene(robot_at: str, *objects: tuple[str, str, str], holding: str | None = None, **extra: Any) -> dict:
    listed = [{"id": identifier, "label": label, "at": at} for identifier, label, at in objects]
    return {"robot": {"at": robot_at, "holding": holding}, "objects": listed, **extra}


def test_a_coffee_is_made_from_a_pod_which_is_used_up(room: Domain) -> None:
    world = room.world(scene("kitchenette", ("pod_1", "coffee pod", "robot"), holding="pod_1"))
    world.apply("make a coffee")
    assert [(obj.id, obj.label, obj.at) for obj in world.objects] == [("coffee_1", "coffee", "robot")]
    with pytest.raises(PreconditionError, match=r"holding\(coffee pod\) does not hold"):
        world.apply("make a coffee")
    second = room.world(
        scene("kitchenette", ("pod_2", "coffee pod", "robot"), ("coffee_1", "coffee", "desk"), holding="pod_2")
    )
    second.apply("make a coffee")
    assert second.holding is not None and second.holding.id == "coffee_2", "a made object gets an id of its own"


def test_making_needs_what_it_uses_up_and_a_gripper_to_put_it_in(room: Domain, tmp_path: Path) -> None:
    """The effects are checked in order: the pod used up frees the gripper the coffee goes into, and
    without a precondition that holds the pod, something else in the gripper leaves the coffee nowhere."""
    library = load_skill_library(room.config, BREAK_ROOM / "skills.yaml")
    rule = library.find("make a coffee")
    assert rule is not None and [str(effect) for effect in rule.effects] == [
        "consume(coffee pod)",
        "create(coffee at robot)",
    ]
    assert library.created_labels() == {"coffee"}
    skills = tmp_path / "skills.yaml"
    text = (BREAK_ROOM / "skills.yaml").read_text()
    skills.write_text(text.replace("[{robot_at: kitchenette}, {holding: coffee pod}]", "[{robot_at: kitchenette}]"))
    lenient = load_domain_files(BREAK_ROOM / "world.yaml", skills)
    pod, mug = ("pod_1", "coffee pod", "kitchenette"), ("mug_1", "mug", "robot")
    world = lenient.world(scene("kitchenette", pod, mug, holding="mug_1"))
    assert "the gripper already holds mug (mug_1); put it down first" in str(world.why_not("make a coffee"))
    world = lenient.world(scene("kitchenette", ("mug_1", "mug", "robot"), holding="mug_1"))
    assert "no coffee pod in the gripper or within reach at the kitchenette" in str(world.why_not("make a coffee"))


def test_the_table_here_is_wiped_wherever_the_robot_stands_and_nowhere_else(room: Domain) -> None:
    world = room.world(scene("desk", ("sponge_1", "sponge", "robot"), holding="sponge_1"))
    world.apply("wipe the table")
    assert world.facts == {"table_clean(desk)"}
    assert "table_clean(desk) is already true" in str(world.why_not("wipe the table"))
    world.apply("go to the kitchenette")
    world.apply("wipe the table")
    assert world.facts == {"table_clean(desk)", "table_clean(kitchenette)"}
    world.apply("go to the hall")
    # The hall has no table: the relation is over the desk and the kitchenette only.
    assert "table_clean(hall) is no fact of this world: not at the hall" in str(world.why_not("wipe the table"))


def test_the_held_object_is_handed_over_at_the_person_from_the_desk(room: Domain) -> None:
    world = room.world(scene("desk", ("mug_1", "mug", "robot"), holding="mug_1"))
    world.apply("hand it to you")
    assert world.robot_at == "desk" and [(obj.label, obj.at) for obj in world.objects] == [("mug", "user")]
    assert "the gripper is empty" in str(world.why_not("hand it to you"))


def test_the_oracle_plans_through_making_handing_over_and_wiping_here(room: Domain) -> None:
    episodes = load_episodes(BREAK_ROOM / "episodes.yaml", room)
    plans = {episode.id: [skill.text for skill in shortest_plan(episode, kitchen=room) or []] for episode in episodes}
    make = ["find a coffee pod", "pick up the coffee pod", "make a coffee", "go to the desk", "hand it to you", "done"]
    assert plans == {
        "make-coffee": make,
        "wipe-here": ["pick up the sponge", "go to the desk", "wipe the table", "done"],
        "drink": make,  # the category's only object is made
    }


def test_every_problem_of_the_written_effects_is_reported_at_once_with_its_line(tmp_path: Path, room: Domain) -> None:
    skills = tmp_path / "skills.yaml"
    skills.write_text(
        "families: [brew, wipe, terminate]\n"
        "executors: [manipulator]\n"
        "skills:\n"
        "  - {family: brew, text: make tea, executor: manipulator, effects: [{create: {label: tea, at: robot}}]}\n"
        "  - {family: brew, text: make juice, executor: manipulator, effects: [{create: {label: coffee, at: roof}}]}\n"
        "  - {family: brew, text: use it, executor: manipulator, effects: [{consume: cup}, {put_held: garden}]}\n"
        "  - {family: brew, text: boil, executor: manipulator, effects: [{boil: coffee}]}\n"
        "  - {family: wipe, text: wipe, executor: manipulator, preconditions: [{robot_at: '{here}'}]}\n"
        "  - {family: terminate, text: done, executor: null}\n"
    )
    with pytest.raises(ConfigError) as refused:
        load_skill_library(room.config, skills)
    message = str(refused.value)
    assert "6 problems" in message, message
    assert "line 4, field skills[0].effects[0].create.label: unknown label 'tea'" in message
    assert (
        "line 5, field skills[1].effects[0].create.at: unknown place 'roof'; known places: 'robot', 'here'" in message
    )
    assert "line 6, field skills[2].effects[0].consume: unknown label 'cup'" in message
    assert "line 6, field skills[2].effects[1].put_held: unknown place 'garden'" in message
    assert (
        "line 7, field skills[3].effects[0]: an effect is a built-in name" in message
        and "{consume: <label>}" in message
    )
    assert "line 8, field skills[4].preconditions[0].robot_at: unknown location '{here}'" in message


def test_here_is_only_for_a_skills_condition_or_change_of_a_relation_over_places(room: Domain) -> None:
    with pytest.raises(SceneError, match=r"\{here\} stands for the robot's place in a skill's condition or change"):
        room.world(scene("desk", facts=["table_clean({here})"]))


def test_a_made_object_asked_for_is_never_missing_and_an_absent_one_is(room: Domain) -> None:
    vocabulary = ObjectVocabulary.of_kitchen(room.config, made=room.library.created_labels())
    world = room.world(scene("desk", ("pod_1", "coffee pod", "kitchenette")))

    def check(text: str):  # type: ignore[no-untyped-def]
        return check_instruction(text, vocabulary, 500, "refuse", lambda: world, lambda *_: (False, ""))

    assert check("Make me a coffee.").refusal is None
    assert check("I'm sleepy, bring me something to drink.").refusal is None  # the drink is the coffee
    absent = check("Bring me the mug.").refusal
    assert absent is not None and absent.reason == EndReason.MISSING and "mug" in absent.message


def test_generated_tasks_make_what_no_scene_holds_and_wipe_each_table_by_name(room: Domain) -> None:
    writer = TaskWriter(room, random.Random(0))
    assert writer.labels == ["coffee pod", "mug", "sponge"], "a made label is in no random scene"
    wordings = {texts[0] for _, texts, _ in writer.fact_skills}
    assert wordings == {"wipe the table at the desk", "wipe the table at the kitchenette"}
    examples = list(generate_examples(room, 40, seed=1))
    made = [example for example in examples if example.kind == "make"]
    assert made and all("make a coffee" in example.steps for example in made), [e.steps for e in made]
    assert not any(obj["label"] == "coffee" for example in examples for obj in example.initial["objects"])
    wiped = [example for example in examples if example.kind == "fact"]
    assert wiped and all("wipe the table" in example.steps for example in wiped)

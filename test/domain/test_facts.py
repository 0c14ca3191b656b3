"""Facts a domain declares, and skills whose preconditions and effects its files write: a world file's
``facts``, a skills file's ``families`` and ``executors``, conditions as preconditions and fact changes
as effects (test/data/office_corner: a door, a printer and tables to wipe)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from repo_paths import TEST_DATA

from llm_planner_ros.affordance.model import AffordanceModel
from llm_planner_ros.domain import Domain, PreconditionError, load_domain_files
from llm_planner_ros.domain.conditions import condition_from_yaml
from llm_planner_ros.domain.config import ConfigError
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.oracle import shortest_plan
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.domain.scene import SceneError
from llm_planner_ros.planning.saycan.planner import state_key

OFFICE = TEST_DATA / "office_corner"


@pytest.fixture(scope="module")
def office() -> Domain:
    return load_domain_files(OFFICE / "world.yaml", OFFICE / "skills.yaml")


def test_declared_facts_start_from_the_world_file_and_a_scene_may_list_its_own(office: Domain) -> None:
    assert office.world().facts == {"printer_on", "table_clean(desk)"}
    initial = {"robot": {"at": "hall", "holding": None}, "objects": [], "facts": ["door_open"]}
    world = office.world(initial)
    assert world.facts == {"door_open"}
    assert world.to_initial()["facts"] == ["door_open"]
    assert "facts: door_open" in world.summary()
    with pytest.raises(SceneError) as refused:
        office.world({**initial, "facts": ["door_opened", "table_clean(garage)", "door_open(hall)"]})
    message = str(refused.value)
    assert "3 problems" in message and "unknown fact 'door_opened'" in message
    assert "'garage' is none of desk, hall, meeting room, user" in message
    assert "fact 'door_open' takes no argument" in message


def test_the_kitchen_declares_no_facts_and_refuses_them_in_a_scene(kitchen: Domain) -> None:
    world = kitchen.world()
    assert world.facts == frozenset() and "facts" not in world.to_initial() and "facts:" not in world.summary()
    with pytest.raises(SceneError, match="declares no facts"):
        kitchen.world({"robot": {"at": "table", "holding": None}, "objects": [], "facts": []})


def test_written_preconditions_refuse_with_the_reason_and_effects_set_facts(office: Domain) -> None:
    world = office.world()
    with pytest.raises(PreconditionError, match=r"door_open is false \(precondition fact\(door_open\)\)"):
        world.apply("go to the meeting room")
    with pytest.raises(PreconditionError, match="robot_at\\(hall\\) does not hold"):
        world.apply("open the door")
    world.apply("go to the hall")
    world.apply("open the door")
    assert "door_open" in world.facts
    with pytest.raises(PreconditionError, match="door_open is already true"):
        world.check("open the door")
    for skill in ("go to the desk", "pick up the sponge", "go to the meeting room", "wipe the meeting room"):
        world.apply(skill)
    assert "table_clean(meeting room)" in world.facts
    # The placeholders were filled per skill: the desk's table was clean already, so it cannot be wiped.
    rule = world.rule("wipe the desk")
    assert [str(p) for p in rule.preconditions] == [
        "robot_at(desk)",
        "holding(sponge)",
        "not(fact(table_clean(desk)))",
    ]
    assert [str(e) for e in rule.effects] == ["set(table_clean(desk))"]


def test_a_goal_names_a_fact_and_the_oracle_plans_through_the_door(office: Domain) -> None:
    episode = load_episodes(OFFICE / "episodes.yaml", office).episode("wipe-meeting-room")
    world = episode.world(office)
    assert not episode.goal.holds(world)
    plan = shortest_plan(episode, kitchen=office)
    assert plan is not None
    texts = [skill.text for skill in plan]
    assert texts[-2:] == ["wipe the meeting room", "done"] and "open the door" in texts
    assert texts.index("open the door") < texts.index("go to the meeting room")
    assert condition_from_yaml({"fact": "printer_on"}, office.config).holds(world)


def test_every_problem_of_the_facts_and_declarations_names_its_line(tmp_path: Path) -> None:
    world = yaml.safe_load((OFFICE / "world.yaml").read_text())
    world["facts"] = {"door open": {}, "lit": {"over": "room"}, "clean": {"over": "location", "initial": ["attic"]}}
    world_file = tmp_path / "world.yaml"
    world_file.write_text(yaml.safe_dump(world, sort_keys=False))
    with pytest.raises(ConfigError) as refused:
        load_domain_files(world_file, OFFICE / "skills.yaml")
    message = str(refused.value)
    assert "3 problems" in message, message
    assert "field facts.door open: fact name 'door open' must be a plain identifier" in message
    assert "field facts.lit.over: unknown kind 'room'" in message
    assert "field facts.clean.initial[0]: unknown location 'attic'" in message
    assert all("line " in line for line in message.splitlines()[1:]), message

    skills = yaml.safe_load((OFFICE / "skills.yaml").read_text())
    skills["families"].append("door")
    skills["skills"][6]["preconditions"].append({"fact": "window_open"})
    skills["skills"][7]["effects"] = [{"set": "table_clean({object})"}, {"toggle": "door_open"}]
    skills["skills"][8]["family"] = "shout"
    skills_file = tmp_path / "skills.yaml"
    skills_file.write_text(yaml.safe_dump(skills, sort_keys=False))
    with pytest.raises(ConfigError) as refused:
        load_domain_files(OFFICE / "world.yaml", skills_file)
    message = str(refused.value)
    assert "5 problems" in message, message
    assert "field families[7]: family 'door' is declared twice" in message
    assert "field skills[6].preconditions[3].fact: unknown fact 'window_open'" in message
    assert "field skills[7].effects[0].set: {object} is not a placeholder of this template" in message
    assert "field skills[7].effects[1]: an effect is a built-in name" in message
    assert "field skills[8].family: unknown family 'shout'; known families: 'find'" in message
    assert all("line " in line for line in message.splitlines()[1:]), message


def test_a_family_the_domain_declares_is_scored_from_its_preconditions(office: Domain) -> None:
    model = AffordanceModel()
    world = office.world({"robot": {"at": "hall", "holding": None}, "objects": [], "facts": []})
    skills = {text: world.skill(text) for text in ("open the door", "wipe the desk", "go to the meeting room")}
    assert model.affordance(skills["open the door"], world) == model.calibration.rule_possible
    assert model.affordance(skills["wipe the desk"], world) == 0.0
    # A kitchen family's function knows nothing of doors: the written precondition still stops the go-to.
    assert model.affordance(skills["go to the meeting room"], world) == 0.0
    world.apply("open the door")
    assert model.affordance(skills["go to the meeting room"], world) > 0.0
    assert model.affordance(skills["open the door"], world) == 0.0


def test_a_skill_that_only_changes_a_fact_is_a_new_state_to_saycan(office: Domain) -> None:
    world = office.world({"robot": {"at": "hall", "holding": None}, "objects": [], "facts": []})
    before = state_key(world)
    world.apply("open the door")
    assert state_key(world) != before


def test_the_robot_state_record_carries_the_facts_and_an_older_record_reads_as_none(office: Domain) -> None:
    world = office.world()
    record = RobotState.of_world(world, (1, 2), 3, "", None)
    assert RobotState.from_json(record.to_json()).facts == ("printer_on", "table_clean(desk)")
    older = record.to_json().replace('"facts": ["printer_on", "table_clean(desk)"], ', "")
    assert "facts" not in older and RobotState.from_json(older).facts == ()


def test_a_skills_requests_are_filled_per_skill_and_a_bad_one_is_named(office: Domain, tmp_path: Path) -> None:
    skills = yaml.safe_load((OFFICE / "skills.yaml").read_text())
    wipe = next(index for index, entry in enumerate(skills["skills"]) if entry["family"] == "wipe")
    skills["skills"][wipe]["requests"] = ["clean the {location}", "tidy up"]
    skills_file = tmp_path / "skills.yaml"
    skills_file.write_text(yaml.safe_dump(skills, sort_keys=False))
    kitchen = load_domain_files(OFFICE / "world.yaml", skills_file)
    rule = kitchen.library.find("wipe the desk")
    assert rule is not None and rule.requests == ("clean the desk", "tidy up")
    assert office.library.find("wipe the desk").requests == ()  # type: ignore[union-attr]

    for requests, problem in (
        (["clean the {location}", 7], "requests[1]: must be a non-empty string, got int 7"),
        (["clean the {object}"], "requests[0]: {object} is not a placeholder of this template"),
    ):
        skills["skills"][wipe]["requests"] = requests
        skills_file.write_text(yaml.safe_dump(skills, sort_keys=False))
        with pytest.raises(ConfigError) as refused:
            load_domain_files(OFFICE / "world.yaml", skills_file)
        assert f"field skills[{wipe}].{problem}" in str(refused.value), refused.value


def test_a_built_in_that_reads_an_object_is_refused_on_a_skill_of_a_place(tmp_path: Path) -> None:
    # holding_object on "go to the {location}" used to test holding the place itself, and never held.
    skills = yaml.safe_load((OFFICE / "skills.yaml").read_text())
    index, goto = next((i, s) for i, s in enumerate(skills["skills"]) if s.get("for_each") == "location")
    goto["preconditions"] = [*goto.get("preconditions", []), "holding_object"]
    goto["effects"] = [*goto.get("effects", []), "grasp_object"]
    skills_file = tmp_path / "skills.yaml"
    skills_file.write_text(yaml.safe_dump(skills, sort_keys=False))
    with pytest.raises(ConfigError) as refused:
        load_domain_files(OFFICE / "world.yaml", skills_file)
    message = str(refused.value)
    where = len(goto["preconditions"]) - 1
    assert f"preconditions[{where}]: holding_object reads the skill's object, and this skill has a location" in message
    assert "grasp_object reads the skill's object, and this skill has a location" in message, message
    assert "write a condition or fact change instead" in message and "line " in message, message
    assert f"skills[{index}]" in message, message


def _office_world_with_facts(tmp_path: Path, facts: dict[str, Any]) -> Path:
    """The office corner's world file with ``facts`` declared over its own, written to ``tmp_path``."""
    world = yaml.safe_load((OFFICE / "world.yaml").read_text())
    world["facts"].update(facts)
    world_file = tmp_path / "world.yaml"
    world_file.write_text(yaml.safe_dump(world, sort_keys=False))
    return world_file


def test_a_fact_over_listed_places_holds_only_there(tmp_path: Path) -> None:
    facts = {"table_clean": {"over": ["desk", "meeting room"], "initial": ["desk"]}}
    office = load_domain_files(
        _office_world_with_facts(tmp_path, facts), OFFICE / "skills.yaml"
    )  # its wipe skills are at those two places
    assert office.config.facts["table_clean"].arguments == ("desk", "meeting room")
    assert "table_clean(desk)" in office.world().facts
    with pytest.raises(SceneError, match=r"over the listed locations, and 'hall' is none of desk, meeting room"):
        office.world({"robot": {"at": "hall", "holding": None}, "objects": [], "facts": ["table_clean(hall)"]})


def test_a_fact_over_a_list_of_no_one_kind_is_refused_with_its_line(tmp_path: Path) -> None:
    world_file = _office_world_with_facts(
        tmp_path, {"table_clean": {"over": ["desk", "attic"]}, "lit": {"over": ["desk", "mug"]}}
    )
    with pytest.raises(ConfigError) as refused:
        load_domain_files(world_file, OFFICE / "skills.yaml")
    message = str(refused.value)
    assert "field facts.table_clean.over: lists 'attic', which is no place or object label" in message, message
    assert "field facts.lit.over: lists places and object labels together" in message
    assert all("line " in line for line in message.splitlines()[1:]), message

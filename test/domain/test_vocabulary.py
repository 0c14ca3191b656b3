"""A skills file's ``families`` and ``executors`` as mappings: each family's affordance source and each
executor's ROS 2 action (llm_planner_ros.domain.vocabulary; test/data/elevator_lobby, the small
domain written from docs/domains.md alone)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from repo_paths import TEST_DATA

from llm_planner_ros.affordance.model import AffordanceModel
from llm_planner_ros.cli.main import run_command
from llm_planner_ros.domain import Domain, load_domain_files
from llm_planner_ros.domain.config import ConfigError
from llm_planner_ros.domain.domain_folder import DomainFolderError, domain_folder, load_domain
from llm_planner_ros.domain.vocabulary import ANALYTIC, CONSTANT, AffordanceSource

LOBBY = TEST_DATA / "elevator_lobby"


@pytest.fixture(scope="module")
def lobby() -> Domain:
    return load_domain_files(LOBBY / "world.yaml", LOBBY / "skills.yaml")


def _skills_with(tmp_path: Path, **top: object) -> Path:
    """The lobby's skills file with its top-level keys replaced by ``top``."""
    document = yaml.safe_load((LOBBY / "skills.yaml").read_text())
    document.update(top)
    path = tmp_path / "skills.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def test_the_lobby_binds_its_presser_to_an_action_and_its_elevator_family_to_a_server(lobby: Domain) -> None:
    library = lobby.library
    assert library.declared_families == ("find", "pick", "place", "goto", "terminate", "elevator")
    assert library.executors == ("manipulator", "mobile_base", "presser")
    assert library.affordance_servers() == {"elevator": "elevator_affordance"}
    binding = library.action_bindings["presser"]
    assert (binding.type, binding.name, binding.timeout_s) == (
        "control_msgs/action/GripperCommand",
        "presser/gripper_cmd",
        30.0,
    )
    assert binding.goal == {"command": {"position": 0.0, "max_effort": 5.0}}
    assert binding.success.field == "reached_goal" and binding.success.equals is None
    assert set(library.action_bindings) == {"presser"}


def test_a_list_declares_names_only_as_before() -> None:
    office = load_domain_files(TEST_DATA / "office_corner" / "world.yaml", TEST_DATA / "office_corner" / "skills.yaml")
    assert office.library.affordance_sources == {} and office.library.action_bindings == {}


def test_every_problem_of_the_declarations_is_reported_at_once_with_its_line(tmp_path: Path) -> None:
    families = {
        "find": {},
        "pick": None,
        "place": {},
        "goto": {},
        "terminate": {},
        "elevator": {"affordance": {"constant": 1.5}},
        "bad-name": {},
    }
    executors = {
        "manipulator": {},
        "mobile_base": {},
        "presser": {
            "action": {
                "type": "control_msgs/GripperCommand",
                "name": "presser gripper",
                "goal": {"command": {"position": "{height}"}},
                "success": {"equals": 0},
                "timeout_s": -1,
            }
        },
    }
    with pytest.raises(ConfigError) as refused:
        load_domain_files(LOBBY / "world.yaml", _skills_with(tmp_path, families=families, executors=executors))
    message = str(refused.value)
    assert "families.elevator.affordance.constant: must be in [0, 1], got 1.5" in message
    assert "family 'bad-name' must be an identifier" in message
    assert "'control_msgs/GripperCommand' is not an action type: write package/action/Name" in message
    assert "'presser gripper' is not a ROS name" in message
    assert "success.equals: needs `field`" in message
    assert "timeout_s: must be positive, got -1.0" in message
    assert "line " in message.splitlines()[1], message


def test_an_unknown_goal_placeholder_and_an_unknown_affordance_source_say_what_is_allowed(tmp_path: Path) -> None:
    executors = {"manipulator": {}, "mobile_base": {}, "presser": {"action": {"type": "a/action/B", "name": "b"}}}
    executors["presser"]["action"]["goal"] = {"command": {"position": "{height}"}}
    families = {"find": {}, "pick": {}, "place": {}, "goto": {}, "terminate": {}, "elevator": {"affordance": "oracle"}}
    with pytest.raises(ConfigError) as refused:
        load_domain_files(LOBBY / "world.yaml", _skills_with(tmp_path, families=families, executors=executors))
    message = str(refused.value)
    assert "unknown placeholder {height}; a goal may use {skill}, {family}, {object}, {location}" in message
    assert "must be 'analytic', {constant: <probability>} or {server: <EvaluateAffordance action name>}" in message


def test_a_constant_family_scores_its_value_while_its_preconditions_hold(tmp_path: Path) -> None:
    families = {
        "find": {},
        "pick": {},
        "place": {},
        "goto": {},
        "terminate": {},
        "elevator": {"affordance": {"constant": 0.3}},
    }
    lobby = load_domain_files(LOBBY / "world.yaml", _skills_with(tmp_path, families=families))
    assert lobby.library.affordance_sources == {"elevator": AffordanceSource(CONSTANT, value=0.3)}
    model = AffordanceModel()
    world = lobby.world({"robot": {"at": "elevator", "holding": None}, "objects": []})
    press = lobby.library.find("press the elevator button").skill
    assert model.affordance(press, world) == 0.3
    world.apply("press the elevator button")
    assert model.affordance(press, world) == 0.0  # its precondition (not elevator_called) no longer holds
    lobby_at_lobby = lobby.world({"robot": {"at": "lobby", "holding": None}, "objects": []})
    assert model.affordance(press, lobby_at_lobby) == 0.0


def test_a_server_family_is_scored_from_its_preconditions_in_process(lobby: Domain) -> None:
    assert AffordanceSource().kind == ANALYTIC
    model = AffordanceModel()
    press = lobby.library.find("press the elevator button").skill
    at_elevator = lobby.world({"robot": {"at": "elevator", "holding": None}, "objects": []})
    assert model.affordance(press, at_elevator) == model.calibration.rule_possible
    assert model.affordance(press, lobby.world()) == 0.0


def test_a_domain_folder_loads_and_the_oracle_plans_its_episodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert load_domain(LOBBY).config.source == str(LOBBY / "world.yaml")
    assert run_command(["oracle", "--domain", str(LOBBY), "--plans", str(LOBBY / "episodes.yaml")]) == 0
    assert "walk-and-call: go to the elevator, press the elevator button, done" in capsys.readouterr().out
    (tmp_path / "world.yaml").write_text((LOBBY / "world.yaml").read_text())
    with pytest.raises(DomainFolderError, match="has no skills.yaml: a domain folder holds world.yaml"):
        domain_folder(tmp_path)
    with pytest.raises(DomainFolderError, match="is not a folder"):
        domain_folder(tmp_path / "missing")

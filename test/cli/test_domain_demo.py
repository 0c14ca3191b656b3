"""A domain other than the kitchen, by files only: `llm-planner demo --params-file` points every node at
the office corner's world and skills files (test/data/office_corner), and the embedded SmolLM2 plans
and the simulated graph executes skills of families the kitchen does not have, through their affordance
server and their executors (the kitchen's manipulator, and the `wiper` executor the domain declares,
which the graph starts as wiper_executor), whose effects the simulator's state then carries as facts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from demo_runs import run_demo, user_devices_running
from repo_paths import REPO_ROOT, TEST_DATA
from ros_harness import allocate_domain_id

pytestmark = [pytest.mark.graph, pytest.mark.model]

OFFICE = TEST_DATA / "office_corner"
# The packaged allow-list names the kitchen's skills: a domain lists its own.
ALLOWED = ["find *", "pick up the *", "put down the *", "go to the *", "bring it to you", "open the door", "wipe the *"]


@pytest.mark.parametrize(
    ("episode", "skill", "executor", "fact"),
    [
        ("open-door", "open the door", "manipulator", "door_open"),
        ("wipe-here", "wipe the meeting room", "wiper", "table_clean(meeting room)"),
    ],
)
def test_the_embedded_model_runs_a_skill_of_a_domain_given_by_files(
    tmp_path: Path, episode: str, skill: str, executor: str, fact: str
) -> None:
    params = tmp_path / "office.yaml"
    domain = {"world_file": str(OFFICE / "world.yaml"), "skills_file": str(OFFICE / "skills.yaml")}
    planner = {"allowed_skills": [*ALLOWED, "done"]}
    params.write_text(yaml.safe_dump({"/**": {"ros__parameters": domain}, "planner": {"ros__parameters": planner}}))
    completed, logs, outcome = run_demo(
        tmp_path,
        *("--params-file", str(params), "--episode", str(OFFICE / "episodes.yaml"), "--id", episode),
        # The shipped SayCan adapter was trained on the kitchen's skills only: the base model here.
        *("--llm", "adapter=none"),
    )

    first = outcome["steps"][0]
    assert (first["skill"], first["status"]) == (skill, "succeeded"), completed.stdout
    # The kitchen's go-to scores the places by distance; the domain's own families by their preconditions.
    scored = {candidate["skill"]: candidate["affordance"] for candidate in first["candidates"]}
    assert scored[skill] == 1.0, scored
    assert f"'{skill}' succeeded" in logs[f"{executor}_executor"], logs.get(f"{executor}_executor")
    assert "/affordance/door" in logs["affordance_server"] and "/affordance/wipe" in logs["affordance_server"]
    assert fact in outcome["final_state"]["facts"], outcome["final_state"]
    assert f"episode {episode} goal holds: fact({fact})" in completed.stdout, completed.stdout


LOBBY = TEST_DATA / "elevator_lobby"


def test_a_users_own_action_and_affordance_server_plan_and_execute_by_files(tmp_path: Path) -> None:
    """``demo --domain`` the elevator lobby (a folder written from docs/domains.md, its episodes.yaml and
    params.yaml included): the button is pressed by the user's GripperCommand device through the presser
    executor's action backend, scored by the user's EvaluateAffordance server; the simulator applies
    the skill too (apply_in_sim), so the plan sees the elevator called."""
    env = dict(os.environ, ROS_DOMAIN_ID=str(allocate_domain_id()), COLUMNS="120", PYTHONUNBUFFERED="1")
    record = tmp_path / "devices.jsonl"
    with user_devices_running(env, record, "affordance:=0.95"):
        # The folder's params.yaml sets the allow-list and the presser's backend; this file adds the simulator.
        params = tmp_path / "in_sim.yaml"
        params.write_text(yaml.safe_dump({"presser_executor": {"ros__parameters": {"apply_in_sim": True}}}))
        completed, logs, outcome = run_demo(
            tmp_path,
            *("--domain", str(LOBBY), "--params-file", str(params), "--id", "call-elevator"),
            *("--llm", "adapter=none"),
            env=env,
        )
    first = outcome["steps"][0]
    assert (first["skill"], first["status"]) == ("press the elevator button", "succeeded"), completed.stdout
    scored = {candidate["skill"]: candidate["affordance"] for candidate in first["candidates"]}
    assert scored["press the elevator button"] == pytest.approx(0.95), scored
    entries = [json.loads(line) for line in record.read_text().splitlines()]
    assert {"server": "presser", "position": 0.0, "max_effort": 5.0} in entries
    assert any(e["server"] == "elevator_affordance" and e["skills"] == ["press the elevator button"] for e in entries)
    assert "/affordance/elevator" not in logs["affordance_server"], logs["affordance_server"]
    assert "action backend: control_msgs/action/GripperCommand goals on presser/gripper_cmd" in logs["presser_executor"]
    assert "elevator_called" in outcome["final_state"]["facts"], outcome["final_state"]
    assert "episode call-elevator goal holds: fact(elevator_called)" in completed.stdout, completed.stdout


def test_the_shipped_office_plans_through_the_door_with_its_own_adapter(tmp_path: Path) -> None:
    """The README's ``llm-planner demo --domain domains/office --id door-03``: the model service merges the
    office's own SayCan adapter (adapter: auto never loads the kitchen's outside the kitchen), the planner
    opens the meeting room's door before it fetches the phone behind it, and the episode's goal holds."""
    office = REPO_ROOT / "domains" / "office"
    completed, logs, outcome = run_demo(tmp_path, "--domain", str(office), "--id", "door-03")
    plan = [step["skill"] for step in outcome["steps"]]
    assert plan[:2] == ["go to the hall", "open the door"], plan
    assert plan.index("open the door") < plan.index("pick up the phone"), plan
    assert f"merged the adapter {office / 'adapters' / 'saycan.safetensors'}" in logs["llm_service"], logs[
        "llm_service"
    ]
    assert "episode door-03 goal holds" in completed.stdout, completed.stdout

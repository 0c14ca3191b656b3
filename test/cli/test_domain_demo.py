"""A domain other than the kitchen, by files only: `llm-planner demo --params-file` points every node at
the office corner's world and skills files (test/data/office_corner), and the embedded SmolLM2 plans
and the simulated graph executes a skill of a family the kitchen does not have, through its affordance
server, its executor and the simulator, whose state then carries the fact the skill set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from repo_paths import TEST_DATA
from ros_harness import allocate_domain_id

pytestmark = [pytest.mark.graph, pytest.mark.model]

OFFICE = TEST_DATA / "office_corner"


def test_the_embedded_model_opens_the_door_of_a_domain_given_by_files(tmp_path: Path) -> None:
    params = tmp_path / "office.yaml"
    domain = {"world_file": str(OFFICE / "world.yaml"), "skills_file": str(OFFICE / "skills.yaml")}
    # The packaged allow-list names the kitchen's skills: a domain lists its own.
    allowed = ["find *", "pick up the *", "put down the *", "go to the *", "bring it to you", "open the door", "done"]
    params.write_text(
        yaml.safe_dump(
            {"/**": {"ros__parameters": domain}, "planner": {"ros__parameters": {"allowed_skills": allowed}}}
        )
    )
    out = tmp_path / "outcome.json"
    argv = [
        str(Path(sys.executable).parent / "llm-planner"),
        "demo",
        *("--params-file", str(params), "--episode", str(OFFICE / "episodes.yaml"), "--id", "open-door"),
        *("--planner", "saycan", "--time-scale", "0", "--json", str(out), "--log-dir", str(tmp_path / "logs")),
    ]
    env = dict(os.environ, ROS_DOMAIN_ID=str(allocate_domain_id()), COLUMNS="120")
    completed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    logs = "".join(path.read_text() for path in (tmp_path / "logs").rglob("*.log"))
    assert out.exists(), f"demo wrote no outcome\n{completed.stdout}\n{completed.stderr}\n{logs}"
    outcome = json.loads(out.read_text())

    first = outcome["steps"][0]
    assert (first["skill"], first["status"]) == ("open the door", "succeeded"), completed.stdout
    # The kitchen's go-to scores the places by distance; the door's family by its preconditions.
    scored = {candidate["skill"]: candidate["affordance"] for candidate in first["candidates"]}
    assert scored["open the door"] == 1.0, scored
    assert "door_open" in outcome["final_state"]["facts"], outcome["final_state"]
    assert "/affordance/door" in logs and "/affordance/wipe" in logs, (
        "the affordance server serves the declared families"
    )
    assert "episode open-door goal holds: fact(door_open)" in completed.stdout, completed.stdout

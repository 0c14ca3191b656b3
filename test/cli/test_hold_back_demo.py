"""Holding back through the graph in domains other than the kitchen, as a user runs them: the shipped
office (``demo --domain``) and a test domain given by files (``--params-file``), with the embedded model.
No skill reaches an executor: their own logs show none."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from demo_runs import run_demo
from repo_paths import REPO_ROOT, TEST_DATA

pytestmark = [pytest.mark.graph, pytest.mark.model]


def executed(logs: dict[str, str]) -> list[str]:
    return [
        line for name, log in logs.items() if "executor" in name for line in log.splitlines() if "executing '" in line
    ]


def test_never_mind_in_the_office_ends_nothing_to_do(tmp_path: Path) -> None:
    completed, logs, outcome = run_demo(
        tmp_path, "--domain", str(REPO_ROOT / "domains" / "office"), "Never mind, thanks."
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert (outcome["ending"], outcome["success"], outcome["steps"]) == ("nothing_to_do", False, [])
    assert "nothing to do (succeeded, no skill run)" in completed.stdout, completed.stdout
    assert executed(logs) == []


def test_an_absent_object_in_a_domain_given_by_files_ends_missing(tmp_path: Path) -> None:
    corner = TEST_DATA / "office_corner"
    params = tmp_path / "corner.yaml"
    domain = {"world_file": str(corner / "world.yaml"), "skills_file": str(corner / "skills.yaml")}
    params.write_text(yaml.safe_dump({"/**": {"ros__parameters": domain}}))
    completed, logs, outcome = run_demo(tmp_path, "--params-file", str(params), "Bring me the banana, please.")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert outcome["ending"] == "missing" and outcome["steps"] == [], outcome["message"]
    assert outcome["message"].startswith("missing: not in the scene: banana (seen: "), outcome["message"]
    assert executed(logs) == []

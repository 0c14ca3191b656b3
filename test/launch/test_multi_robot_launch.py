"""launch/multi_robot.launch.py: one model service at the root, N robots' graphs without one, each
planner pointed at the root's service (run through test/support/launch_stub.py, as ros2 launch would)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from launch_stub import LAUNCH_DIR, launch_nodes

from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.bringup.options import GraphOptionError

LAUNCH_FILE = LAUNCH_DIR / "multi_robot.launch.py"


def test_robots_share_one_model_service(monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = launch_nodes(LAUNCH_FILE, monkeypatch, {"robots": "3"})
    services = [n for n in nodes if n["executable"] == "llm_service"]
    assert [(n["namespace"], n["name"]) for n in services] == [("", "llm_service")]
    for index in (1, 2, 3):
        robot = [n for n in nodes if n["namespace"] == f"/robot{index}"]
        assert sorted(n["name"] for n in robot) == sorted(s.name for s in SIM_GRAPH if s.name != "llm_service")
        (planner,) = [n for n in robot if n["name"] == "planner"]
        assert {"llm_namespace": "/"} in planner["parameters"]


def test_the_model_service_can_run_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = launch_nodes(LAUNCH_FILE, monkeypatch, {"robots": "1", "llm": "false"})
    assert not [n for n in nodes if n["executable"] == "llm_service"]
    assert {n["namespace"] for n in nodes} == {"/robot1"}


def test_a_params_file_is_checked_against_every_robots_nodes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump({"/robot2/planner": {"ros__parameters": {"max_steps": 5}}}))
    nodes = launch_nodes(LAUNCH_FILE, monkeypatch, {"robots": "2", "params_file": str(good)})
    assert len([n for n in nodes if n["name"] == "planner"]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"/robot2/planner": {"ros__parameters": {"confirm_each_step": True}}}))
    with pytest.raises(GraphOptionError, match=r"/robot2/planner.confirm_each_step: not a parameter of planner; its"):
        launch_nodes(LAUNCH_FILE, monkeypatch, {"robots": "2", "params_file": str(bad)})

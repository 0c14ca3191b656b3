"""The arm's named states (what physics_sim's MoveGroup server moves to for a goal that names one):
the robot's `tucked` is the start pose, a domain's layout.yaml may add states, and a malformed entry is
refused naming it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from llm_planner_ros.domain import Domain
from llm_planner_ros.physics_sim import LayoutError, load_layout
from llm_planner_ros.physics_sim.robot import NAMED_STATES, TUCKED


def test_the_robot_names_tucked_and_ready_and_the_kitchen_adds_none(kitchen: Domain) -> None:
    assert NAMED_STATES["tucked"] == pytest.approx(TUCKED)
    assert set(NAMED_STATES) == {"tucked", "ready"}
    assert all(len(angles) == 7 for angles in NAMED_STATES.values())
    assert load_layout(kitchen.config).named_states == {}


def test_a_layout_adds_named_states_and_one_without_seven_angles_is_refused(kitchen: Domain, tmp_path: Path) -> None:
    layout = tmp_path / "layout.yaml"
    layout.write_text(yaml.safe_dump({"named_states": {"wave": [0.0, -0.5, 0.0, -2.0, 0.0, 1.5, math.pi / 4]}}))
    assert load_layout(kitchen.config, layout).named_states["wave"][1] == pytest.approx(-0.5)
    layout.write_text(yaml.safe_dump({"named_states": {"home": [0.0, 0.1]}}))
    with pytest.raises(LayoutError, match=r"named_states\.home.*seven joint angles"):
        load_layout(kitchen.config, layout)

"""The arm's named states of config/physics_kitchen.yaml (what physics_sim_node's MoveGroup server moves
to for a goal that names one): the packaged table's `tucked` is the start pose, and a malformed entry is
refused naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from repo_paths import REPO_ROOT

from llm_planner_ros.domain import Domain
from llm_planner_ros.physics_sim import LayoutError, load_layout
from llm_planner_ros.physics_sim.layout import LAYOUT_FILE
from llm_planner_ros.physics_sim.robot import TUCKED

CONFIG = REPO_ROOT / "config" / LAYOUT_FILE


def test_the_packaged_named_states_hold_tucked_and_ready(kitchen: Domain) -> None:
    states = load_layout(kitchen.config).named_states
    assert states["tucked"] == pytest.approx(TUCKED)
    assert set(states) == {"tucked", "ready"}
    assert all(len(angles) == 7 for angles in states.values())


def test_a_named_state_without_seven_angles_is_refused_naming_it(kitchen: Domain, tmp_path: Path) -> None:
    data = yaml.safe_load(CONFIG.read_text())
    data["named_states"]["home"] = [0.0, 0.1]
    broken = tmp_path / "layout.yaml"
    broken.write_text(yaml.safe_dump(data))
    with pytest.raises(LayoutError, match=r"named_states\.home.*seven joint angles"):
        load_layout(kitchen.config, broken)

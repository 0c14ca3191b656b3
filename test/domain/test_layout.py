"""A domain's physical form (llm_planner_ros.domain.layout): every place and label gets a default, a
layout.yaml overrides any part of it, furniture that leaves the robot no room to stand is refused with
the places and the fix, and the place map the executors use follows from it where the folder has none."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from repo_paths import REPO_ROOT

from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.layout import DEFAULT_FURNITURE, LayoutError, load_layout
from llm_planner_ros.domain.skill import FACTS, MOTION_OF_EFFECT, PICK, PLACE, TERMINATE
from llm_planner_ros.domain.world import EFFECTS
from llm_planner_ros.paths import default_domain
from llm_planner_ros.robot_motion.place_map import load_place_map, place_map_of_layout

OFFICE = REPO_ROOT / "domains" / "office"


def _office_without_layout(tmp_path: Path) -> Path:
    folder = tmp_path / "office"
    folder.mkdir()
    for name in ("world.yaml", "skills.yaml"):
        shutil.copy(OFFICE / name, folder / name)
    return folder


def test_a_folder_without_layout_gets_furniture_at_every_place_and_a_model_for_every_label(tmp_path: Path) -> None:
    folder = _office_without_layout(tmp_path)
    world = folder / "world.yaml"
    # The office's trash can by default stands where the printer's robot must stand; moved, defaults fit.
    world.write_text(world.read_text().replace("trash can:    {x: 1.5, y: -2.5", "trash can:    {x: 0.5, y: -3.0"))
    config = load_domain(folder).config
    layout = load_layout(config)
    assert set(layout.furniture) == set(config.places(with_drawer=True))
    assert {piece.kind for piece in layout.furniture.values()} == {DEFAULT_FURNITURE["kind"]}
    assert set(layout.models) == set(config.labels)
    mug, phone = layout.models["mug"], layout.models["phone"]
    assert mug.text == "MUG" and mug.shape == "box" and mug.color != phone.color
    assert load_layout(config).models["mug"].color == mug.color  # the same colour in every run
    # A default table stands beyond its place, seen from the middle of all places: the robot stands inside.
    desk = layout.furniture["desk"]
    assert desk.standing.x > config.position("desk").x > desk.center[0]
    # The executors' place map follows from it: the base where the robot stands, the surface at the point.
    places = load_place_map(None, config)
    assert places.place("desk").base.x == pytest.approx(desk.standing.x)
    assert places.place("desk").surface.z == pytest.approx(desk.height)


def test_furniture_that_leaves_the_robot_no_room_is_refused_naming_both_places(tmp_path: Path) -> None:
    config = load_domain(_office_without_layout(tmp_path)).config
    with pytest.raises(LayoutError) as error:
        load_layout(config)
    text = str(error.value)
    assert "furniture.trash can" in text and "furniture of 'printer'" in text
    assert "move a place in the world file, or give either a smaller size or another facing_deg" in text


def test_a_layout_overrides_part_of_an_entry_and_refuses_names_the_world_lacks(tmp_path: Path) -> None:
    folder = _office_without_layout(tmp_path)
    layout_file = folder / "layout.yaml"
    layout = yaml.safe_load((OFFICE / "layout.yaml").read_text())
    layout["objects"]["mug"] = {"color": [10, 20, 30]}
    layout_file.write_text(yaml.safe_dump(layout))
    config = load_domain(folder).config
    mug = load_layout(config).models["mug"]
    assert mug.color == (10, 20, 30) and mug.shape == "box" and mug.text == "MUG"  # the rest: defaults
    layout["objects"]["banana"] = {"shape": "sphere", "radius": 0.04}
    layout["furniture"]["garage"] = {"kind": "table"}
    layout["furniture"]["desk"]["kind"] = "sofa"
    layout_file.write_text(yaml.safe_dump(layout))
    with pytest.raises(LayoutError) as error:
        load_layout(config)
    text = str(error.value)
    assert f"{layout_file}: 3 problems" in text
    assert "objects.banana: unknown label 'banana'" in text and "furniture.garage: unknown place 'garage'" in text
    assert "furniture.desk.kind" in text and "'sofa'" in text


def test_a_place_without_furniture_has_no_surface_and_the_robot_stands_on_its_point() -> None:
    config = load_domain(OFFICE).config
    hall = load_layout(config).furniture["hall"]
    assert hall.kind == "none" and (hall.standing.x, hall.standing.y) == (config.position("hall").x, 1.5)
    assert load_place_map(None, config).place("hall").surface is None


def test_the_kitchen_layout_implies_its_written_robot_map_but_for_the_drawer() -> None:
    config = load_domain(default_domain()).config
    written, implied = load_place_map(None, config), place_map_of_layout(load_layout(config), config)
    assert written.source.endswith("robot_map.yaml")
    assert set(written.places) == set(implied.places)
    for name, place in written.places.items():
        derived = implied.places[name]
        assert (derived.base.x, derived.base.y, derived.heading) == pytest.approx(
            (place.base.x, place.base.y, place.heading), abs=1e-3
        ), name
        assert (derived.surface is None) == (place.surface is None), name
        if place.surface is not None:
            assert (derived.surface.x, derived.surface.y, derived.surface.z) == pytest.approx(
                (place.surface.x, place.surface.y, place.surface.z)
            ), name
            assert derived.surface_area.width == pytest.approx(place.surface_area.width), name
            assert derived.surface_area.depth == pytest.approx(place.surface_area.depth), name
    assert written.place("drawers").drawer is not None and implied.place("drawers").drawer is None


def test_what_a_robot_does_for_a_skill_follows_from_its_effects() -> None:
    assert set(MOTION_OF_EFFECT) == set(EFFECTS)
    office = load_domain(OFFICE).library
    assert office.find("hand over the mug").motion == PLACE  # family "hand"
    assert office.find("pick up the mug").motion == PICK
    assert office.find("open the door").motion == FACTS
    assert office.find("wipe the desk").motion == FACTS
    assert office.find("done").motion == TERMINATE

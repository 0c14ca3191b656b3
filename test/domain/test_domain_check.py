"""Checking a domain's files reports every file's problems at once: a mistake in the world hides none in
the skills or the episodes, each file checked as far as the files it depends on read."""

from __future__ import annotations

import shutil
from pathlib import Path

from repo_paths import TEST_DATA

from llm_planner_ros.domain.domain_check import check_domain


def _office(tmp_path: Path) -> Path:
    return Path(shutil.copytree(TEST_DATA / "office_corner", tmp_path / "office"))


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_a_sound_domain_has_its_kitchen_and_episode_counts(tmp_path: Path) -> None:
    folder = _office(tmp_path)
    found = check_domain(folder / "world.yaml", folder / "skills.yaml", [folder / "episodes.yaml"])
    assert found.reports == [] and found.kitchen is not None
    assert found.episode_counts[folder / "episodes.yaml"] >= 1


def test_problems_in_the_world_skills_and_episodes_are_all_reported(tmp_path: Path) -> None:
    folder = _office(tmp_path)
    _replace(folder / "world.yaml", "mug:     {article: a}", "mug:     {article: a, colour: red}")
    _replace(folder / "skills.yaml", "executor: mobile_base", "executor: mobile_bse")
    _replace(folder / "episodes.yaml", "robot: {at: desk, holding: null}", "robot: {att: desk, holding: null}")
    found = check_domain(folder / "world.yaml", folder / "skills.yaml", [folder / "episodes.yaml"])
    assert found.kitchen is None
    assert len(found.reports) == 3, found.reports
    world, skills, episodes = found.reports
    assert world.startswith(f"{folder / 'world.yaml'}: 1 problem") and "objects.mug.colour: unknown key" in world
    assert skills.startswith(f"{folder / 'skills.yaml'}: 1 problem") and "unknown executor 'mobile_bse'" in skills
    assert "line 8, field skills[0].executor" in skills
    assert episodes.startswith(str(folder / "episodes.yaml")) and "initial.robot.att: unknown key" in episodes


def test_files_that_depend_on_an_unreadable_world_are_named_unchecked(tmp_path: Path) -> None:
    folder = _office(tmp_path)
    _replace(folder / "world.yaml", "objects:", "objectz:")
    found = check_domain(folder / "world.yaml", folder / "skills.yaml", [folder / "episodes.yaml"])
    assert len(found.reports) == 2
    assert "field objects: missing (required)" in found.reports[0]
    assert found.reports[1] == "not checked until world.yaml names its places and objects: skills.yaml, episodes.yaml"

"""The repository also builds the way a ROS 2 install builds it: with colcon.

colcon's crawler stops descending at a folder that is itself a package, so the root
ament_python package hides the interface package under msg/; a workspace names both paths
(README, "Building with colcon").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .colcon_workspace import colcon_build


@pytest.mark.timeout(900)
def test_colcon_builds_both_packages(repo_root: Path, tmp_path: Path) -> None:
    root_only = colcon_build(repo_root, tmp_path / "root", ["."])
    assert root_only.returncode == 0, root_only.stdout + root_only.stderr

    both = colcon_build(repo_root, tmp_path / "ws", [".", "msg"])
    assert both.returncode == 0, both.stdout + both.stderr
    install = tmp_path / "ws" / "install"
    assert (install / "llm_planner_ros" / "share" / "llm_planner_ros" / "package.xml").exists()
    generated = list((install / "llm_planner_interfaces").rglob("llm_planner_interfaces/action/_execute_skill.py"))
    assert generated, "colcon did not generate the Python bindings of llm_planner_interfaces"
    scripts = install / "llm_planner_ros" / "lib" / "llm_planner_ros"
    assert (scripts / "planner_node").exists() or (install / "llm_planner_ros" / "bin" / "planner_node").exists()

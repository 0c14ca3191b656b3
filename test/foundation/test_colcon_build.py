"""The repository also builds the way a ROS 2 install builds it: with colcon.

colcon's crawler stops descending at a folder that is itself a package, so the root
ament_python package hides the interface package under msg/; a workspace names both paths
(README, "Building with colcon").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _colcon_env() -> dict[str, str]:
    venv = Path(sys.prefix)
    env = dict(os.environ)
    env.update(AMENT_PREFIX_PATH=str(venv), CMAKE_PREFIX_PATH=str(venv), PATH=f"{venv / 'bin'}:{env['PATH']}")
    return env


def _colcon_build(repo: Path, work: Path, base_paths: list[str]) -> subprocess.CompletedProcess[str]:
    argv = [
        str(Path(sys.prefix) / "bin" / "colcon"), "--log-base", str(work / "log"), "build",
        "--base-paths", *base_paths, "--build-base", str(work / "build"), "--install-base", str(work / "install"),
        "--event-handlers", "console_cohesion+",
        "--cmake-args", f"-DPython3_EXECUTABLE={sys.executable}", "-DBUILD_TESTING=OFF",
    ]
    return subprocess.run(argv, cwd=repo, env=_colcon_env(), capture_output=True, text=True, timeout=900)


@pytest.mark.timeout(900)
def test_colcon_builds_both_packages(repo_root: Path, tmp_path: Path) -> None:
    root_only = _colcon_build(repo_root, tmp_path / "root", ["."])
    assert root_only.returncode == 0, root_only.stdout + root_only.stderr

    both = _colcon_build(repo_root, tmp_path / "ws", [".", "msg"])
    assert both.returncode == 0, both.stdout + both.stderr
    install = tmp_path / "ws" / "install"
    assert (install / "llm_planner_ros" / "share" / "llm_planner_ros" / "package.xml").exists()
    generated = list((install / "llm_planner_interfaces").rglob("llm_planner_interfaces/action/_execute_skill.py"))
    assert generated, "colcon did not generate the Python bindings of llm_planner_interfaces"
    scripts = install / "llm_planner_ros" / "lib" / "llm_planner_ros"
    assert (scripts / "planner_node").exists() or (install / "llm_planner_ros" / "bin" / "planner_node").exists()

"""Building the repository with colcon against the venv's ROS wheels, the way a ROS 2 install builds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# The venv's python, rclpy and ament wheels stand in for /opt/ros/jazzy.
VENV = Path(sys.prefix)


def colcon_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(AMENT_PREFIX_PATH=str(VENV), CMAKE_PREFIX_PATH=str(VENV), PATH=f"{VENV / 'bin'}:{env['PATH']}")
    return env


def colcon_build(repo: Path, work: Path, base_paths: list[str]) -> subprocess.CompletedProcess[str]:
    """``colcon build`` of the packages under ``base_paths`` with build, install and log folders in ``work``."""
    argv = [
        str(VENV / "bin" / "colcon"),
        "--log-base",
        str(work / "log"),
        "build",
        "--base-paths",
        *base_paths,
        "--build-base",
        str(work / "build"),
        "--install-base",
        str(work / "install"),
        "--event-handlers",
        "console_cohesion+",
        "--cmake-args",
        f"-DPython3_EXECUTABLE={sys.executable}",
        "-DBUILD_TESTING=OFF",
    ]
    return subprocess.run(argv, cwd=repo, env=colcon_env(), capture_output=True, text=True, timeout=900)

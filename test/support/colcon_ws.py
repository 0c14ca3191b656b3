"""A colcon workspace built the way a ROS user builds one: the repository in ``ws/src/``, plain
``colcon build`` in ``ws/`` (no ``--base-paths``), then ``source install/setup.bash``.

The venv's rclpy, ament and rosidl wheels stand in for /opt/ros/jazzy (colcon finds them through
AMENT_PREFIX_PATH and CMAKE_PREFIX_PATH). One build serves the whole test session, every pytest-xdist
worker included (fixture ``colcon_workspace`` in test/conftest.py, ``shared_workspace``): building the
interface package takes over a minute here.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# The venv's python, rclpy and ament wheels stand in for /opt/ros/jazzy.
VENV = Path(sys.prefix)
PACKAGES = ("llm_planner_interfaces", "llm_planner_ros")
# Folders a checkout may hold that are not the repository (the venv holds hundreds of package.xml files).
_NOT_SOURCE = {".git", ".venv", "build", "install", "log", "out", ".pytest_cache", "__pycache__"}


def base_env() -> dict[str, str]:
    """The current environment with the venv as the ROS underlay, as /opt/ros/jazzy/setup.bash would set it."""
    env = dict(os.environ)
    env.update(AMENT_PREFIX_PATH=str(VENV), CMAKE_PREFIX_PATH=str(VENV), PATH=f"{VENV / 'bin'}:{env['PATH']}")
    return env


def repository_files(repo: Path) -> list[Path]:
    """What a clone of ``repo`` holds: the tracked files and the untracked ones git does not ignore (the
    work in progress), relative to ``repo``; without git, every file outside build and venv folders."""
    if (repo / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=repo,
            capture_output=True,
            check=True,
        ).stdout
        return [Path(name) for name in listed.decode().split("\0") if name and (repo / name).is_file()]
    return [
        path.relative_to(repo)
        for path in repo.rglob("*")
        if path.is_file() and not _NOT_SOURCE.intersection(path.relative_to(repo).parts)
    ]


@dataclass(frozen=True)
class Workspace:
    """A built workspace: its folder, the output of ``colcon build`` and its exit status, and the
    environment of a shell that sourced ``install/setup.bash``."""

    root: Path
    returncode: int
    output: str
    env: dict[str, str]

    @property
    def install(self) -> Path:
        return self.root / "install"

    def tool(self, name: str) -> str:
        """A command on the sourced workspace's PATH (``ros2``)."""
        found = shutil.which(name, path=self.env["PATH"])
        if found is None:
            raise FileNotFoundError(f"{name} not on the sourced workspace's PATH")
        return found


def sourced_env(setup: Path, env: dict[str, str]) -> dict[str, str]:
    """The environment after ``source setup`` in bash, from ``env``."""
    dump = subprocess.run(
        ["bash", "-c", f'source "{setup}" && env -0'], env=env, capture_output=True, check=True, timeout=60
    ).stdout
    return dict(entry.split("=", 1) for entry in dump.decode().split("\0") if "=" in entry)


def build_workspace(repo: Path, root: Path) -> Workspace:
    """Copy the repository to ``root/src/llm_planner_ros`` and run plain ``colcon build`` in ``root``."""
    clone = root / "src" / "llm_planner_ros"
    for relative in repository_files(repo):
        target = clone / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / relative, target)
    argv = [
        str(VENV / "bin" / "colcon"),
        "build",
        "--event-handlers",
        "console_cohesion+",
        "--cmake-args",
        f"-DPython3_EXECUTABLE={sys.executable}",
        "-DBUILD_TESTING=OFF",
    ]
    env = base_env()
    built = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    return _sourced(root, built.returncode, built.stdout + built.stderr)


def shared_workspace(repo: Path, root: Path) -> Workspace:
    """The workspace of ``repo`` in ``root``, built by the first process that asks and reused by the others
    (pytest-xdist workers): an exclusive ``flock`` makes the others wait for the build, and its outcome is
    kept in ``root/build.json``; each process sources the install into its own environment."""
    root.mkdir(parents=True, exist_ok=True)
    outcome = root / "build.json"
    with open(root / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if outcome.exists():
            done = json.loads(outcome.read_text())
            return _sourced(root, done["returncode"], done["output"])
        workspace = build_workspace(repo, root)
        outcome.write_text(json.dumps({"returncode": workspace.returncode, "output": workspace.output}))
        return workspace


def _sourced(root: Path, returncode: int, output: str) -> Workspace:
    env = base_env()
    setup = root / "install" / "setup.bash"
    return Workspace(root, returncode, output, sourced_env(setup, env) if setup.exists() else env)

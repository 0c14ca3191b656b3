"""``make setup``'s robot interface step never shadows a real ROS install: a package listed in the
ament index of a sourced prefix is used as it is, and nothing is built for it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from repo_paths import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "build_robot_interfaces.py"
_spec = importlib.util.spec_from_file_location("build_robot_interfaces", SCRIPT)
assert _spec is not None and _spec.loader is not None
_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_script)
# Every package the setup step knows, from the script itself.
PACKAGES: tuple[str, ...] = _script.PACKAGES


def test_packages_of_a_sourced_ros_install_are_not_built(tmp_path: Path) -> None:
    ros = tmp_path / "opt_ros_jazzy"
    index = ros / "share/ament_index/resource_index/packages"
    index.mkdir(parents=True)
    for package in PACKAGES:
        (index / package).write_text("")
    env = {**os.environ, "AMENT_PREFIX_PATH": str(ros)}
    build_dir = tmp_path / "build"
    result = subprocess.run(
        [sys.executable, "scripts/build_robot_interfaces.py", "--venv", sys.prefix, "--build-dir", str(build_dir)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    reported = result.stdout.splitlines()
    assert reported == [f"robot interfaces: {p}: using the real package at {ros.resolve()}" for p in PACKAGES]
    assert not build_dir.exists()

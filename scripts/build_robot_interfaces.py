"""Build the wire-compatible robot interface packages in robot_interfaces/ into the venv.

nav2_msgs, moveit_msgs, control_msgs (and the octomap_msgs / object_recognition_msgs types that
moveit_msgs nests) are not on PyPI. The Nav2 / MoveIt executor backends and the simulator that
serves their actions need them importable, and ``launch_ros`` (``ros2 launch``) imports
composition_interfaces, so ``make setup`` builds them from the released definitions with plain
CMake, like llm_planner_interfaces.

A package is built only when no real one provides it: one found on the caller's
``AMENT_PREFIX_PATH`` outside the venv, one importable from outside the venv, or one in the venv
that this script did not install (no marker file). Each outcome is printed; a skipped package is
never touched, so a robot's ROS install is never shadowed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

# Dependency order: moveit_msgs nests object_recognition_msgs and octomap_msgs types.
PACKAGES = (
    "object_recognition_msgs",
    "octomap_msgs",
    "moveit_msgs",
    "nav2_msgs",
    "control_msgs",
    "composition_interfaces",
)
MARKER = "built_by_llm_planner_ros"


def marker_path(venv: Path, package: str) -> Path:
    """The file that marks the venv's copy of ``package`` as built here (not a real install)."""
    return venv / "share" / package / MARKER


def real_provider(package: str, venv: Path) -> str | None:
    """Where a real ``package`` lives, or None when only ours (or none) exists."""
    for prefix in filter(None, os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)):
        prefix_path = Path(prefix).resolve()
        if prefix_path == venv.resolve():
            continue
        if (prefix_path / "share/ament_index/resource_index/packages" / package).is_file():
            return str(prefix_path)
    spec = importlib.util.find_spec(package)
    if spec is not None and spec.origin is not None:
        origin = Path(spec.origin).resolve()
        if not origin.is_relative_to(venv.resolve()) or not marker_path(venv, package).is_file():
            return str(origin.parent)
    return None


def build_env(venv: Path) -> dict[str, str]:
    """The environment the ROS wheels' CMake files need (see the Makefile's ROS_BUILD_ENV)."""
    env = dict(os.environ)
    external = [p for p in env.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    env["AMENT_PREFIX_PATH"] = str(venv)
    # A real dependency outside the venv (say octomap_msgs from /opt/ros) is found after ours.
    env["CMAKE_PREFIX_PATH"] = os.pathsep.join([str(venv), *external])
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_logged(command: list[str], log: Path, env: dict[str, str]) -> None:
    """Run ``command`` with its output in ``log``; on failure print the log and exit."""
    with log.open("w") as out:
        result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
    if result.returncode != 0:
        sys.stderr.write(log.read_text())
        sys.exit(f"robot interfaces: {' '.join(command[:3])} failed (log: {log})")


def build(package: str, source: Path, build_dir: Path, venv: Path, jobs: int) -> None:
    """Configure, build and install one package into the venv, marked as ours."""
    env = build_env(venv)
    package_build = build_dir / package
    package_build.mkdir(parents=True, exist_ok=True)
    configure = [
        "cmake",
        "-S",
        str(source / package),
        "-B",
        str(package_build),
        f"-DCMAKE_INSTALL_PREFIX={venv}",
        f"-DPython3_EXECUTABLE={sys.executable}",
        "-DBUILD_TESTING=OFF",
        "-DCMAKE_BUILD_TYPE=Release",
        "-DPYTHON_ONLY=ON",
    ]
    run_logged(configure, build_dir / f"{package}-configure.log", env)
    run_logged(["cmake", "--build", str(package_build), f"-j{jobs}"], build_dir / f"{package}-build.log", env)
    # Marked before installing, so an interrupted install is still recognised as ours and redone.
    marker = marker_path(venv, package)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("Built from robot_interfaces/ by scripts/build_robot_interfaces.py\n")
    run_logged(["cmake", "--install", str(package_build)], build_dir / f"{package}-install.log", env)


def main() -> None:
    """Build every package in PACKAGES that no real install provides."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path(sys.prefix))
    parser.add_argument("--source", type=Path, default=Path("robot_interfaces"))
    parser.add_argument("--build-dir", type=Path, default=Path("build/robot_interfaces"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    venv, source = args.venv.absolute(), args.source.absolute()
    for package in PACKAGES:
        provider = real_provider(package, venv)
        if provider is not None:
            print(f"robot interfaces: {package}: using the real package at {provider}")
            continue
        print(f"robot interfaces: {package}: building into {venv}", flush=True)
        build(package, source, args.build_dir.absolute(), venv, args.jobs)


if __name__ == "__main__":
    main()

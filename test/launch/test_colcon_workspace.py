"""A ROS user's workspace: the repository cloned into ``ws/src/`` and plain ``colcon build`` in ``ws/``
builds both packages, installs every executable where ``ros2 run`` and launch_ros look
(``lib/llm_planner_ros/``) and registers the package in the ament index explicitly."""

from __future__ import annotations

import tomllib
from pathlib import Path

from colcon_ws import PACKAGES, Workspace
from repo_paths import REPO_ROOT


def console_scripts(repo_root: Path) -> set[str]:
    return set(tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]["scripts"])


def test_plain_colcon_build_in_a_workspace_builds_both_packages(colcon_workspace: Workspace) -> None:
    install = colcon_workspace.install
    for package in PACKAGES:
        assert f"Finished <<< {package}" in colcon_workspace.output, colcon_workspace.output
        marker = install / package / "share" / "ament_index" / "resource_index" / "packages" / package
        assert marker.is_file(), f"{package} is not in the ament index of the install"
    generated = list((install / "llm_planner_interfaces").rglob("llm_planner_interfaces/action/_execute_skill.py"))
    assert generated, "colcon did not generate the Python bindings of llm_planner_interfaces"
    share = install / "llm_planner_ros" / "share" / "llm_planner_ros"
    assert (share / "package.xml").is_file()
    assert sorted(path.name for path in (share / "launch").iterdir()) == sorted(
        path.name for path in (REPO_ROOT / "launch").iterdir()
    )


def test_the_package_installs_its_ament_index_marker_explicitly(colcon_workspace: Workspace) -> None:
    # colcon-ros writes the marker itself for a package that does not, with this warning, a fallback
    # it announces it will remove.
    assert "doesn't explicitly install a marker" not in colcon_workspace.output, colcon_workspace.output


def test_every_executable_is_installed_in_lib_of_the_package_and_none_in_bin(
    colcon_workspace: Workspace, repo_root: Path
) -> None:
    prefix = colcon_workspace.install / "llm_planner_ros"
    libexec = prefix / "lib" / "llm_planner_ros"
    installed = {path.name for path in libexec.iterdir() if path.is_file()} if libexec.is_dir() else set()
    assert installed == console_scripts(repo_root)
    assert not (prefix / "bin").exists(), f"executables in {prefix / 'bin'}: ros2 run and launch_ros never look there"


def test_the_operator_consoles_page_is_installed_beside_its_module(colcon_workspace: Workspace) -> None:
    pages = list(
        (colcon_workspace.install / "llm_planner_ros").glob(
            "lib/python3*/site-packages/llm_planner_ros/operator_console/static"
        )
    )
    assert len(pages) == 1, "the console's static/ folder is not in the colcon install (package/setup.py package_data)"
    assert {path.name for path in pages[0].iterdir()} == {"index.html", "console.js", "console.css"}

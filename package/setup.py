"""ament_python package ``llm_planner_ros`` for colcon: the Python packages under ../src, their nodes, and the
launch, config, data and benchmark files the nodes read.

Its manifest lives in this folder, not at the repository root, because colcon's crawler stops at the first
folder that is a package: with the root a package, a plain ``colcon build`` in a workspace never found the
interface package in ../msg (docs/architecture.md, "Two packages, one repository"). The executables'
names and entry points are read from the root pyproject.toml, which the venv's ``pip install -e .`` uses,
so both installs start the same programs; setup.cfg puts them in lib/llm_planner_ros/ for ``ros2 run``
and launch_ros.
"""

import os
import tomllib
from pathlib import Path

from setuptools import find_packages, setup

PACKAGE = "llm_planner_ros"
SHARE = f"share/{PACKAGE}"
HERE = Path(__file__).resolve().parent
# The repository root, relative: setuptools refuses absolute package and data paths.
ROOT = os.path.relpath(HERE.parent, HERE)
PROJECT = tomllib.loads((HERE.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def tree(folder: str) -> list[tuple[str, list[str]]]:
    """Every file under the root's ``folder`` as data_files pairs, one per sub-folder, kept at the same
    relative place under share/llm_planner_ros (data_files does not recurse); llm_planner_ros.paths reads
    them there."""
    source = os.path.join(ROOT, folder)
    return [
        (f"{SHARE}/{os.path.relpath(root, ROOT)}", [os.path.join(root, name) for name in sorted(names)])
        for root, _, names in sorted(os.walk(source))
        if names
    ]


setup(
    name=PACKAGE,
    version=PROJECT["version"],
    package_dir={"": os.path.join(ROOT, "src")},
    packages=find_packages(os.path.join(ROOT, "src")),
    # the operator console's page, read beside its module
    package_data={"llm_planner_ros.operator_console": ["static/*"]},
    data_files=[
        # The ament index marker: `ros2 pkg`, `ros2 launch` and `ros2 run` find the package by it.
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (SHARE, ["package.xml"]),
        *tree("launch"),
        *tree("config"),
        # the SayCan adapter, bank, its vectors and the lexicon; the episode suites and soak recording
        *tree("data"),
        *tree("benchmarks"),
        # the shipped domain folders (llm-planner demo --domain domains/office, domain:=...)
        *tree("domains"),
    ],
    zip_safe=False,
    maintainer="llm_planner_ros maintainers",
    maintainer_email="maintainers@llm-planner-ros.dev",
    description=PROJECT["description"],
    license=PROJECT["license"],
    python_requires=PROJECT["requires-python"],
    entry_points={"console_scripts": [f"{name} = {target}" for name, target in PROJECT["scripts"].items()]},
)

"""ament_python package ``llm_planner_ros``: installs the Python packages under src/ with their nodes.

Works both with ``pip install -e .`` into the project's venv (``make setup``) and with
``colcon build`` on a machine with a regular ROS 2 Jazzy install.
"""

import os
from glob import glob

from setuptools import find_packages, setup

PACKAGE = "llm_planner_ros"
SHARE = f"share/{PACKAGE}"


def tree(folder: str) -> list[tuple[str, list[str]]]:
    """Every file under ``folder`` as data_files pairs, one per sub-folder, kept at the same relative place
    under share/llm_planner_ros (data_files does not recurse); kitchen_domain.paths reads them there."""
    return [
        (f"{SHARE}/{root}", [os.path.join(root, name) for name in sorted(names)])
        for root, _, names in sorted(os.walk(folder))
        if names
    ]


setup(
    name=PACKAGE,
    version="0.1.0",
    package_dir={"": "src"},
    packages=find_packages("src", exclude=["*.tests"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (SHARE, ["package.xml"]),
        (f"{SHARE}/launch", glob("launch/*.launch.py")),
        (f"{SHARE}/resource", [f"resource/{PACKAGE}"]),
        *tree("config"),
        # the SayCan adapter, bank, its vectors and the lexicon; the episode suites and soak recording
        *tree("data"),
        *tree("benchmarks"),
    ],
    include_package_data=True,
    package_data={"": ["*.yaml"]},
    zip_safe=False,
    maintainer="llm_planner_ros maintainers",
    maintainer_email="maintainers@llm-planner-ros.dev",
    description="LLM task planning grounded in robot affordances, as ROS 2 nodes.",
    license="Apache-2.0",
    python_requires=">=3.11",
    entry_points={
        "console_scripts": [
            "llm-planner = llm_planner_ros.cli.main:main",
            "llm_service_node = llm_planner_ros.nodes.llm_service_node:main",
            "planner_node = llm_planner_ros.nodes.planner_node:main",
            "sim_world_node = kitchen_sim.sim_world_node:main",
            "physics_sim_node = kitchen_sim.physics_sim_node:main",
            "affordance_server = affordance_servers.affordance_server_node:main",
            "saycanpay_scorer = affordance_servers.saycanpay_scorer_node:main",
            "manipulator_executor = skill_executors.executor_node:manipulator_main",
            "mobile_base_executor = skill_executors.executor_node:mobile_base_main",
            "perception_node = perception.perception_node:main",
        ],
    },
)

"""The package layers of docs/architecture.md: no module imports from a layer above its own.

Every import statement of every module under src/ counts, the ones inside functions included (lazy
imports are still dependencies). A module may import from its own folder and from lower layers only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

# Lowest first. A folder is the longest prefix of a module's dotted name listed here.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("kitchen_domain", "babyai_domain"),
    ("llm_planner_ros.options", "llm_planner_ros.llm", "robot_motion"),
    ("physics_sim",),
    ("llm_planner_ros.affordance", "perception"),
    ("llm_planner_ros.planning", "value_functions"),
    ("llm_planner_ros.training", "llm_planner_ros.visualization"),
    ("llm_planner_ros.ros", "perception.ros_messages"),
    ("llm_planner_ros.nodes", "kitchen_sim", "affordance_servers", "skill_executors", "perception.perception_node"),
    ("llm_planner_ros.bringup",),
    ("llm_planner_ros.processes",),
    ("llm_planner_ros.evaluation",),
    ("llm_planner_ros.cli",),
)
_RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}
_PROJECT_ROOTS = {folder.split(".")[0] for folder in _RANK}


def folder_of(module: str) -> str | None:
    """The layer folder a dotted module name belongs to (None: not a project module)."""
    parts = module.split(".")
    for length in range(len(parts), 0, -1):
        prefix = ".".join(parts[:length])
        if prefix in _RANK:
            return prefix
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name.split(".")[0] in _PROJECT_ROOTS]


def upward_imports() -> list[str]:
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        own = folder_of(module)
        if own is None and module in _PROJECT_ROOTS and not _imports(path):
            continue  # a bare package root (llm_planner_ros/__init__.py) with nothing to layer
        if own is None:
            problems.append(f"{path.relative_to(SRC)}: module {module} is in no layer of LAYERS")
            continue
        for line, imported in _imports(path):
            target = folder_of(imported)
            if target is None:
                problems.append(f"{path.relative_to(SRC)}:{line}: imports {imported}, which is in no layer")
            elif target != own and _RANK[target] >= _RANK[own]:
                problems.append(
                    f"{path.relative_to(SRC)}:{line}: {own} (layer {_RANK[own]}) imports {imported} "
                    f"({target}, layer {_RANK[target]})"
                )
    return problems


def test_no_import_runs_upward() -> None:
    problems = upward_imports()
    assert not problems, "imports against the layering:\n" + "\n".join(problems)


def test_the_domain_and_the_planners_never_import_ros() -> None:
    ros_roots = ("rclpy", "llm_planner_interfaces", "std_msgs", "geometry_msgs", "visualization_msgs", "action_msgs")
    offenders = []
    for folder in (
        "kitchen_domain",
        "llm_planner_ros/llm",
        "llm_planner_ros/affordance",
        "llm_planner_ros/planning",
        "llm_planner_ros/training",
        "value_functions",
    ):
        for path in sorted((SRC / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                names = (
                    [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module]
                    if isinstance(node, ast.ImportFrom) and node.module
                    else []
                )
                offenders += [
                    f"{path.relative_to(SRC)}:{node.lineno}: {name}"
                    for name in names
                    if name.split(".")[0] in ros_roots
                ]
    assert not offenders, "ROS imports in ROS-free layers:\n" + "\n".join(offenders)


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("kitchen_domain.world", "kitchen_domain"),
        ("llm_planner_ros.planning.saycan.planner", "llm_planner_ros.planning"),
        ("llm_planner_ros.bringup", "llm_planner_ros.bringup"),
        ("numpy", None),
    ],
)
def test_folder_of(module: str, expected: str | None) -> None:
    assert folder_of(module) == expected

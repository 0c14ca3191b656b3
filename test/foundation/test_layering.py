"""The package layers of docs/architecture.md: no module imports from a layer above its own, and no
module depends on itself through others.

Every import statement of every module under src/ counts, the ones inside functions and under
``TYPE_CHECKING`` included (lazy and type-only imports are still dependencies). A module may import
from its own folder and from lower layers only, and the modules' import graph has no cycle, inside a
folder either; ``from pkg import sub`` counts as importing ``pkg`` (its __init__ runs), so a package
never re-exports a module that takes a sibling through the package.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

SRC = REPO_ROOT / "src"

# Lowest first. A folder is the longest prefix of a module's dotted name listed here.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("llm_planner_ros.yaml_text",),
    ("llm_planner_ros.paths",),
    ("llm_planner_ros.domain", "llm_planner_ros.babyai_domain"),
    ("llm_planner_ros.virtualhome_domain",),
    ("llm_planner_ros.options", "llm_planner_ros.llm", "llm_planner_ros.robot_motion"),
    ("llm_planner_ros.physics_sim",),
    ("llm_planner_ros.affordance", "llm_planner_ros.perception"),
    ("llm_planner_ros.value_functions",),
    ("llm_planner_ros.planning",),
    (
        "llm_planner_ros.training",
        "llm_planner_ros.visualization",
        "llm_planner_ros.recording",
        "llm_planner_ros.operator_console",
    ),
    ("llm_planner_ros.ros", "llm_planner_ros.perception.ros_messages"),
    (
        "llm_planner_ros.nodes",
        "llm_planner_ros.kitchen_sim",
        "affordance_servers",
        "skill_executors",
        "llm_planner_ros.perception.perception_node",
        "llm_planner_ros.mcp_server",
    ),
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


def _project_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(SRC.rglob("*.py"))}


def _imported_module(name: str, modules: Mapping[str, Path]) -> str | None:
    """The project module an import of ``name`` loads last (``a.b.C`` -> ``a.b``), None for others."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def module_imports(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Each project module and the project modules it imports (relative and lazy imports resolved)."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        names: list[str] = []
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
                source = ".".join(part for part in (base, node.module or "") if part)
                # `from pkg import sub` runs pkg's __init__ too: a package that imports a module doing so
                # imports itself back.
                names += [source, *(f"{source}.{alias.name}" for alias in node.names)]
        targets = {_imported_module(name, modules) for name in names}
        graph[module] = {target for target in targets if target and target != module}
    return graph


def import_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = lowest[module] = len(index)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                lowest[module] = min(lowest[module], lowest[target])
            elif target in stack:
                lowest[module] = min(lowest[module], index[target])
        if lowest[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def test_no_module_imports_itself_through_others() -> None:
    graph = module_imports(_project_modules())
    assert len(graph) > 100, "the search found too few modules: has the layout changed?"
    lines = [
        " <-> ".join(cycle) + "\n    " + "\n    ".join(f"{m} imports {sorted(graph[m] & set(cycle))}" for m in cycle)
        for cycle in import_cycles(graph)
    ]
    assert not lines, "import cycles:\n" + "\n".join(lines)


def test_the_cycle_search_sees_lazy_relative_and_type_only_imports(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from pkg import b\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import X\n")
    (package / "c.py").write_text("from . import a\nX = 1\n")
    (package / "d.py").write_text("from pkg.a import f\n")
    modules = {f"pkg.{p.stem}" if p.stem != "__init__" else "pkg": p for p in package.glob("*.py")}
    assert import_cycles(module_imports(modules)) == [["pkg.a", "pkg.b", "pkg.c"]]
    # A package that re-exports a module which takes a sibling through the package imports itself back.
    (package / "__init__.py").write_text("from pkg.d import f\n")
    (package / "d.py").write_text("from pkg import e\nf = 1\n")
    (package / "e.py").write_text("")
    modules = {f"pkg.{p.stem}" if p.stem != "__init__" else "pkg": p for p in package.glob("*.py")}
    assert ["pkg", "pkg.d"] in import_cycles(module_imports(modules))


def test_no_import_runs_upward() -> None:
    problems = upward_imports()
    assert not problems, "imports against the layering:\n" + "\n".join(problems)


def test_the_domain_and_the_planners_never_import_ros() -> None:
    ros_roots = ("rclpy", "llm_planner_interfaces", "std_msgs", "geometry_msgs", "visualization_msgs", "action_msgs")
    offenders = []
    for folder in (
        "llm_planner_ros/domain",
        "llm_planner_ros/llm",
        "llm_planner_ros/affordance",
        "llm_planner_ros/planning",
        "llm_planner_ros/training",
        "llm_planner_ros/value_functions",
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
        ("llm_planner_ros.domain.world", "llm_planner_ros.domain"),
        ("llm_planner_ros.planning.saycan.planner", "llm_planner_ros.planning"),
        ("llm_planner_ros.bringup", "llm_planner_ros.bringup"),
        ("numpy", None),
    ],
)
def test_folder_of(module: str, expected: str | None) -> None:
    assert folder_of(module) == expected

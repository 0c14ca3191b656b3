"""No test is rerun on failure: a test that fails one run in five fails CI one stop in five, and a rerun
only hides the defect behind it (docs/reliability.md). pytest-rerunfailures is installed as colcon-core's
dependency, so nothing but this check keeps its markers and options out."""

from __future__ import annotations

import ast

from repo_paths import REPO_ROOT


def test_no_test_carries_a_flaky_marker_or_a_rerun_option() -> None:
    found = []
    for path in sorted((REPO_ROOT / "test").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr == "flaky":
                found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}: a flaky marker")
            if isinstance(node, ast.keyword) and node.arg in ("reruns", "reruns_delay"):
                found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}: {node.arg}=")
    for config in ("pytest.ini", "pyproject.toml", "Makefile", ".ci/run"):
        text = (REPO_ROOT / config).read_text()
        if "--reruns" in text or "--only-rerun" in text:
            found.append(f"{config}: a rerun option")
    assert not found, "tests rerun on failure; find the cause instead:\n" + "\n".join(found)

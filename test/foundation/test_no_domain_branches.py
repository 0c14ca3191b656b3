"""No code asks which domain is loaded: the names of the shipped domains (their world names and folder
paths) appear in no string or name of src/, so the kitchen and the office go through the code path any
user's folder takes. Which folder is the default is a setting (config/domains.yaml); comments and
docstrings may name a domain as an example."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import yaml
from repo_paths import REPO_ROOT

SRC = REPO_ROOT / "src"


def shipped_domain_names() -> set[str]:
    names = set()
    for world in sorted((REPO_ROOT / "domains").glob("*/world.yaml")):
        names.add(yaml.safe_load(world.read_text(encoding="utf-8"))["world"])
        names.add(f"domains/{world.parent.name}")
    return names


def docstrings(tree: ast.AST) -> set[int]:
    """Ids of the string constants that are docstrings."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def code_texts(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every string constant that is no docstring, and of every name, in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip = docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value
        elif isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, node.attr


def test_the_shipped_domains_are_folders_with_a_world_each() -> None:
    names = shipped_domain_names()
    assert {"saycan_kitchen", "office", "domains/saycan_kitchen", "domains/office"} <= names


def test_no_code_in_src_names_a_shipped_domain() -> None:
    names = shipped_domain_names()
    found = [
        f"{path.relative_to(REPO_ROOT)}:{line}: {text!r}"
        for path in sorted(SRC.rglob("*.py"))
        for line, text in code_texts(path)
        if any(name in text for name in names)
    ]
    assert not found, "code that branches on or points at a shipped domain:\n" + "\n".join(found)

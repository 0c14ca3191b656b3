"""``llm-planner train | collect | domain | oracle``: every tool a user runs is a command of the one CLI, with
a line of help that says what it does, and no module is run as ``python -m`` any more (cli.tools)."""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.cli.tools import COLLECT, DOMAIN, SINGLE, TRAIN, Command

LLM_PLANNER = str(Path(sys.executable).parent / "llm-planner")
SRC = REPO_ROOT / "src"
# The modules that may still run as a program: the CLI itself and the two nodes `ros2 run` starts.
MAIN_MODULES = {"llm_planner_ros/cli/main.py", "llm_planner_ros/nodes/planner_node.py"}
MAIN_MODULES |= {"llm_planner_ros/nodes/llm_service_node.py"}
TOOLS: list[tuple[list[str], Command]] = [
    *((["train", name], command) for name, command in TRAIN.items()),
    *((["collect", name], command) for name, command in COLLECT.items()),
    *((["domain", name], command) for name, command in DOMAIN.items()),
    (["oracle"], SINGLE["oracle"]),
]


def _llm_planner(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="200")  # no help line wrapped
    return subprocess.run([LLM_PLANNER, *argv], capture_output=True, text=True, timeout=60, env=env)


def test_the_top_level_help_lists_every_command_group_with_what_it_does() -> None:
    done = _llm_planner("--help")
    assert done.returncode == 0, done.stderr
    listed = {line.split()[0] for line in done.stdout.splitlines() if line.startswith("    ")}
    assert {"bench", "train", "collect", "domain", "oracle", "mcp"} <= listed, done.stdout
    assert SINGLE["oracle"].help in " ".join(done.stdout.split())


@pytest.mark.parametrize(("group", "tools"), [("train", TRAIN), ("collect", COLLECT), ("domain", DOMAIN)])
def test_a_group_lists_its_commands_each_with_a_line_of_help(group: str, tools: dict[str, Command]) -> None:
    done = _llm_planner(group, "--help")
    assert done.returncode == 0, done.stderr
    listed = " ".join(done.stdout.split())
    for name, command in tools.items():
        assert len(command.help.split()) >= 6, (name, command.help)  # says what it does, not just its name
        assert f"{name} {command.help}" in listed, listed


@pytest.mark.parametrize(("argv", "command"), TOOLS, ids=[" ".join(argv) for argv, _ in TOOLS])
def test_each_tool_answers_help_with_its_own_options(argv: list[str], command: Command) -> None:
    parser = argparse.ArgumentParser()
    importlib.import_module(command.module).add_arguments(parser)
    options = [option for action in parser._actions for option in action.option_strings if option.startswith("--")]
    options.remove("--help")
    done = _llm_planner(*argv, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: llm-planner {' '.join(argv)} "), done.stdout
    assert [option for option in options if option not in done.stdout] == [], done.stdout
    assert "python -m" not in done.stdout


def test_no_module_but_the_cli_and_the_nodes_runs_as_a_program() -> None:
    def runs_as_program(tree: ast.Module) -> bool:
        return any(
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name)
            and node.test.left.id == "__name__"
            for node in tree.body
        )

    programs = {
        str(path.relative_to(SRC)) for path in sorted(SRC.rglob("*.py")) if runs_as_program(ast.parse(path.read_text()))
    }
    assert programs == MAIN_MODULES
    # A message or docstring that says `python -m llm_planner_ros...` names a command that no longer runs.
    told = [str(path.relative_to(SRC)) for path in SRC.rglob("*.py") if "python -m llm_planner_ros" in path.read_text()]
    assert told == []

"""docs/parameters.md is what the nodes declare: the page is ``llm-planner parameters``'s output, every
executable has its section, and the command describes one node or refuses an unknown one by name."""

from __future__ import annotations

import subprocess

from repo_paths import REPO_ROOT

from llm_planner_ros.processes import entry_point
from llm_planner_ros.ros.parameter_files import DECLARED_BY
from llm_planner_ros.ros.parameter_reference import parameter_reference

PAGE = REPO_ROOT / "docs" / "parameters.md"


def test_the_parameters_page_is_the_reference_written_from_the_declared_parameters() -> None:
    assert PAGE.read_text() == parameter_reference(), (
        f"{PAGE} differs from what the nodes declare: run `llm-planner parameters > docs/parameters.md`"
    )


def test_every_executable_has_a_section_and_every_declared_parameter_a_row() -> None:
    sections = PAGE.read_text().split("\n## ")[1:]
    for executable, declaring in DECLARED_BY.items():
        section = next((text for text in sections if f"`{executable}`" in text.splitlines()[0]), None)
        assert section is not None, f"no section for {executable}"
        for name in declaring():
            assert f"| `{name}` |" in section, f"{executable}.{name} has no row"
    planner = next(text for text in sections if text.startswith("`planner`"))
    assert "| `max_steps` | `30` | int >= 1 |" in planner, planner


def test_the_command_describes_the_nodes_asked_for_and_refuses_an_unknown_one() -> None:
    done = subprocess.run(
        [entry_point("llm-planner"), "parameters", "sim_world"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    sections = [line for line in done.stdout.splitlines() if line.startswith("## ")]
    assert sections == ["## `sim_world`"], sections
    assert "| `time_scale` |" in done.stdout
    wrong = subprocess.run(
        [entry_point("llm-planner"), "parameters", "sim_world_node"], capture_output=True, text=True, timeout=60
    )
    assert wrong.returncode == 2 and "no node executable sim_world_node: one of" in wrong.stderr, wrong.stderr

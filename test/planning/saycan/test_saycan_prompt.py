"""The project's SayCan dialog prompt: its file, its rendering per step, and its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from llm_planner_ros.domain import domain_skill_texts
from llm_planner_ros.planning.saycan.prompt import PromptFileError, SayCanPrompt


@pytest.fixture(scope="module")
def prompt(repo_root: Path) -> SayCanPrompt:
    return SayCanPrompt.from_yaml(repo_root / "config" / "saycan_prompt.yaml")


def test_the_prompt_file_has_17_examples_in_kitchen_skills(prompt: SayCanPrompt) -> None:
    skills = set(domain_skill_texts())
    assert len(prompt.examples) == 17
    for example in prompt.examples:
        assert example.human.endswith("?")
        assert example.robot[-1] == "done"
        assert set(example.robot) <= skills, f"{example.human}: {set(example.robot) - skills} are not kitchen skills"


def test_rendering_numbers_the_steps_so_far(prompt: SayCanPrompt) -> None:
    first = prompt.render("  Bring me\na coke. ")
    second = prompt.render("Bring me a coke.", ["find a coke", "pick up the coke"])

    assert first == prompt.header() + "Human: Bring me a coke.\nRobot: 1. "
    assert second == prompt.header() + "Human: Bring me a coke.\nRobot: 1. find a coke, 2. pick up the coke, 3. "
    assert prompt.header().count("\nHuman: ") == 17
    assert "Robot: 1. pick up the tea, 2. done.\n" in prompt.header()
    assert second + prompt.completion("bring it to you") == second + "bring it to you"


@pytest.mark.model
def test_the_prompt_is_about_a_thousand_smollm2_tokens(prompt: SayCanPrompt, smollm2: Any) -> None:
    tokens = len(
        smollm2.tokenizer(prompt.render("I spilled my coke, can you bring me something to clean it up?"))["input_ids"]
    )
    assert 900 <= tokens <= 1200


def test_an_empty_instruction_is_refused(prompt: SayCanPrompt) -> None:
    with pytest.raises(ValueError, match="instruction is empty"):
        prompt.render(" \n ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("examples: [", "not valid YAML"),
        ("- a list", "expected a mapping"),
        ("examples: []", "non-empty list"),
        ("examples:\n  - human: Hi?\n    robot: []", "example 1: `robot` must be a non-empty list"),
        ("examples:\n  - robot: [done]", "example 1: `human` must be the request"),
        ("preamble: [3]\nexamples:\n  - {human: Hi, robot: [done]}", "`preamble` must be a list"),
    ],
)
def test_malformed_prompt_files_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "prompt.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PromptFileError, match=message):
        SayCanPrompt.from_yaml(path)


def test_a_missing_prompt_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(PromptFileError, match="absent.yaml"):
        SayCanPrompt.from_yaml(tmp_path / "absent.yaml")

"""Every YAML file the project reads refuses a key given twice (``llm_planner_ros.yaml_text``): a domain's
own files, its example files and other_objects.yaml, the method and prompt configuration, and the ROS
parameter files a user gives. PyYAML would keep the last one without a word."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from llm_planner_ros.planning.instruction_check import load_other_objects
from llm_planner_ros.planning.llm_planner.prompt import load_plan_examples
from llm_planner_ros.planning.progprompt.examples import load_examples
from llm_planner_ros.planning.registry import load_planner_options
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt
from llm_planner_ros.planning.zero_shot.prompt import load_demonstrations
from llm_planner_ros.ros.parameter_files import read_document
from llm_planner_ros.yaml_text import DuplicateKeyError, load_yaml

READERS: dict[str, tuple[Callable[[Path], Any], str]] = {
    "other_objects.yaml": (load_other_objects, "other_objects: [banana]\nother_objects: [kiwi]\n"),
    "zero_shot.yaml": (
        load_demonstrations,
        "demonstrations:\n  - {task: a, steps: [done]}\n  - task: b\n    task: c\n    steps: [done]\n",
    ),
    "llm_planner.yaml": (load_plan_examples, "examples:\n  - task: a\n    plan: [done]\n    plan: [done]\n"),
    "progprompt.yaml": (load_examples, "programs:\n  - task: a\n    task: b\n"),
    "planners.yaml": (load_planner_options, "saycan: {top_k: 3}\nsaycan: {top_k: 5}\n"),
    "saycan_prompt.yaml": (SayCanPrompt.from_yaml, "preamble: a\npreamble: b\n"),
    "params.yaml": (
        read_document,
        "planner:\n  ros__parameters: {planner: saycan}\nplanner:\n  ros__parameters: {planner: zero_shot}\n",
    ),
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_key_given_twice_is_refused_naming_the_file_the_key_and_both_lines(tmp_path: Path, name: str) -> None:
    reader, text = READERS[name]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError) as refused:  # every reader's own error is a ValueError
        reader(path)
    message = str(refused.value)
    assert "is given twice (first on line" in message and str(path) in message, message


def test_the_loader_names_the_key_and_both_lines_and_reads_everything_else_as_safe_load() -> None:
    with pytest.raises(DuplicateKeyError, match=r"'b' is given twice \(first on line 2\): keep one") as refused:
        load_yaml("a: 1\nb: 2\nc: {d: 3}\nb: 4\n", "f.yaml")
    assert 'in "f.yaml", line 4, column 1' in str(refused.value)
    assert isinstance(refused.value, yaml.YAMLError)
    text = "a: [1, {b: 2}]\nc: {b: 2}\n"
    assert load_yaml(text) == yaml.safe_load(text)
    with pytest.raises(yaml.constructor.ConstructorError):
        load_yaml("a: !!python/object:os.system ls\n")

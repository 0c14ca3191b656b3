"""The program prompt: skills as imported functions derived from the skill library, the scene's names,
the example programs, and the task header; and the program cut out of a completion."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_paths import REPO_ROOT
from world_builders import MakeWorld, vocabulary_of

from llm_planner_ros.domain import World
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.planning.progprompt.examples import ExamplesFileError, load_examples, task_function_name
from llm_planner_ros.planning.progprompt.prompt import program_text, render_prompt
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary, VocabularyError, skill_functions

EXAMPLES = REPO_ROOT / "domains/saycan_kitchen/examples/progprompt.yaml"


def test_skill_functions_are_derived_from_the_skill_texts(coke_world: World) -> None:
    functions = vocabulary_of(coke_world).functions
    assert {name: f.parameter for name, f in functions.items()} == {
        "find": "obj",
        "pick_up": "obj",
        "put_down": "obj",
        "go_to": "location",
        "bring_it_to_you": None,
        "done": None,
    }
    assert functions["find"].skills["energy bar"].text == "find an energy bar"
    assert set(functions["go_to"].skills) == {"close counter", "far counter", "table", "trash can"}
    assert functions["bring_it_to_you"].skills[None].text == "bring it to you"


def test_drawer_scenes_add_drawer_functions_and_the_drawer_as_a_location(make_world: MakeWorld) -> None:
    vocabulary = vocabulary_of(make_world("table", drawer=True, coke_1="drawer"))
    assert vocabulary.import_line().endswith("open_drawer, close_drawer, put_in_drawer <obj>")
    assert vocabulary.locations[-2:] == ("drawers", "drawer")


def test_skills_that_would_share_a_call_are_refused() -> None:
    clash = [Skill("go to the table", "goto", ("table",)), Skill("go to table", "goto", ("table",))]
    with pytest.raises(VocabularyError, match="both become the call go_to\\('table'\\)"):
        skill_functions(clash, ["table"])
    kinds = [Skill("go to the table", "goto", ("table",)), Skill("go to the coke", "find", ("coke",))]
    with pytest.raises(VocabularyError, match="once with parameter location and once with obj"):
        skill_functions(kinds, ["table"])


def test_the_prompt_has_imports_scene_names_examples_and_the_task_header_last(vocabulary: Vocabulary) -> None:
    prompt = render_prompt(load_examples(EXAMPLES), vocabulary, "Bring me a coke, please!")
    lines = prompt.split("\n")
    assert lines[0] == (
        "from actions import find <obj>, pick_up <obj>, put_down <obj>, go_to <location>, bring_it_to_you, done"
    )
    assert "objects = ['apple', 'coke', 'sponge']" in lines
    assert "locations = ['close counter', 'far counter', 'table', 'trash can', 'user']" in lines
    assert "def bring_me_the_sponge():" in lines and "    assert(near('sponge')) else: find('sponge')" in lines
    assert prompt.endswith("\n\ndef bring_me_a_coke_please():")


def test_without_examples_and_with_the_scene_the_prompt_is_lists_scene_comment_and_header(
    vocabulary: Vocabulary,
) -> None:
    scene = "Scene: robot at the table,\n holding the apple.   close counter: coke."
    prompt = render_prompt(None, vocabulary, "Bring me a coke, please!", scene)
    assert prompt.split("\n\n") == [
        "from actions import find <obj>, pick_up <obj>, put_down <obj>, go_to <location>, bring_it_to_you, done",
        "objects = ['apple', 'coke', 'sponge']\n"
        "locations = ['close counter', 'far counter', 'table', 'trash can', 'user']\n"
        "# Scene: robot at the table, holding the apple. close counter: coke.",
        "def bring_me_a_coke_please():",
    ]
    assert "#" not in render_prompt(None, vocabulary, "Bring me a coke", " ")


def test_task_function_names_are_identifiers() -> None:
    assert task_function_name("How would you bring me a coke can?") == "how_would_you_bring_me_a_coke_can"
    assert task_function_name("7up to the table") == "task_7up_to_the_table"
    assert task_function_name("!!!") == "task"
    assert task_function_name("Continue") == "task_continue"
    assert task_function_name("x" * 100).isidentifier() and len(task_function_name("x" * 100)) == 60


def test_the_program_is_the_header_and_the_completions_indented_lines() -> None:
    completion = "\n    find('coke')\n\n    pick_up('coke')\ndef next_task():\n    find('apple')\n"
    assert program_text("bring a coke", completion) == "def bring_a_coke():\n    find('coke')\n\n    pick_up('coke')\n"
    assert program_text("bring a coke", "\nSure! Here is the plan") == "def bring_a_coke():\n"
    assert program_text("bring a coke", " pass\n    done()") == "def bring_a_coke(): pass\n    done()\n"


def test_a_broken_examples_file_names_each_problem(tmp_path: Path) -> None:
    path = tmp_path / "examples.yaml"
    path.write_text(
        "programs:\n  - instruction: ''\n    body: find('coke')\n    extra: 1\n"
        "state_feedback:\n  - facts: []\n    question: q\n    answer: maybe\n"
    )
    with pytest.raises(ExamplesFileError) as raised:
        load_examples(path)
    fields = [problem.field for problem in raised.value.problems]
    assert fields == [
        "programs[0].extra",
        "programs[0].instruction",
        "state_feedback[0].facts",
        "state_feedback[0].answer",
    ]

"""The five methods set up for VirtualHome (planning.virtualhome_planners): each plans a task through the
shared plan loop in eai-eval's simulator with a tiny random-weight model (mechanics, not quality), from
the packaged examples of VirtualHome programs that are not evaluated tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from language_model_doubles import ProgramModel, WordEmbedder
from tiny_llm import build_tiny_model

from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.paths import config_file
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.virtualhome_environment import VirtualHomeEnvironment
from llm_planner_ros.planning.virtualhome_planners import (
    METHODS,
    SimulatorCan,
    build_virtualhome_planner,
    default_llm,
    diverse,
    progprompt_training_text,
    program_body,
    virtualhome_options,
)
from llm_planner_ros.virtualhome_domain.examples import development_split, load_examples, program_task
from llm_planner_ros.virtualhome_domain.tasks import tasks

pytestmark = pytest.mark.timeout(300)
# Short generations: a random model writes to the end of its budget.
SHORT = {"llm_planner": {"max_tokens": 24}, "progprompt": {"max_tokens": 24}}


@pytest.fixture(scope="module")
def long_context_lm(tiny_tokenizer: Any) -> HFLanguageModel:
    """The tiny random-weight model with room for VirtualHome's prompts (ProgPrompt's is the longest)."""
    return HFLanguageModel(build_tiny_model(tiny_tokenizer, context_window=4096), tiny_tokenizer, "tiny-llama")


@pytest.fixture(scope="module")
def pet_cat():  # type: ignore[no-untyped-def]
    (task,) = tasks(["12_2"])
    return task


@pytest.mark.parametrize("method", METHODS)
def test_every_method_plans_a_virtualhome_task_through_the_plan_loop(method: str, long_context_lm, pet_cat) -> None:  # type: ignore[no-untyped-def]
    built = build_virtualhome_planner(method, long_context_lm, WordEmbedder(), load_examples(), SHORT.get(method))
    env = VirtualHomeEnvironment.for_task(pet_cat)
    built.bind(env)
    result = run_plan(built.planner, env.instruction(), env, 6)
    assert result.reason != EndReason.ERROR, result.message
    vocabulary = {skill.text for skill in env.admissible_skills()}
    assert all(step.skill.text in vocabulary for step in result.steps)
    # every action that ran names only the task's objects: the scorer finds no hallucinated object
    assert all(obj in pet_cat.objects for action in env.executed for obj in action.objects)


def test_an_unknown_method_or_option_is_refused(tiny_lm) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="unknown planner 'golog'; choose one of: saycan"):
        build_virtualhome_planner("golog", tiny_lm, WordEmbedder(), load_examples())
    with pytest.raises(ValueError, match="build them with `llm-planner train virtualhome-examples"):
        build_virtualhome_planner("saycan", tiny_lm, WordEmbedder(), [])
    with pytest.raises(TypeError, match="beam_width"):
        build_virtualhome_planner("saycan", tiny_lm, WordEmbedder(), load_examples(), {"beam_width": 3})


def test_progprompt_shows_example_programs_as_calls_of_the_skill_functions() -> None:
    chosen = diverse(load_examples(), 3)
    assert len({example.name for example in chosen}) == 3
    example = chosen[0]
    lines = program_body(example).splitlines()
    assert len(lines) == len(example.steps) - 1  # every step but done, repeats kept
    walk = next(step for step in example.steps if step.startswith("walk to the "))
    assert f"walk_to({walk.removeprefix('walk to the ')!r})" in lines


def test_progprompt_is_trained_on_the_prompt_it_plans_from_with_the_request_as_a_comment() -> None:
    """The adapter's training text is the VirtualHome ProgPrompt planner's own prompt (no example
    programs, the whole request as a comment under the ``def`` line) followed by the example's program;
    a model that writes that program makes the planner run the example's steps to its goals."""
    train, development = development_split(load_examples())
    example = development[1]
    text, start = progprompt_training_text(example, None)
    prompt, program = text[:start], text[start:]
    assert prompt.endswith(f"():\n    # {example.instruction}") and prompt.count("def ") == 1  # no example programs
    assert program.rstrip().endswith("done()") and "#" not in program
    model = ProgramModel(program)
    built = build_virtualhome_planner("progprompt", model, WordEmbedder(), train)
    env = VirtualHomeEnvironment.for_task(program_task(example.id))
    result = run_plan(built.planner, env.instruction(), env, 40)
    assert model.generate_prompts == [prompt]
    assert result.reason == EndReason.DONE, result.message
    assert [step.skill.text for step in result.steps] == list(example.steps)
    assert env.goals_hold


def test_saycanpays_can_is_the_simulators_preconditions_after_the_partial_plan(pet_cat) -> None:  # type: ignore[no-untyped-def]
    can = SimulatorCan()
    with pytest.raises(RuntimeError, match="bind it to the task's environment"):
        can.probabilities("", "", [], ["touch the cat"])
    env = VirtualHomeEnvironment.for_task(pet_cat)
    can.bind(env)
    assert can.probabilities("", "", [], ["touch the cat", "walk to the cat"]) == [0.0, 1.0]
    assert can.probabilities("", "", ["walk to the cat"], ["touch the cat", "done"]) == [1.0, 0.1]
    assert can.probabilities("", "", ["touch the cat"], ["walk to the cat"]) == [0.0]  # the history cannot run
    assert env.executed == []  # planning never moves the task's own scene


def test_saycanpays_can_runs_one_action_per_new_partial_plan_and_answers_as_a_replay(pet_cat, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    env = VirtualHomeEnvironment.for_task(pet_cat)
    can = SimulatorCan()
    can.bind(env)
    skills = list(env.admissible_skills())
    runs = []
    original = VirtualHomeEnvironment.execute

    def counted(self, skill):  # type: ignore[no-untyped-def]
        runs.append(skill.text)
        return original(self, skill)

    monkeypatch.setattr(VirtualHomeEnvironment, "execute", counted)
    # A beam: two branches from one parent. Each answer is what a replay from the start gives.
    for history in (["walk to the cat"], ["walk to the cat", "touch the cat"], ["walk to the cat", "done"]):
        replayed = env.at_start().after(history).affordances(skills)
        assert can.probabilities("", "", history, [skill.text for skill in skills]) == replayed
    assert len(runs) - (1 + 2 + 2) == 3, runs  # beside the replays' 5 actions, one per new partial plan
    # The branches did not see each other's actions, and the task's own scene never moved.
    assert can.probabilities("", "", ["walk to the cat", "touch the cat"], ["done"]) == [0.1]
    assert env.executed == []


def test_the_methods_virtualhome_options_and_adapters_come_from_config_planners_yaml(tmp_path: Path) -> None:
    # The packaged sections: SayCan and ProgPrompt plan with their VirtualHome adapters, the others with none.
    assert virtualhome_options("saycan") == {"examples": "retrieved", "retrieved_examples": 3, "top_k": 5}
    assert default_llm("saycan") == {"adapter": "data/virtualhome/saycan_adapter.safetensors"}
    assert default_llm("zero_shot") == {"adapter": "none"}
    # A user's planners file changes them without code.
    packaged = yaml.safe_load(config_file("planners.yaml").read_text())
    packaged["domains"]["virtualhome"]["zero_shot"] = {"samples": 4, "adapter": "mine.safetensors"}
    mine = tmp_path / "planners.yaml"
    mine.write_text(yaml.safe_dump(packaged))
    assert virtualhome_options("zero_shot", mine) == {"samples": 4}
    assert default_llm("zero_shot", mine) == {"adapter": "mine.safetensors"}
    packaged["domains"]["virtualhome"]["telepathy"] = {}
    mine.write_text(yaml.safe_dump(packaged))
    with pytest.raises(ValueError, match="domains: virtualhome: unknown planner.s. telepathy"):
        virtualhome_options("zero_shot", mine)

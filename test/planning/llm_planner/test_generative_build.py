"""Both planners build from the registry with config/planners.yaml and their example files; a bad example
file is refused with the entry and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from language_model_doubles import ScriptedModel, WordEmbedder

from llm_planner_ros.domain import Domain
from llm_planner_ros.paths import default_domain_file
from llm_planner_ros.planning.llm_planner.planner import LlmPlanner
from llm_planner_ros.planning.llm_planner.prompt import DEFAULT_INTRODUCTION, load_plan_examples
from llm_planner_ros.planning.plan_loop import run_plan
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.planning.zero_shot.planner import ZeroShotPlanner
from llm_planner_ros.planning.zero_shot.prompt import load_demonstrations


def resources(kitchen: Domain, **options: dict[str, object]) -> PlannerResources:
    return PlannerResources(ScriptedModel([]), kitchen, WordEmbedder, {**load_planner_options(), **options})


def test_both_planners_build_from_the_shipped_configuration(kitchen: Domain) -> None:
    zero_shot = build_planner("zero_shot", resources(kitchen))
    assert isinstance(zero_shot, ZeroShotPlanner)
    assert (zero_shot.options.samples, zero_shot.options.beta) == (10, 0.3)
    llm_planner = build_planner("llm_planner", resources(kitchen))
    assert isinstance(llm_planner, LlmPlanner) and llm_planner.options.replan_on_new_objects is False


def test_the_shipped_llm_planner_prompt_is_that_of_its_adapter(kitchen: Domain) -> None:
    """No retrieved examples, and a scene line: what the embedded model's llm_planner adapter was trained on."""
    model = ScriptedModel([[" done\n"]])
    planner = build_planner("llm_planner", PlannerResources(model, kitchen, WordEmbedder, load_planner_options()))
    world = kitchen.world(
        {"robot": {"at": "table", "holding": None}, "objects": [{"id": "coke_1", "label": "coke", "at": "table"}]}
    )
    run_plan(planner, "bring me the coke", SimulatedEnvironment(world), 3)
    prompt = model.calls[0].prompt
    assert prompt.count("Task description:") == 1, prompt
    assert "\nScene: robot at the table, holding nothing. " in prompt, prompt


def test_example_steps_must_be_kitchen_skills(kitchen: Domain, tmp_path: Path) -> None:
    bad = tmp_path / "demos.yaml"
    bad.write_text("demonstrations:\n  - task: Fetch a coke.\n    steps: [find a coke, grab the coke, done]\n")
    with pytest.raises(ValueError, match=r"no kitchen skill \(fix the spelling\): 'grab the coke'"):
        build_planner("zero_shot", resources(kitchen, zero_shot={"examples_file": str(bad)}))
    bad.write_text("examples:\n  - task: Fetch a coke.\n    plan: [find a coke, fetch it, done]\n")
    with pytest.raises(ValueError, match="'fetch it'"):
        build_planner("llm_planner", resources(kitchen, llm_planner={"examples_file": str(bad)}))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("examples: []\n", "non-empty `examples:` list"),
        ("examples:\n  - task: Fetch a coke.\n", r"examples\[0\]: needs `task` \(text\) and `plan`"),
        ("examples:\n  - {task: a, plan: [done], objects: coke}\n", "`objects` must be a list"),
        ("examples:\n  - {task: a, plan: [done], scene: kitchen}\n", "unknown key"),
    ],
)
def test_malformed_llm_planner_examples_name_the_entry(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "examples.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_plan_examples(path)


def test_malformed_demonstrations_name_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "demos.yaml"
    path.write_text("demonstrations:\n  - {task: a, steps: [done]}\n  - {task: b, plan: [done]}\n")
    with pytest.raises(ValueError, match=r"demonstrations\[1\] needs exactly `task`"):
        load_demonstrations(path)


def test_shipped_example_files_load(kitchen: Domain) -> None:
    prompt, examples = load_plan_examples(default_domain_file("examples/llm_planner.yaml"))
    assert prompt.introduction == DEFAULT_INTRODUCTION and len(examples) >= 15
    assert all(example.steps[-1] == "done" for example in examples)
    demonstrations = load_demonstrations(default_domain_file("examples/zero_shot.yaml"))
    assert len(demonstrations) >= 10 and all(d.steps[-1] == "done" for d in demonstrations)

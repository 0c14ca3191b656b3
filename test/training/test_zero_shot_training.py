"""Training data of zero-shot planning for the embedded model's adapter: the planner's own step prompts
(the nearest demonstration, the request, the steps done), the oracle's steps as what it should write after
each ``Step N:``, and the loss on those steps only."""

from __future__ import annotations

import pytest
from language_model_doubles import ScriptedModel, WordEmbedder
from repo_paths import REPO_ROOT
from saycan_doubles import word_tokenizer

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.paths import default_domain_file
from llm_planner_ros.planning.domain_examples import domain_bank
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.planning.skill_projection import SkillProjector
from llm_planner_ros.planning.zero_shot.planner import ZeroShotOptions, ZeroShotPlanner
from llm_planner_ros.planning.zero_shot.prompt import Demonstration, load_demonstrations
from llm_planner_ros.planning.zero_shot.training import encode_steps, initial_scene, nearest_other, step_text
from llm_planner_ros.training.saycan_bank import generate_examples


@pytest.fixture(scope="module")
def kitchen() -> Domain:
    return load_domain_files()


@pytest.fixture(scope="module")
def bank(kitchen: Domain) -> list[PlanExample]:
    return generate_examples(kitchen, 30, seed=5)


@pytest.fixture(scope="module")
def retriever() -> KnnRetriever[Demonstration]:
    demonstrations = load_demonstrations(default_domain_file("examples/zero_shot.yaml"))
    return KnnRetriever(demonstrations, lambda demonstration: demonstration.task, WordEmbedder())


@pytest.mark.parametrize("scene_context", [False, True])
def test_each_step_is_what_the_planner_prompts_and_the_steps_reach_the_goal(
    kitchen: Domain, bank: list[PlanExample], retriever: KnnRetriever[Demonstration], scene_context: bool
) -> None:
    for example in bank:
        scene = initial_scene(kitchen, example) if scene_context else ""
        text, spans = step_text(retriever.nearest(example.instruction, 1)[0], example, scene)
        assert [text[first:last] for first, last in spans] == [f" {step}\n" for step in example.steps]
        assert (f"Task: {example.instruction}\nScene: robot " in text) == scene_context
        # The model writes each step as the step grammar makes it: a space, the skill text, a newline.
        model = ScriptedModel([[text[first:last]] for first, last in spans])
        options = ZeroShotOptions(samples=1, scene_context=scene_context, max_failures=1)
        planner = ZeroShotPlanner(model, retriever, SkillProjector(WordEmbedder()), options)
        result = run_plan(planner, example.instruction, SimulatedEnvironment(kitchen.world(example.initial)), 30)
        assert [call.prompt for call in model.calls] == [text[:first] for first, _ in spans], example.id
        assert result.reason == EndReason.DONE, (example.id, result.message)
        assert [step.skill.text for step in result.steps] == list(example.steps), example.id


def test_only_the_step_tokens_are_targets(
    kitchen: Domain, bank: list[PlanExample], retriever: KnnRetriever[Demonstration]
) -> None:
    texts = [step_text(retriever.nearest(example.instruction, 1)[0], example)[0] for example in bank]
    tokenizer = word_tokenizer(texts)
    sequences = encode_steps(tokenizer, retriever, bank)
    with_scene = encode_steps(word_tokenizer([*texts, *(e.scene for e in bank)]), retriever, bank, kitchen)
    assert all(len(a.ids) > len(b.ids) for a, b in zip(with_scene, sequences, strict=True))
    for example, text, sequence in zip(bank, texts, sequences, strict=True):
        _, spans = step_text(retriever.nearest(example.instruction, 1)[0], example)
        offsets = tokenizer(text, return_offsets_mapping=True)["offset_mapping"]
        scored = [i for i, (start, end) in enumerate(offsets) if any(end > a and start < b for a, b in spans)]
        assert list(sequence.targets) == scored
        # "Step N:" and the prompt before the first step are never targets.
        assert not any(text[offsets[i][0] : offsets[i][1]].startswith("Step") for i in sequence.targets)


def test_in_a_domain_an_example_follows_the_nearest_demonstration_of_another_request() -> None:
    """In a domain the demonstrations are its bank, which holds the training examples themselves: each
    follows the nearest bank example that is not itself, as a new request at planning time does."""
    office = load_domain(REPO_ROOT / "domains" / "office")
    _, bank = domain_bank(office)
    demonstrations = KnnRetriever(
        [Demonstration(e.instruction, e.steps) for e in bank[:60]], lambda d: d.task, WordEmbedder()
    )
    for example in bank[:60]:
        ranked = demonstrations.ranked(example.instruction)
        assert ranked[0][0].task == example.instruction  # the example itself is the nearest
        shown = nearest_other(demonstrations, example.instruction)
        others = [similarity for demonstration, similarity in ranked if demonstration.task != example.instruction]
        assert shown.task != example.instruction
        assert dict((d.task, s) for d, s in ranked)[shown.task] == max(others)
    lonely = KnnRetriever([Demonstration("open the door", ("open the door", "done"))], lambda d: d.task, WordEmbedder())
    with pytest.raises(ValueError, match="no demonstration of another task"):
        nearest_other(lonely, "open the door")

"""Training data of the ProgPrompt adapter: the planner's own prompt, the oracle plan as a program it
accepts and runs, the loss on the program only, and a training step of the generalised trainer."""

from __future__ import annotations

import pytest
import torch
from language_model_doubles import ProgramModel
from repo_paths import REPO_ROOT
from saycan_doubles import tiny_llama, word_tokenizer

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.llm.lora import MODULE_PATHS, AdapterSpec, attach
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.progprompt.examples import load_examples
from llm_planner_ros.planning.progprompt.planner import ProgPromptOptions, ProgPromptPlanner
from llm_planner_ros.planning.progprompt.prompt import program_text
from llm_planner_ros.planning.progprompt.training import encode_program, program_example
from llm_planner_ros.planning.progprompt.validator import parse_program
from llm_planner_ros.planning.progprompt.vocabulary import scene_vocabulary
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.training.saycan_adapter import TopLayerTrainer, program_sequences
from llm_planner_ros.training.saycan_bank import generate_examples

EXAMPLES = load_examples(REPO_ROOT / "domains/saycan_kitchen/examples/progprompt.yaml")


@pytest.fixture(scope="module")
def kitchen() -> Domain:
    return load_domain_files()


@pytest.fixture(scope="module")
def bank(kitchen: Domain) -> list[PlanExample]:
    """Generated requests of several families with their oracle plans (drawer scenes among them)."""
    return list(generate_examples(kitchen, 24, seed=3))


@pytest.mark.parametrize("shown", [True, False], ids=["examples-file", "examples-none-scene-context"])
def test_the_program_is_what_the_planner_prompts_and_runs_to_the_goal(
    kitchen: Domain, bank: list[PlanExample], shown: bool
) -> None:
    options = ProgPromptOptions() if shown else ProgPromptOptions(examples="none", scene_context=True)
    for example in bank:
        text, start = program_example(kitchen, EXAMPLES if shown else None, example, scene_context=not shown)
        assert ("else: find('sponge')" in text[:start]) == shown and ("\n# Scene: robot " in text) != shown
        model = ProgramModel(text[start:])
        planner = ProgPromptPlanner(model, EXAMPLES, options)
        env = SimulatedEnvironment(kitchen.world(example.initial))
        result = run_plan(planner, example.instruction, env, max_steps=len(example.steps) + 2)
        assert model.generate_prompts == [text[:start]], example.id
        assert planner.cut is None and result.reason == EndReason.DONE, (example.id, result.message)
        assert [step.skill.text for step in result.steps] == list(example.steps), example.id


def test_every_program_passes_the_validator(kitchen: Domain, bank: list[PlanExample]) -> None:
    families = set()
    for example in bank:
        text, start = program_example(kitchen, EXAMPLES, example)
        program = parse_program(program_text(example.instruction, text[start:]), scene_vocabulary(kitchen, example))
        assert [call.skill.text for call in program.body] == list(example.steps)
        families.add(example.family)
    assert len(families) >= 5, families


def test_only_the_program_tokens_are_targets(kitchen: Domain, bank: list[PlanExample]) -> None:
    example = bank[0]
    text, start = program_example(kitchen, EXAMPLES, example)
    tokenizer = word_tokenizer([text])
    sequence = encode_program(tokenizer, kitchen, EXAMPLES, example)
    targets = set(sequence.targets)
    offsets = tokenizer(text, return_offsets_mapping=True)["offset_mapping"]
    assert targets == {i for i, (_, end) in enumerate(offsets) if end > start}
    program_words = tokenizer(text[start:])["input_ids"]
    assert [sequence.ids[i] for i in sequence.targets] == program_words


def test_a_training_step_on_programs_lowers_the_loss_of_a_tiny_model(bank: list[PlanExample]) -> None:
    texts = [program_example(load_domain_files(), EXAMPLES, example)[0] for example in bank[:4]]
    tokenizer = word_tokenizer(texts)
    sequences = program_sequences(tokenizer, bank[:4])
    model = tiny_llama(layers=2, vocab=len(tokenizer))
    trainer = TopLayerTrainer(model, split=1)
    hidden = trainer.bottom(sequences)
    wrapped = attach(model, AdapterSpec(layers=(1,), modules=MODULE_PATHS, rank=4))
    optimizer = torch.optim.AdamW([p for m in wrapped.values() for p in (m.A, m.B)], lr=0.05)
    before = trainer.loss(hidden, sequences).item()
    for _ in range(40):
        trainer.loss(hidden, sequences).backward()
        optimizer.step()
        optimizer.zero_grad()
    assert trainer.loss(hidden, sequences).item() < before - 0.1

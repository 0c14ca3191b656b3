"""ProgPrompt training programs: a generated request rendered as the planner's program prompt plus the
oracle's plan written as a program.

The prompt is exactly what ``ProgPromptPlanner`` sends for the request's scene at its first step
(``progprompt.prompt.render_prompt``: the import line, the scene's objects and locations, the example
programs, the task's ``def`` line; or, for the planner's ``examples: none`` and ``scene_context: true``, no
example programs and the scene comment after the lists); the vocabulary comes from a ``SimulatedEnvironment``
of the example's initial scene, as in ``llm-planner bench kitchen``. The completion is the oracle plan (A*,
shortest) with each skill text written as the call the planner's own vocabulary maps to it (``find a coke`` ->
``find('coke')``), one per line, ending with ``done()`` and the empty line that closes a program in the
program grammar (``planning.grammars.program_grammar``). Only the completion's tokens are targets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.llm.training_sequences import TrainingSequence, completion_sequence
from llm_planner_ros.planning.grammars import INDENT
from llm_planner_ros.planning.progprompt.examples import PromptExamples
from llm_planner_ros.planning.progprompt.prompt import render_prompt
from llm_planner_ros.planning.progprompt.vocabulary import (
    Vocabulary,
    call_texts,
    environment_vocabulary,
)
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment


class UnwritableStep(ValueError):
    """An oracle step that is no call of the scene's vocabulary (the skill texts and the vocabulary disagree)."""


def program_completion(vocabulary: Vocabulary, steps: Sequence[str]) -> str:
    """The completion after the ``def`` line: one indented call per step, then the closing empty line.

    UnwritableStep when a step is not a call of ``vocabulary``.
    """
    calls = call_texts(vocabulary)
    missing = [step for step in steps if step not in calls]
    if missing:
        raise UnwritableStep(f"oracle step(s) {missing} are no call of this scene's vocabulary")
    return "".join(f"\n{INDENT}{calls[step]}" for step in steps) + "\n\n"


def program_example(
    kitchen: Domain, examples: PromptExamples | None, example: PlanExample, scene_context: bool = False
) -> tuple[str, int]:
    """The training text of ``example`` and where its completion starts (characters); ``examples`` None
    and ``scene_context`` as the planner's options ``examples: none`` and ``scene_context: true``."""
    env = SimulatedEnvironment(kitchen.world(example.initial))
    world = env.snapshot()
    vocabulary = environment_vocabulary(env, world)
    scene = describe_scene(world) if scene_context else ""
    prompt = render_prompt(examples, vocabulary, example.instruction, scene)
    return prompt + program_completion(vocabulary, example.steps), len(prompt)


def encode_program(
    tokenizer: Any,
    kitchen: Domain,
    examples: PromptExamples | None,
    example: PlanExample,
    scene_context: bool = False,
) -> TrainingSequence:
    """Tokenize a training program; the targets are the tokens that reach into the completion."""
    return completion_sequence(tokenizer, *program_example(kitchen, examples, example, scene_context))

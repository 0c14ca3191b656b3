r"""Zero-shot training plans: a generated request rendered as the zero-shot planner's step prompts, one
after the other, with the oracle plan's steps as what the model should write after each ``Step N:``.

The zero-shot planner (``planning.zero_shot.planner``) prompts with the demonstration nearest to the request
(the same retriever over the same demonstration set), the request and the steps done so far, ending with
``Step N:``; the step grammar (``planning.grammars.step_grammar``) makes the model write a space, one skill
text and a newline. Since each step's prompt is the previous one followed by its step, one text holds every
step of the plan: the text up to each step is exactly the planner's prompt for it, and the targets are the
tokens of the steps (" find a coke\n", ..., " done\n"). The oracle's steps all run, so none of them is
the failed step the planner would leave out of its prompt. With the planner's ``scene_context`` the
request is followed by the scene line of its initial world, as the planner writes it when the plan starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.llm.training_sequences import TrainingSequence, spans_sequence
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.planning.zero_shot.prompt import STEP_STOP, Demonstration, step_prompt


def step_text(demonstration: Demonstration, example: PlanExample, scene: str = "") -> tuple[str, list[tuple[int, int]]]:
    """The training text of ``example`` after ``demonstration`` (with the ``scene`` line under the task
    when given) and the character spans of its steps (each a space, the skill text and the newline that
    ends the step)."""
    steps = list(example.steps)
    text = step_prompt(demonstration, example.instruction, (), scene)
    spans = []
    for number, step in enumerate(steps, start=1):
        if number > 1:
            text += f"Step {number}:"
        spans.append((len(text), len(text) + 1 + len(step) + len(STEP_STOP)))
        text += f" {step}{STEP_STOP}"
    return text, spans


def initial_scene(kitchen: Domain, example: PlanExample) -> str:
    """The scene line the planner's ``scene_context`` puts in the prompt for ``example``'s initial world."""
    return describe_scene(SimulatedEnvironment(kitchen.world(example.initial)).snapshot())


def encode_steps(
    tokenizer: Any,
    demonstrations: KnnRetriever[Demonstration],
    chosen: Sequence[PlanExample],
    kitchen: Domain | None = None,
) -> list[TrainingSequence]:
    """Tokenize each chosen example after its nearest demonstration of another task, with its scene line
    when a ``kitchen`` is given (the planner's ``scene_context``); the targets are the step tokens. In a
    domain the demonstrations are the bank the examples come from: an example shown its own plan would
    learn to copy, which a new request cannot."""
    return [
        spans_sequence(
            tokenizer,
            *step_text(
                nearest_other(demonstrations, example.instruction),
                example,
                initial_scene(kitchen, example) if kitchen is not None else "",
            ),
        )
        for example in chosen
    ]


def nearest_other(demonstrations: KnnRetriever[Demonstration], task: str) -> Demonstration:
    """The demonstration nearest ``task`` whose task is another text; ValueError when every one is ``task``."""
    other = next((d for d, _ in demonstrations.ranked(task) if d.task != task), None)
    if other is None:
        raise ValueError(f"no demonstration of another task than {task!r} to show before it")
    return other

"""SayCan's training text: a bank example written as the dialog the planner scores, with the character
spans of its skill texts, so that the adapter trains on the tokens SayCan scores at inference
(``training.saycan_adapter`` trains on it; the other methods' encoders sit beside their planners)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_planner_ros.llm.training_sequences import TrainingSequence, spans_sequence
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.prompt import DialogExample, SayCanPrompt


def dialog_text(
    prompt: SayCanPrompt, example: PlanExample, shown: Sequence[DialogExample] = ()
) -> tuple[str, list[tuple[int, int]]]:
    """The training text of ``example`` after the examples ``shown``, and the character spans of its
    skill texts.

    The text up to "Robot: 1. " is exactly the planner's first-step prompt with those examples, and each
    later step continues it as the planner's next prompt would, so training and scoring read alike.
    """
    text = prompt.render(example.instruction, [], example.scene, examples=list(shown))
    spans = []
    for number, step in enumerate(example.steps, start=1):
        if number > 1:
            text += f", {number}. "
        spans.append((len(text), len(text) + len(step)))
        text += step
    return text + ".", spans


def encode(
    tokenizer: Any, prompt: SayCanPrompt, example: PlanExample, shown: Sequence[DialogExample] = ()
) -> TrainingSequence:
    """Tokenize a dialog; a token is a target when its characters reach into a skill text of the target
    plan (a token that straddles the join, like " find", belongs to the skill, as in scoring)."""
    return spans_sequence(tokenizer, *dialog_text(prompt, example, shown))

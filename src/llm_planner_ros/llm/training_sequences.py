"""Token sequences every method's adapter trains on: a text's token ids and the positions scored.

The loss of an adapter falls on the tokens a planner scores (skill texts, a program, a plan); these
helpers turn a text and the character spans of those parts into ids and target positions, the same way
for SayCan's dialogs (``training.saycan_adapter``) and the generative methods' encoders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TrainingSequence:
    """Token ids of one dialog and the positions whose tokens are scored (skill texts)."""

    ids: tuple[int, ...]
    targets: tuple[int, ...]


def completion_sequence(tokenizer: Any, text: str, start: int) -> TrainingSequence:
    """Tokenize a prompt and its completion (``text[start:]``); the targets are the tokens that reach
    into the completion."""
    return spans_sequence(tokenizer, text, [(start, len(text))])


def spans_sequence(tokenizer: Any, text: str, spans: Sequence[tuple[int, int]]) -> TrainingSequence:
    """Tokenize ``text``; the targets are the tokens that reach into one of the character ``spans``."""
    encoded = tokenizer(text, return_offsets_mapping=True)
    return TrainingSequence(tuple(encoded["input_ids"]), tuple(target_positions(encoded["offset_mapping"], spans)))


def target_positions(offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> list[int]:
    """Indices of the tokens whose characters reach into one of ``spans`` (the first token never: nothing
    predicts it)."""
    return [
        index
        for index, (start, end) in enumerate(offsets)
        if any(end > first and start < last for first, last in spans) and index > 0
    ]

"""The Say model's few-shot prompt for SayCanPay: expert plans of the training data, then the task.

The paper prompts its Say model with 3 examples (goal and initial observation in, plan out) and
scores each action as the text up to the end of the step; here a step ends with a newline. A
multi-line observation (the kitchen's ``World.summary()``) is written on one line, its lines ending
in full stops::

    [Goal] pick up the ball.
    [Initial State] Room 1 has green ball. Room 2 has agent, yellow key. ...
    [Step 1] pick up yellow key
    ...
    [Step 8] done picking up

    [Goal] <the task's goal>
    [Initial State] <its initial observation>
    [Step 1] <completion>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

STEP_END = "\n"


@dataclass(frozen=True)
class PlanExample:
    """One expert plan shown in the prompt."""

    goal: str
    initial_state: str
    plan: tuple[str, ...]


@dataclass(frozen=True)
class SayPrompt:
    """Renders the prompt for a partial plan and the completions that score candidate actions."""

    examples: tuple[PlanExample, ...]

    def render(self, goal: str, initial_state: str, history: Sequence[str]) -> str:
        blocks = [_block(e.goal, e.initial_state, e.plan) + STEP_END for e in self.examples]
        task = _block(goal, initial_state, history)
        return "\n".join([*blocks, task + (STEP_END if history else "") + f"[Step {len(history) + 1}]"])

    @staticmethod
    def completion(action: str) -> str:
        return f" {action}{STEP_END}"

    def for_goal(self, goal: str) -> SayPrompt:
        """A fixed prompt: the same examples for every goal (``PromptSource``)."""
        return self


class PromptSource(Protocol):
    """Where a domain's Say prompt comes from: fixed examples (``SayPrompt``) or examples chosen per goal."""

    def for_goal(self, goal: str) -> SayPrompt: ...


def _block(goal: str, initial_state: str, steps: Sequence[str]) -> str:
    lines = [f"[Goal] {goal.strip()}", f"[Initial State] {one_line(initial_state)}"]
    lines += [f"[Step {i}] {step}" for i, step in enumerate(steps, start=1)]
    return STEP_END.join(lines)


def pick_examples(examples: Sequence[PlanExample], count: int) -> tuple[PlanExample, ...]:
    """``count`` examples with as many different plan lengths as possible (short and long plans, so
    the model sees both a direct plan and one that unlocks doors and moves an obstacle), first ones
    of each length first; deterministic."""
    by_length: dict[int, list[PlanExample]] = {}
    for example in examples:
        by_length.setdefault(len(example.plan), []).append(example)
    chosen: list[PlanExample] = []
    while len(chosen) < min(count, len(examples)):
        for length in sorted(by_length):
            if by_length[length] and len(chosen) < count:
                chosen.append(by_length[length].pop(0))
    return tuple(chosen)


def one_line(observation: str) -> str:
    """The observation on one line: each of several lines ends in a full stop (a one-line text as is)."""
    lines = [line.strip() for line in observation.strip().splitlines() if line.strip()]
    if len(lines) <= 1:
        return observation.strip()
    return " ".join(line if line.endswith(".") else f"{line}." for line in lines)


# Kitchen examples, one per instruction family in this order: a delivery, putting down what the
# robot holds (embodiment), moving two objects (long horizon), then the other families.
KITCHEN_FAMILIES = (
    "structured_language",
    "embodiment",
    "long_horizon",
    "drawer",
    "nl_verbs",
    "crowd_sourced",
    "nl_nouns",
    "nl_single_primitive",
    "multilingual",
)
MAX_EXAMPLE_STEPS = 10  # longer plans would make every prompt long; the families' first short plans suffice


def pick_kitchen_examples(examples: Sequence[tuple[str, PlanExample]], count: int) -> tuple[PlanExample, ...]:
    """``count`` examples of (family, example) pairs: the first of each family of KITCHEN_FAMILIES with
    at most MAX_EXAMPLE_STEPS steps, in that order; deterministic."""
    first: dict[str, PlanExample] = {}
    for family, example in examples:
        if family not in first and len(example.plan) <= MAX_EXAMPLE_STEPS:
            first[family] = example
    return tuple(first[family] for family in KITCHEN_FAMILIES if family in first)[:count]

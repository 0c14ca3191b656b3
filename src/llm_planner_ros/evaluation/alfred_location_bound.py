"""How far a static ALFRED plan can be right when the goal instruction does not say where objects are.

A refined goal ("Put a cooled mug in the coffee machine.") names what to move and where to, never where
the mug is at the start, yet the gold plan begins ``GotoLocation countertop``. A planner that writes every
other step right must still guess each such place. The best a planner can learn from the training set
alone is the place where training plans most often found that object (``StartPrior``); ``bound`` takes
each gold plan, replaces the target of every ``GotoLocation`` that leads to a ``PickupObject`` of another
object with that guess, and counts the plans that stay exactly right: the exact-match accuracy of a
planner that writes every other step right and knows of start locations only what the training set says
of each object. It bounds planners that guess a start from the picked object alone; a planner that also
conditions on other words of the instruction, or knows where things are in homes, can do better.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from llm_planner_ros.planning.llm_planner.alfred_plans import GOTO, PICKUP, AlfredStep, parse_plan_text
from llm_planner_ros.planning.llm_planner.prompt import PlanExample


@dataclass(frozen=True)
class StartPrior:
    """Where training plans went to pick each object up (most frequent first), and over all objects."""

    by_object: dict[str, Counter[str]]
    overall: Counter[str]

    @classmethod
    def of_examples(cls, examples: Sequence[PlanExample]) -> StartPrior:
        by_object: dict[str, Counter[str]] = defaultdict(Counter)
        overall: Counter[str] = Counter()
        for example in examples:
            for place, item in _fetches(parse_plan_text(", ".join(example.steps))):
                by_object[item][place] += 1
                overall[place] += 1
        if not overall:
            raise ValueError("the training examples have no GotoLocation followed by a PickupObject: no prior")
        return cls(dict(by_object), overall)

    def guess(self, item: str) -> str:
        """The place training plans fetched ``item`` from most often; ties go to the place most frequent
        over all objects, then to the name; an object never fetched gets the most frequent place overall."""
        counts = self.by_object.get(item) or self.overall
        return max(counts, key=lambda place: (counts[place], self.overall[place], place))


def with_guessed_starts(plan: Sequence[AlfredStep], prior: StartPrior) -> list[AlfredStep]:
    """``plan`` with the target of every GotoLocation before a PickupObject of another object guessed."""
    guessed = list(plan)
    for index, step in enumerate(plan[:-1]):
        following = plan[index + 1]
        if step.action == GOTO and following.action == PICKUP and step.arguments != following.arguments:
            guessed[index] = AlfredStep(GOTO, (prior.guess(following.arguments[0]),))
    return guessed


def _fetches(plan: Sequence[AlfredStep]) -> list[tuple[str, str]]:
    """(place, object) of every GotoLocation of a place followed by a PickupObject of an object there."""
    return [
        (step.arguments[0], following.arguments[0])
        for step, following in zip(plan, plan[1:], strict=False)
        if step.action == GOTO and following.action == PICKUP and step.arguments != following.arguments
    ]

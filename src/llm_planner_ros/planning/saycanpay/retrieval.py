"""Kitchen Say prompts whose expert plans are the generated requests nearest to the instruction.

The paper prompts with 3 fixed examples; its Say models are 6B to 175B. The embedded 135M model copies
what the prompt shows: with 3 fixed kitchen plans (a delivery, putting something down, moving two
objects) "Go find the tea." became a delivery. So, as the SayCan planner does, the examples are the
bank's requests nearest to the instruction in sentence-embedding space (``ExampleRetriever``: the
generated bank of requests with A* oracle plans, none equal to an evaluation request), each shown with
the initial observation the plan loop would give for its scene (``World.summary()``).
"""

from __future__ import annotations

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.planning.saycan.bank import PlanExample as BankExample
from llm_planner_ros.planning.saycan.retrieval import ExampleRetriever
from llm_planner_ros.planning.saycanpay.prompt import MAX_EXAMPLE_STEPS, PlanExample, SayPrompt

POOL = 20  # nearest requests looked at; the ones with plans over MAX_EXAMPLE_STEPS steps are skipped


class RetrievedKitchenPrompt:
    """A ``PromptSource``: ``for_goal(goal)`` gives the Say prompt with the ``count`` bank examples
    nearest to ``goal`` whose plans have at most MAX_EXAMPLE_STEPS steps (fewer when the POOL nearest
    hold fewer such plans), the most similar last, next to the task; deterministic."""

    def __init__(self, retriever: ExampleRetriever, kitchen: Domain, count: int) -> None:
        if count < 1:
            raise ValueError(f"need at least 1 prompt example, got {count}")
        self._retriever = retriever
        self._kitchen = kitchen
        self._count = count

    def for_goal(self, goal: str) -> SayPrompt:
        near = [e for e in self._retriever.nearest(goal, POOL) if len(e.steps) <= MAX_EXAMPLE_STEPS]
        return SayPrompt(tuple(self._example(e) for e in reversed(near[: self._count])))

    def _example(self, example: BankExample) -> PlanExample:
        return PlanExample(example.instruction, self._kitchen.world(example.initial).summary(), example.steps)

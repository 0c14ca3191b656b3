"""How the interpreter decides whether an assert holds: by rules, or by asking the language model.

``RuleChecker`` evaluates the check's condition on the current world state (``env.snapshot()``): exact
wherever the state is known. ``ModelChecker`` is the paper's choice (section 4.1, Fig. 2 "PROMPT for
State Feedback"): the facts of the state about what the check names, and the check as a yes/no
question, go to the language model, and the check holds when " Yes" scores above " No".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from llm_planner_ros.domain.conditions import At, Condition, Holding, Not, RobotAt
from llm_planner_ros.domain.world import World
from llm_planner_ros.llm.base import LanguageModel
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.progprompt.examples import FeedbackExample
from llm_planner_ros.planning.progprompt.program import Near

RULES = "rules"
MODEL = "llm"
CHECKERS = (RULES, MODEL)
ANSWERS = (" Yes", " No")


class StateChecker(Protocol):
    """Decides one assert's condition in the environment's current state (True: it holds)."""

    def holds(self, condition: Condition, env: PlanningEnvironment) -> bool: ...


class RuleChecker:
    """Evaluates the condition on ``env.snapshot()``."""

    def holds(self, condition: Condition, env: PlanningEnvironment) -> bool:
        return condition.holds(env.snapshot())


class ModelChecker:
    """Asks the language model, with the state facts about the objects the condition names.

    One scoring call per check (the two answers). A ``not`` is decided by asking about the
    condition under it and negating the answer, so the model only ever sees positive questions.
    """

    def __init__(self, model: LanguageModel, examples: Sequence[FeedbackExample]) -> None:
        self._model = model
        self._examples = tuple(examples)

    def holds(self, condition: Condition, env: PlanningEnvironment) -> bool:
        if isinstance(condition, Not):
            return not self.holds(condition.child, env)
        world = env.snapshot()
        prompt = self.prompt(state_facts(world, condition), question(world, condition))
        yes, no = self._model.score(prompt, list(ANSWERS)).log_probs
        return yes > no

    def prompt(self, facts: Sequence[str], asked: str) -> str:
        shots = [
            _block(example.facts, example.question) + (ANSWERS[0] if example.answer else ANSWERS[1])
            for example in self._examples
        ]
        return "\n\n".join([*shots, _block(facts, asked)])


def state_facts(world: World, condition: Condition) -> list[str]:
    """Where the robot is, what it holds, and where each instance of every label the condition names lies."""
    held = world.holding
    facts = [
        f"the robot is at the {world.robot_at}",
        f"the robot is holding {_a(world, held.label)}" if held else "the robot's hand is empty",
    ]
    for label in _labels(condition):
        places = [obj.at for obj in world.instances(label) if not obj.held]
        if not places and not (held and held.label == label):
            facts.append(f"there is no {label} in the scene")
        facts.extend(f"{_a(world, label)} is at the {place}" for place in places)
    return facts


def question(world: World, condition: Condition) -> str:
    """The yes/no question a (positive) condition asks; ValueError for a condition asserts cannot make."""
    if isinstance(condition, Holding) and condition.labels:
        return f"Is the robot holding {_a(world, condition.labels[0])}?"
    if isinstance(condition, Near):
        return f"Is the robot close to {_a(world, condition.label)}?"
    if isinstance(condition, RobotAt):
        return f"Is the robot at the {condition.location}?"
    if isinstance(condition, At):
        return f"Is {_a(world, condition.labels[0])} at the {condition.location}?"
    raise ValueError(f"no question for the condition {condition}; asserts make holding, near, robot_at and at")


def _labels(condition: Condition) -> tuple[str, ...]:
    if isinstance(condition, Near):
        return (condition.label,)
    if isinstance(condition, (At, Holding)):
        return condition.labels or ()
    return ()


def _block(facts: Sequence[str], asked: str) -> str:
    return f"State: {'. '.join(facts)}.\nQuestion: {asked}\nAnswer:"


def _a(world: World, label: str) -> str:
    return f"{world.kitchen.config.articles.get(label, 'a')} {label}"

"""A planner for tests of the plan loop and the benchmark: proposes a fixed list of skills, one per step."""

from __future__ import annotations

from collections.abc import Sequence

from llm_planner_ros.planning.decision import StepDecision, StepRecord, StepStatus
from llm_planner_ros.planning.environment import PlanningEnvironment


class ScriptedPlanner:
    """Proposes a fixed list of skill texts, one per step, and remembers what it observed."""

    name = "scripted"

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.observed: list[tuple[str, StepStatus]] = []
        self.instruction = ""

    def reset(self, instruction: str) -> None:
        self.instruction = instruction
        self.observed = []

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        index = len(history)
        if index >= len(self.texts):
            return StepDecision(None, note="script exhausted")
        return StepDecision(env.snapshot().skill(self.texts[index]))

    def observe(self, record: StepRecord) -> None:
        self.observed.append((record.skill.text, record.status))

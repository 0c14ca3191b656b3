"""A request from its text to its end, in one process: the instruction check (hold back, missing objects)
and then the plan loop, exactly as the planner node runs them over ROS.

The benches plan through ``run_request`` so that what a person gets from the graph ("Stop." ends
``nothing_to_do``, "bring me a banana" with no banana ends ``missing``) is what they measure.
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.hold_back.screen import RequestScreen
from llm_planner_ros.planning.instruction_check import MissingObjects, ObjectVocabulary, check_instruction
from llm_planner_ros.planning.plan_loop import Planner, PlanResult, run_plan

MAX_INSTRUCTION_CHARS = 2000
DEFAULT_HOLD_BACK_CONFIDENCE = 0.4


@dataclass(frozen=True)
class RequestChecks:
    """The checks a request passes before it is planned: the domain's object names, the hold-back model
    (None: every request is planned) and the missing-objects policy (no person answers in one process,
    so ``confirm`` is refused)."""

    objects: ObjectVocabulary
    hold_back: RequestScreen | None
    missing_objects: MissingObjects = MissingObjects.REFUSE

    @classmethod
    def of_domain(
        cls, kitchen: Domain, embedder: Embedder | None, confidence: float = DEFAULT_HOLD_BACK_CONFIDENCE
    ) -> RequestChecks:
        """The checks the planner node runs by default, for ``kitchen``'s domain; ``embedder`` None leaves
        the hold-back model out."""
        screen = RequestScreen.load(kitchen, embedder, confidence) if embedder is not None else None
        return cls(ObjectVocabulary.of_kitchen(kitchen.config, made=kitchen.library.created_labels()), screen)


def run_request(
    planner: Planner, instruction: str, env: PlanningEnvironment, max_steps: int, checks: RequestChecks
) -> PlanResult:
    """Check ``instruction`` and plan it in ``env`` unless the check ends it; never raises for a plan."""

    def nobody_answers(_instruction: str, _step: StepRecord) -> tuple[bool, str]:
        return False, "no person to ask in one process"

    verdict = check_instruction(
        instruction,
        checks.objects,
        MAX_INSTRUCTION_CHARS,
        checks.missing_objects.value,
        scene=env.snapshot,
        confirm=nobody_answers,
        hold_back=checks.hold_back,
    )
    if verdict.refusal is not None:
        return verdict.refusal
    result = run_plan(planner, verdict.text, env, max_steps)
    return verdict.annotate(result, env.snapshot() if verdict.named else None)

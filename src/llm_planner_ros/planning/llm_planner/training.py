"""LLM-Planner training plans: a generated request rendered as the planner's plan prompt plus the rest of
the oracle's plan as the plan line it should write.

The prompt is what ``LlmPlanner`` sends with ``examples: 0`` and ``scene_context: true``
(``llm_planner.prompt.LlmPlannerPrompt``: the introduction, the allowed actions of the scene, the task with
the subgoals completed so far, the scene line, the visible objects, ``Next plan:``). A request is cut at
``completed`` steps: those steps run first in a ``SimulatedEnvironment`` of the request's initial scene
and are listed as completed, so the prompt is that of a re-plan from the state they reach (0: the first
plan). The completion is the rest of the oracle plan (A*, shortest), steps joined by ", ", ending with the
newline that ends the plan grammar's line (``planning.grammars.plan_grammar``). Only the completion's
tokens are targets.
"""

from __future__ import annotations

from typing import Any

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.llm.training_sequences import TrainingSequence, completion_sequence
from llm_planner_ros.planning.llm_planner.planner import action_templates
from llm_planner_ros.planning.llm_planner.prompt import PLAN_STOP, STEP_DELIMITER, LlmPlannerPrompt
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment


class UnrunnableStep(ValueError):
    """An oracle step that does not run in the simulated kitchen (the plan and the kitchen disagree)."""


def plan_example(
    kitchen: Domain, prompt: LlmPlannerPrompt, example: PlanExample, completed: int = 0
) -> tuple[str, int]:
    """The training text of ``example`` cut after ``completed`` steps, and where its completion starts.

    ValueError when ``completed`` leaves no step to plan; UnrunnableStep when a completed step fails."""
    if not 0 <= completed < len(example.steps):
        raise ValueError(f"completed must be in [0, {len(example.steps) - 1}] for {example.id}, got {completed}")
    env = SimulatedEnvironment(kitchen.world(example.initial))
    for text in example.steps[:completed]:
        skill = next((s for s in env.admissible_skills() if s.text == text), None)
        if skill is None or not (outcome := env.execute(skill)).success:
            why = "not admissible" if skill is None else outcome.message
            raise UnrunnableStep(f"{example.id}: oracle step {text!r} does not run ({why})")
    text = prompt.render(
        example.instruction,
        action_templates(env.admissible_skills(), env.snapshot().places()),
        (),
        example.steps[:completed],
        env.observed_objects(),
        describe_scene(env.snapshot()),
    )
    return text + " " + STEP_DELIMITER.join(example.steps[completed:]) + PLAN_STOP, len(text)


def encode_plan(
    tokenizer: Any, kitchen: Domain, prompt: LlmPlannerPrompt, example: PlanExample, completed: int = 0
) -> TrainingSequence:
    """Tokenize a training plan; the targets are the tokens that reach into the completion."""
    return completion_sequence(tokenizer, *plan_example(kitchen, prompt, example, completed))

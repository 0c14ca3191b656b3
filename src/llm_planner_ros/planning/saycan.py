"""SayCan (papers/saycan.txt, Algorithm 1 and appendix D): pick the skill that is both useful and possible.

At each step every admissible skill text is scored by the language model as the continuation of the
dialog prompt (Say, one batched call sharing the prompt prefix), each skill's affordance comes from
the environment (Can), and the greedy choice maximises p_LLM x p_affordance. A skill that ran is
appended to the prompt as "N. skill,"; a failed one is not, so the next step re-scores from the new
state (SayCan's recovery). Ablations of the paper's Table 2:

- ``no_affordance`` ("No VF"): rank by p_LLM alone;
- ``generative``: the model writes the step, which is projected to the admissible skill nearest in
  sentence-embedding space (no affordance either, as in the paper).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from kitchen_sim.paths import resolve_config
from kitchen_sim.skill import Skill

from llm_planner_ros.llm.base import Embedder, LanguageModel
from llm_planner_ros.planning.decision import CandidateScore, StepDecision, StepRecord
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.registry import PlannerResources
from llm_planner_ros.planning.saycan_prompt import SayCanPrompt
from llm_planner_ros.planning.skill_projection import SkillProjector

ABLATIONS = ("none", "no_affordance", "generative")


@dataclass(frozen=True)
class SayCanOptions:
    """``ablation``: one of ABLATIONS; ``top_k``: candidates kept in each step's table;
    ``generation_tokens``: budget of one generated step (generative ablation)."""

    ablation: str = "none"
    top_k: int = 5
    generation_tokens: int = 12

    def __post_init__(self) -> None:
        if self.ablation not in ABLATIONS:
            raise ValueError(f"unknown SayCan ablation {self.ablation!r}; choose one of {', '.join(ABLATIONS)}")
        if self.top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {self.top_k}")


class SayCanPlanner:
    """The SayCan method as a ``Planner`` for ``run_plan``.

    Outcomes of ``next_step``: the best-scoring skill with its top-k candidate table; a planner with
    no admissible skill proposes nothing (the loop ends with ``no_candidate``).
    """

    name = "saycan"

    def __init__(
        self,
        model: LanguageModel,
        prompt: SayCanPrompt,
        options: SayCanOptions | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.options = options or SayCanOptions()
        if self.options.ablation == "generative" and embedder is None:
            raise ValueError("the generative ablation projects generated steps with sentence embeddings: pass an embedder")
        self._model = model
        self._prompt = prompt
        self._projector = SkillProjector(embedder) if embedder is not None else None
        self._instruction = ""
        self._done: list[str] = []

    def reset(self, instruction: str) -> None:
        self._instruction = instruction
        self._done = []

    def current_prompt(self) -> str:
        return self._prompt.render(self._instruction, self._done)

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        skills = list(env.admissible_skills())
        if not skills:
            return StepDecision(None, note="no admissible skill in this scene")
        if self.options.ablation == "generative":
            return self._generative_step(skills)
        log_probs = self._model.score(self.current_prompt(), [self._prompt.completion(s.text) for s in skills]).log_probs
        if self.options.ablation == "no_affordance":
            affordances = [1.0] * len(skills)
        else:
            affordances = env.affordances(skills)
        candidates = [
            CandidateScore(skill, llm, affordance, combined=math.exp(llm) * affordance)
            for skill, llm, affordance in zip(skills, log_probs, affordances, strict=True)
        ]
        return self._decide(candidates)

    def observe(self, record: StepRecord) -> None:
        if record.succeeded:
            self._done.append(record.skill.text)

    def _generative_step(self, skills: list[Skill]) -> StepDecision:
        assert self._projector is not None
        generation = self._model.generate(
            self.current_prompt(),
            n=1,
            max_tokens=self.options.generation_tokens,
            temperature=0.0,
            stop=self._prompt.step_stops(),
        )
        text = generation.texts[0].strip().rstrip(",.").strip()
        if not text:
            return StepDecision(None, note="the model generated an empty step")
        similarities = self._projector.similarities([text], skills)[0]
        candidates = [
            CandidateScore(skill, generation.mean_log_probs[0], 1.0, combined=float(similarity))
            for skill, similarity in zip(skills, similarities, strict=True)
        ]
        return self._decide(candidates, note=f"generated {text!r}")

    def _decide(self, candidates: list[CandidateScore], note: str = "") -> StepDecision:
        ranked = sorted(candidates, key=lambda c: c.combined, reverse=True)
        return StepDecision(ranked[0].skill, tuple(ranked[: self.options.top_k]), note)


def build(resources: PlannerResources) -> SayCanPlanner:
    """SayCan from config/planners.yaml's ``saycan`` section (prompt_file, ablation, top_k, ...)."""
    options = resources.options_for("saycan")
    prompt = SayCanPrompt.from_yaml(resolve_config(options.pop("prompt_file", None), "saycan_prompt.yaml"))
    planner_options = SayCanOptions(**options)
    embedder = resources.embedder if planner_options.ablation == "generative" else None
    return SayCanPlanner(resources.model, prompt, planner_options, embedder)

"""Zero-shot planning with semantic translation (Huang et al., arXiv 2201.07207, Algorithm 1, section 3).

The prompt is one demonstration, the one whose task is most similar to the instruction (dynamic example
selection, section 3.4), followed by the instruction and the steps taken so far:

    Task: Fetch me a pepsi.
    Step 1: find a pepsi
    ...

    Task: <instruction>
    Step 1: <translated skill>
    Step 2:

At each step the planning model samples ``samples`` (k) single-step phrases; every admissible skill is
scored by max over the samples of cos(embed(sample), embed(skill)) + ``beta`` x (mean token log-prob of
the sample) (section 3.3, equation 3), and the best-scoring skill is the step (semantic translation).
The translated skill, not the free-form phrase, is appended to the prompt once it has run (autoregressive
trajectory correction); a failed skill is not, so the next step is sampled again from the same prompt.
Sampled again from the same prompt, a small model proposes the same failed skill until the step budget
ends; with ``max_failures`` (config/planners.yaml ships 1; 0 is the paper) a skill that failed that often
in the same world state (``saycan.planner.state_key``: what the robot knows of where it is, what it holds
and where objects are) leaves the step grammar and the translation's candidates until the state changes.

The plan ends (section 3.3) when the translated skill is ``done``, or early, proposing nothing (the loop
ends with ``no_candidate``), when more than half of the samples are empty or when the best score is
below ``epsilon`` (the phrase is out of the robot's vocabulary).

With ``scene_context`` (for the embedded model's adapter, which was trained on it; the paper has no
scene) the task's block has the SayCan scene line of the world when the plan starts under ``Task:``.

With ``grammar`` on (the default) every sample is constrained to the step grammar (planning.grammars):
the text of an admissible skill on a perceived object, a place or nothing; translation then finds that
skill itself (similarity 1) and the ranking is by the samples' log-probs. ``grammar: false`` is the
paper's free-form sampling with translation by similarity alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from llm_planner_ros.domain.domain_folder import domain_examples_file
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.llm.base import LanguageModel
from llm_planner_ros.paths import repo_path
from llm_planner_ros.planning.decision import CandidateScore, StepDecision, StepRecord, StepStatus
from llm_planner_ros.planning.domain_examples import prompt_examples
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.grammars import GrammarError, scene_places, step_grammar
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.registry import PlannerResources
from llm_planner_ros.planning.saycan.planner import state_key
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.planning.skill_projection import SkillProjector, require_skill_texts
from llm_planner_ros.planning.zero_shot.prompt import (
    STEP_STOP,
    Demonstration,
    load_demonstrations,
    step_prompt,
)

# Leading and trailing characters that are not English text (section 3.3 counts a sample made only of
# them as 0-length): digits, punctuation, whitespace, anything outside a-z.
_NON_TEXT_EDGES = re.compile(r"^[^A-Za-z]+|[^A-Za-z]+$")


@dataclass(frozen=True)
class ZeroShotOptions:
    """Hyper-parameters (Huang et al., arXiv 2201.07207, appendix A.1, whose grid they come from):
    ``samples`` k (grid {1, 10}), ``beta`` (0.3, the only value searched), ``epsilon`` early-termination
    threshold (grid {0, 0.4, 0.8}; the paper does not say which won, 0.4 is the middle), ``temperature``
    (grid {0.1, 0.3, 0.6}), ``top_p`` nucleus sampling (used, value not given); ``max_tokens`` budget of
    one step; ``top_k`` candidates kept in each step's table; ``grammar``: samples constrained to the
    scene's skill texts (False: the paper's free-form samples); ``max_failures``: a skill that failed this
    many times in the same world state is no longer proposed there (0: off, the paper); ``scene_context``:
    the task's block says, under the task, where the robot is, what it holds and what lies where when
    the plan starts (for a model trained on that line; the paper has none)."""

    samples: int = 10
    beta: float = 0.3
    epsilon: float = 0.4
    temperature: float = 0.3
    top_p: float = 0.9
    max_tokens: int = 12
    top_k: int = 5
    grammar: bool = True
    max_failures: int = 0
    scene_context: bool = False

    def __post_init__(self) -> None:
        for name in ("samples", "max_tokens", "top_k"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_failures < 0:
            raise ValueError(f"max_failures must be 0 (off) or a number of failed attempts, got {self.max_failures}")
        if not 0.0 < self.top_p <= 1.0:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")


class ZeroShotPlanner:
    """The zero-shot planner as a ``Planner`` for ``run_plan``.

    Outcomes of ``next_step``: the skill that best translates the samples, with the top-k skills as
    candidates (``combined`` = the translation score, ``llm`` = mean log-prob of the sample that scored
    it best, ``affordance`` 1.0: the method does not consult affordances); ``None`` (note says which
    rule) when more than half of the samples are empty, the best score is below epsilon, the scene has
    no skill, or (``max_failures``) every skill of the scene failed that often in the present state.
    """

    name = "zero_shot"

    def __init__(
        self,
        model: LanguageModel,
        demonstrations: KnnRetriever[Demonstration],
        projector: SkillProjector,
        options: ZeroShotOptions | None = None,
    ) -> None:
        self.options = options or ZeroShotOptions()
        self._model = model
        self._demonstrations = demonstrations
        self._projector = projector
        self._instruction = ""
        self._example: Demonstration | None = None
        self._done: list[str] = []
        self._failures: Counter[tuple[object, str]] = Counter()
        self._chosen_in: object = None
        self._scene = ""

    @property
    def example(self) -> Demonstration | None:
        """The demonstration selected for the current instruction."""
        return self._example

    def reset(self, instruction: str) -> None:
        self._instruction = instruction
        self._example = self._demonstrations.nearest(instruction, 1)[0]
        self._done = []
        self._failures.clear()
        self._scene = ""

    def current_prompt(self) -> str:
        assert self._example is not None, "reset() selects the demonstration; call it first"
        return step_prompt(self._example, self._instruction, self._done, self._scene)

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        skills = list(env.admissible_skills())
        if not skills:
            return StepDecision(None, note="no admissible skill in this scene")
        state = env.snapshot()
        if self.options.scene_context and not self._scene:
            # The scene when the plan starts, kept: every later prompt continues the first.
            self._scene = describe_scene(state)
        if self.options.max_failures:
            self._chosen_in = state_key(state)
            skills = [s for s in skills if self._failures[self._chosen_in, s.text] < self.options.max_failures]
            if not skills:
                return StepDecision(None, note=f"every skill failed {self.options.max_failures} times here")
        try:
            places = scene_places(state)
            grammar = step_grammar(skills, env.observed_objects(), places) if self.options.grammar else None
        except GrammarError as error:
            return StepDecision(None, note=str(error))
        generation = self._model.generate(
            self.current_prompt(),
            n=self.options.samples,
            max_tokens=self.options.max_tokens,
            temperature=self.options.temperature,
            top_p=self.options.top_p,
            stop=(STEP_STOP,),
            grammar=grammar,
        )
        phrases = [_NON_TEXT_EDGES.sub("", text.split(STEP_STOP)[0]) for text in generation.texts]
        sampled = [(p, float(lp)) for p, lp in zip(phrases, generation.mean_log_probs, strict=True) if p]
        empty = len(phrases) - len(sampled)
        if empty * 2 > len(phrases):
            return StepDecision(None, note=f"{empty} of {len(phrases)} samples were empty: the plan ends")
        return self._translate(sampled, skills)

    def observe(self, record: StepRecord) -> None:
        if record.succeeded:
            self._done.append(record.skill.text)
        elif record.status == StepStatus.FAILED and self.options.max_failures:
            self._failures[self._chosen_in, record.skill.text] += 1

    def _translate(self, sampled: list[tuple[str, float]], skills: list[Skill]) -> StepDecision:
        texts = [text for text, _ in sampled]
        log_probs = np.array([lp for _, lp in sampled])
        # A backend that cannot report log-probs gives NaN: rank those samples by similarity alone.
        weighted = self.options.beta * np.nan_to_num(log_probs, nan=0.0)
        scores = self._projector.similarities(texts, skills) + weighted[:, None]
        best_sample = np.argmax(scores, axis=0)  # per skill, the sample that translates to it best
        skill_scores = scores[best_sample, np.arange(len(skills))]
        ranked = np.argsort(-skill_scores, kind="stable")
        best = int(ranked[0])
        phrase = texts[best_sample[best]]
        if skill_scores[best] < self.options.epsilon:
            return StepDecision(
                None,
                note=f"best translation {skills[best].text!r} of {phrase!r} scores {skill_scores[best]:.2f} "
                f"< epsilon {self.options.epsilon}: the plan ends",
            )
        candidates = tuple(
            CandidateScore(skills[i], float(log_probs[best_sample[i]]), 1.0, combined=float(skill_scores[i]))
            for i in ranked[: self.options.top_k]
        )
        return StepDecision(skills[best], candidates, note=f"translated {phrase!r}")


def build(resources: PlannerResources) -> ZeroShotPlanner:
    """The zero-shot planner from config/planners.yaml's ``zero_shot`` section (examples_file, samples,
    beta, epsilon, ...). Every step of every demonstration must be a skill of the domain (ValueError lists
    them). ``examples_file: ""`` is the domain folder's ``examples/zero_shot.yaml``, else the domain's
    ``prompt_examples`` (its bank, else tasks written from its files)."""
    options = resources.options_for("zero_shot")
    examples_file = options.pop("examples_file", None) or domain_examples_file(resources.kitchen, "zero_shot")
    if not examples_file:
        source, bank = prompt_examples(resources.kitchen)
        demonstrations = [Demonstration(example.instruction, example.steps) for example in bank]
    else:
        source = str(repo_path(examples_file))
        demonstrations = load_demonstrations(Path(source))
    require_skill_texts((s for d in demonstrations for s in d.steps), resources.kitchen, source)
    retriever = KnnRetriever(demonstrations, lambda demonstration: demonstration.task, resources.embedder)
    return ZeroShotPlanner(resources.model, retriever, SkillProjector(resources.embedder), ZeroShotOptions(**options))

"""LLM-Planner (arXiv 2212.04088, section 4 and Algorithm 1): few-shot high-level plans, re-planned
with what the robot has perceived whenever the current plan gets stuck.

At the start of an instruction the K training examples nearest to it (kNN over sentence embeddings,
``KnnRetriever``) go into the prompt (``LlmPlannerPrompt``) with the allowed high-level actions and the
objects perceived so far, and the model writes the whole high-level plan in one greedy generation, with a
logit bias toward the words of the allowed actions and of the perceived objects. The planner then
dispatches the plan's subgoals in order; each subgoal is one kitchen skill: the skill with exactly that
text, else the admissible skill nearest in sentence-embedding space (``SkillProjector``); a subgoal whose
nearest skill is less similar than ``min_similarity`` names nothing the robot can do.

Grounded re-planning: the planner asks for a new continuation, given the subgoals completed so far and
every object perceived so far (``env.observed_objects()``, ``/scene/objects`` on the robot), when

- the current subgoal failed ``max_failures`` times (Algorithm 1: "current subgoal fails");
- ``stall_steps`` steps in a row made no progress: each failed or left the environment's state unchanged
  (Algorithm 1: "after n time steps"; in the kitchen one subgoal is one skill, so a subgoal that is
  still pending after n steps is one whose skill keeps failing or does nothing);
- the plan ran out without ``done``, or its next subgoal maps to no skill;
- (``replan_on_new_objects``, off by default) an object was perceived that the current plan was made
  without: the plan may be stale, and the model decides whether the new object matters;
- the plan loop saw the scene change under the plan (``planning.scene_change``: an object the rest of
  the plan needs is gone or moved so that a subgoal can no longer run, or a new object the instruction
  names appeared); a label of which no instance is left is no longer listed among the perceived objects.

After ``max_replans`` re-plans the planner gives up (the loop ends with ``no_candidate``).

A re-plan after a failed subgoal often has the very prompt of the plan that failed: a skill whose
precondition does not hold changes neither the completed subgoals nor the scene, so greedy generation
writes the same plan again and the re-plan is wasted. With ``avoid_failed_first`` (config/planners.yaml
ships it on; off is the paper) the re-plan's first subgoal may not be a skill that already failed in the
state the robot is in now (the plan grammar's first step leaves it out; later steps may name it, as the
skill can succeed once the plan has changed the state).

With ``grammar`` on (the default) the plan line is constrained to the plan grammar (planning.grammars):
skill texts of the scene acting on an object perceived so far, a place or nothing, joined by ", ", so
every subgoal is a skill by its exact text. ``grammar: false`` is the paper's free generation with
subgoals mapped to skills by sentence embeddings.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.domain_folder import domain_examples_file
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.llm.base import LanguageModel
from llm_planner_ros.paths import repo_path
from llm_planner_ros.planning.decision import CandidateScore, StepDecision, StepRecord
from llm_planner_ros.planning.domain_examples import (
    DOMAIN_PROMPT_EXAMPLES,
    prompt_examples,
    prompt_shows_examples,
)
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.grammars import GrammarError, acts_on_place, plan_grammar, scene_places
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.llm_planner.prompt import (
    PLAN_STOP,
    LlmPlannerPrompt,
    PlanExample,
    load_plan_examples,
    split_plan,
)
from llm_planner_ros.planning.registry import PlannerResources
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.planning.scene_change import Replan
from llm_planner_ros.planning.skill_projection import SkillProjector, require_skill_texts

OBJECT_PLACEHOLDER = "<object>"


@dataclass(frozen=True)
class GenerationOptions:
    """How one plan is generated: ``examples`` in-context examples (the paper's K=9; 0 for a model
    trained on the format), a budget of ``max_tokens``, and ``logit_bias`` added to the logits of
    allowed words (the paper's 0.1; 0 = off)."""

    examples: int = 9
    max_tokens: int = 96
    logit_bias: float = 0.1

    def __post_init__(self) -> None:
        if self.examples < 0:
            raise ValueError(f"examples (K) must be 0 or more, got {self.examples}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}")


@dataclass(frozen=True)
class GeneratedPlan:
    """One generation: the prompt it answered, the raw plan text and its mean token log-probability."""

    prompt: str
    text: str
    mean_log_prob: float


class PlanGenerator:
    """The static LLM-Planner: retrieve the K nearest examples, render the prompt, generate one plan.

    Vocabulary-free: the kitchen planner and the ALFRED benchmark give it their own examples, actions
    and parser of the generated text.
    """

    def __init__(
        self,
        model: LanguageModel,
        retriever: KnnRetriever[PlanExample],
        prompt: LlmPlannerPrompt,
        options: GenerationOptions | None = None,
    ) -> None:
        self.options = options or GenerationOptions()
        self._model = model
        self._retriever = retriever
        self._prompt = prompt

    def prompt_for(
        self,
        task: str,
        actions: Sequence[str],
        completed: Sequence[str] = (),
        objects: Sequence[str] = (),
        scene: str = "",
    ) -> str:
        nearest_first = self._retriever.nearest(task, self.options.examples) if self.options.examples else []
        return self._prompt.render(task, actions, nearest_first[::-1], completed, objects, scene)

    def generate(
        self,
        task: str,
        actions: Sequence[str],
        completed: Sequence[str] = (),
        objects: Sequence[str] = (),
        grammar: str | None = None,
        scene: str = "",
    ) -> GeneratedPlan:
        """One greedy plan; ``grammar`` (a Lark grammar of the plan line) constrains it when given;
        ``scene`` is the test task's scene line (empty = none)."""
        prompt = self.prompt_for(task, actions, completed, objects, scene)
        result = self._model.generate(
            prompt,
            n=1,
            max_tokens=self.options.max_tokens,
            temperature=0.0,
            stop=(PLAN_STOP,),
            logit_bias=self._logit_bias([*actions, *objects]),
            grammar=grammar,
        )
        return GeneratedPlan(prompt, result.texts[0], float(result.mean_log_probs[0]))

    def _logit_bias(self, phrases: Sequence[str]) -> dict[str, float] | None:
        if self.options.logit_bias == 0.0:
            return None
        words = dict.fromkeys(w for p in phrases for w in p.split() if w != OBJECT_PLACEHOLDER)
        return {word: self.options.logit_bias for word in words}


def action_templates(skills: Sequence[Skill], places: Collection[str] = ()) -> list[str]:
    """The allowed high-level actions of a skill vocabulary, as the prompt lists them: a skill acting on
    an object with the object (and its article) replaced by ``<object>`` ("pick up <object>"); skills on
    a place (``grammars.acts_on_place``: "go to the table", "wipe the desk" when the desk is one of
    ``places``) and skills without an argument in full ("done"). In vocabulary order."""
    templates: dict[str, None] = {}
    for skill in skills:
        argument = skill.argument
        if argument is None or acts_on_place(skill, places):
            templates[skill.text] = None
            continue
        pattern = rf"\b(?:(?:a|an|the)\s+)?{re.escape(argument)}\b"
        templates[re.sub(pattern, OBJECT_PLACEHOLDER, skill.text, count=1)] = None
    return list(templates)


@dataclass(frozen=True)
class LlmPlannerOptions:
    """Re-planning triggers (module docstring), the subgoal-to-skill threshold, the table size,
    ``grammar``: plans constrained to the scene's skill texts (False: free text mapped by embeddings),
    ``scene_context``: each (re-)plan's prompt says where the robot is, what it holds and what lies where
    (``saycan.scene``; for a model trained on that prompt, the embedded model's adapter), and
    ``avoid_failed_first``: a re-plan does not start with a skill that failed in the present state (module
    docstring; it constrains the plan grammar, so free generation, ``grammar: false``, is left as it is)."""

    max_failures: int = 1
    stall_steps: int = 3
    replan_on_new_objects: bool = False
    max_replans: int = 5
    min_similarity: float = 0.5
    top_k: int = 5
    grammar: bool = True
    scene_context: bool = False
    avoid_failed_first: bool = False

    def __post_init__(self) -> None:
        for name in ("max_failures", "stall_steps", "top_k"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_replans < 0:
            raise ValueError(f"max_replans must be 0 or more, got {self.max_replans}")


class LlmPlanner:
    """LLM-Planner as a ``Planner`` for ``run_plan``.

    Outcomes of ``next_step``: the skill of the current subgoal, with the skills nearest to the subgoal's
    text as its candidates (``combined`` = cosine similarity, ``llm`` = the plan's mean token
    log-probability, ``affordance`` 1.0: the method does not consult affordances); ``None`` when the
    scene has no skill, when a (re-)plan came back empty, or after ``max_replans`` re-plans.
    """

    name = "llm_planner"

    def __init__(
        self,
        generator: PlanGenerator,
        projector: SkillProjector,
        options: LlmPlannerOptions | None = None,
    ) -> None:
        self.options = options or LlmPlannerOptions()
        self._generator = generator
        self._projector = projector
        self.reset("")

    def reset(self, instruction: str) -> None:
        self._instruction = instruction
        self._plan: list[str] = []
        self._cursor = 0
        self._completed: list[str] = []
        self._perceived: dict[str, None] = {}  # every object label perceived so far, in order of first sight
        self._planned_with: set[str] = set()
        self._replans = 0
        self._pending: str | None = "initial plan"
        self._failures = 0
        self._stalled = 0
        self._last_state: str | None = None
        self._last_succeeded: bool | None = None
        self._failed_in: dict[str | None, set[str]] = {}  # state description -> skill texts that failed in it
        self.generations: list[GeneratedPlan] = []

    @property
    def plan(self) -> list[str]:
        """The current high-level plan (the subgoals of the latest generation)."""
        return list(self._plan)

    @property
    def completed(self) -> list[str]:
        """Skill texts of the subgoals completed so far, in order."""
        return list(self._completed)

    def remaining_plan(self) -> list[str]:
        """The subgoals not yet completed, the current one first (``PlanHolder``)."""
        return self._plan[self._cursor :]

    def replan(self, why: Replan) -> None:
        """Re-plan at the next step from the world now (``PlanHolder``); labels gone from the scene are
        forgotten, so the new plan is not grounded in them."""
        for label in why.gone_labels:
            self._perceived.pop(label, None)
        self._pending = why.reason

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        skills = list(env.admissible_skills())
        if not skills:
            return StepDecision(None, note="no admissible skill in this scene")
        self._perceive(env.observed_objects())
        self._account_progress(env.describe_state())
        while True:
            if self._pending is not None:
                state = env.snapshot()
                scene = describe_scene(state) if self.options.scene_context else ""
                if (gave_up := self._replan(skills, scene_places(state), scene)) is not None:
                    return StepDecision(None, note=gave_up)
            if self._cursor >= len(self._plan):
                self._pending = "the plan ended without done"
                continue
            subgoal = self._plan[self._cursor]
            decision = self._ground(subgoal, skills)
            if decision is not None:
                return decision
            self._pending = f"subgoal {subgoal!r} matches no skill"

    def observe(self, record: StepRecord) -> None:
        self._last_succeeded = record.succeeded
        if record.succeeded:
            self._completed.append(record.skill.text)
            self._cursor += 1
            self._failures = 0
            return
        self._failures += 1
        self._failed_in.setdefault(self._last_state, set()).add(record.skill.text)
        if self._failures >= self.options.max_failures:
            self._pending = f"subgoal {record.skill.text!r} failed: {record.message}"

    def _perceive(self, objects: Sequence[str]) -> None:
        self._perceived.update(dict.fromkeys(objects))
        new = [label for label in self._perceived if label not in self._planned_with]
        if self.options.replan_on_new_objects and self._plan and new and self._pending is None:
            self._pending = f"newly perceived: {', '.join(new)}"

    def _account_progress(self, state: str) -> None:
        if self._last_succeeded is not None:
            progressed = self._last_succeeded and state != self._last_state
            self._stalled = 0 if progressed else self._stalled + 1
            if self._stalled >= self.options.stall_steps and self._pending is None:
                self._pending = f"no progress in {self._stalled} steps"
        self._last_state = state
        self._last_succeeded = None

    def _replan(self, skills: Sequence[Skill], places: Collection[str], scene: str) -> str | None:
        """Generate a new plan for ``self._pending``; returns why the planner gives up, or None."""
        initial = not self.generations
        if not initial and self._replans >= self.options.max_replans:
            return f"gave up after {self._replans} re-plan(s); last reason: {self._pending}"
        try:
            not_first = self._failed_in.get(self._last_state, set()) if self.options.avoid_failed_first else set()
            grammar = plan_grammar(skills, self._perceived, places, not_first) if self.options.grammar else None
        except GrammarError as error:
            return str(error)
        generated = self._generator.generate(
            self._instruction, action_templates(skills, places), self._completed, list(self._perceived), grammar, scene
        )
        self.generations.append(generated)
        self._replans += 0 if initial else 1
        self._plan, self._cursor = split_plan(generated.text), 0
        self._planned_with = set(self._perceived)
        self._pending, self._failures, self._stalled = None, 0, 0
        if not self._plan:
            return f"the model generated no plan (text {generated.text!r})"
        return None

    def _ground(self, subgoal: str, skills: Sequence[Skill]) -> StepDecision | None:
        """The decision for a subgoal: its exact skill, else the nearest one above ``min_similarity``."""
        similarities = self._projector.similarities([subgoal], skills)[0]
        llm = self.generations[-1].mean_log_prob
        candidates = sorted(
            (CandidateScore(skill, llm, 1.0, combined=float(s)) for skill, s in zip(skills, similarities, strict=True)),
            key=lambda c: c.combined,
            reverse=True,
        )
        exact = next((c for c in candidates if c.skill.text == _canonical(subgoal)), None)
        chosen = exact or candidates[0]
        if exact is None and chosen.combined < self.options.min_similarity:
            return None
        plan_number = len(self.generations)
        note = f"plan {plan_number} subgoal {self._cursor + 1}/{len(self._plan)}: {subgoal!r}"
        if exact is None:
            note += f" -> nearest skill {chosen.skill.text!r} ({chosen.combined:.2f})"
        table = [chosen, *(c for c in candidates if c is not chosen)][: self.options.top_k]
        return StepDecision(chosen.skill, tuple(table), note)


def _canonical(text: str) -> str:
    return " ".join(text.lower().split())


def build(resources: PlannerResources) -> LlmPlanner:
    """LLM-Planner from config/planners.yaml's ``llm_planner`` section (examples_file, examples, ...).

    Every step of every example must be a skill of the domain: ValueError names the ones that are not.
    ``examples_file: ""`` is the domain folder's ``examples/llm_planner.yaml``, else the domain's
    ``prompt_examples`` (its bank, else tasks written from its files), of
    which ``examples: 0`` shows DOMAIN_PROMPT_EXAMPLES unless the domain has an LLM-Planner adapter.
    """
    options = resources.options_for("llm_planner")
    examples_file = options.pop("examples_file", None) or domain_examples_file(resources.kitchen, "llm_planner")
    if not examples_file:
        source, bank = prompt_examples(resources.kitchen)
        prompt = LlmPlannerPrompt()
        examples = [PlanExample(e.instruction, e.steps, scene_labels(e.initial)) for e in bank]
        if not options.get("examples") and prompt_shows_examples(
            resources.kitchen, "llm_planner", resources.model.adapter
        ):
            options["examples"] = DOMAIN_PROMPT_EXAMPLES
    else:
        source = str(repo_path(examples_file))
        prompt, examples = load_plan_examples(Path(source))
    require_skill_texts((s for e in examples for s in e.steps), resources.kitchen, source)
    generation = GenerationOptions(
        **{key: options.pop(key) for key in ("examples", "max_tokens", "logit_bias") if key in options}
    )
    retriever = KnnRetriever(examples, lambda example: example.task, resources.embedder)
    generator = PlanGenerator(resources.model, retriever, prompt, generation)
    return LlmPlanner(generator, SkillProjector(resources.embedder), LlmPlannerOptions(**options))


def scene_labels(initial: Mapping[str, Any]) -> tuple[str, ...]:
    """The object labels of an episode-file ``initial`` block, each once, in the order it lists them: the
    visible objects of a bank example."""
    return tuple(dict.fromkeys(str(item["label"]) for item in initial.get("objects") or ()))

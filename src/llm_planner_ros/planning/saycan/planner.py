"""SayCan (arXiv 2204.01691, Algorithm 1 and appendix D): pick the skill that is both useful and possible.

At each step each admissible skill's affordance comes from the environment (Can), its text is scored
by the language model as the continuation of the dialog prompt (Say, one batched call sharing the
prompt prefix), and the greedy choice maximises p_LLM x p_affordance. Since p_LLM <= 1 and every
further token only lowers it, a skill (or a group of skills sharing their first tokens) whose
affordance times its partial p_LLM cannot reach the top_k table is never fully scored (``prune``,
``llm.ranking``); the choice and table are those of scoring every skill. A skill that ran is
appended to the prompt as "N. skill,"; a failed one is not, so the next step re-scores from the new
state (SayCan's recovery). Ablations of the paper's Table 2:

- ``no_affordance`` ("No VF"): rank by p_LLM alone;
- ``generative``: the model writes the step, which is projected to the admissible skill nearest in
  sentence-embedding space (no affordance either, as in the paper);
- ``paper``: none of this project's additions below: the fixed Listing-1 style prompt
  (config/saycan_prompt.yaml), no scene line, the environment's terminate affordance; with the base
  model (no ``llm.adapter``) this is the paper's SayCan as first implemented here.

What the project adds for a small model (each an option of ``SayCanOptions``, off by default so the
paper's method is what ``SayCanOptions()`` runs; config/planners.yaml switches them on):

- ``scene_context``: the prompt gets a scene line (``saycan_scene``) of the state the instruction
  started in, taken from ``env.snapshot()`` at its first step; executed steps are appended as before, so
  scene plus steps describe the current state and the prompt prefix stays the same across steps;
- ``examples``: which examples the prompt shows: ``file`` (the prompt file's, as the paper's fixed
  Listing 1), ``retrieved`` (the ``retrieved_examples`` examples of the generated bank, ``saycan_bank``,
  nearest to the instruction, ``saycan_retrieval``) or ``none`` (for a model adapted to the dialog
  format, ``llm.lora``: the shortest prompt);
- ``terminate_affordance``: the affordance of ``done``; None asks the environment (the paper's 0.1,
  appendix D.2), a number replaces it (see docs/benchmarks.md, "Kitchen benchmark");
- ``avoid_revisits``: a skill that would bring the world back to a state this plan already passed
  through (same robot place, gripper, object places, drawer and places visited) gets affordance 0. The
  paper caps the affordance of skills whose effect already holds (appendix D.2); this extends the cap
  to effects the plan already had and undid ("put down the coke" right after "pick up the coke"), which
  a greedy planner otherwise repeats forever. A shortest plan never revisits a state, so the cap never
  removes a step some shortest plan needs;
- ``max_failures``: a skill that failed this many times in the same state (``state_key``) gets
  affordance 0 there until the state changes (0: off, the paper). A value function reads only the
  present observation, and a failed pick or put down usually leaves the world as it was, so without
  this SayCan chooses the same failing skill until the step budget ends (in the physics kitchen, when
  perception misplaces the target a few centimetres); with it the model's next choice gets its turn;
- ``llm_temperature``: ranks by p_LLM^(1/T) x affordance (a temperature T on the log-probabilities; 1
  is the paper's product). The adapted model's first choice leads its second by many nats (a median
  7.6 on generated tasks), so with T = 1 an affordance overturns it only near 0; T is fitted on
  generated tasks (``training.saycan_temperature``, docs/value_functions.md). Normalising p_LLM over
  the skills (a softmax) divides every skill by the same sum and changes no decision;
- ``min_affordance``: a skill (other than ``done``) whose affordance is below it gets 0, so the model's
  own ranking decides among the rest (0: off, the paper). It lets a calibrated value function veto a skill
  it rates unlikely without flattening the model's preferences as a temperature does: at T = 1 a 0.2
  affordance on the model's favourite changes nothing, at T = 10 every skill a few nats behind becomes a
  contender.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence, Set
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.domain.domain_folder import domain_bank_file
from llm_planner_ros.domain.skill import TERMINATE, Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.llm.base import Embedder, LanguageModel, RankRequest
from llm_planner_ros.paths import config_file, repo_path
from llm_planner_ros.planning.decision import CandidateScore, StepDecision, StepRecord, StepStatus
from llm_planner_ros.planning.domain_examples import domain_bank, prompt_shows_examples
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.registry import PlannerResources
from llm_planner_ros.planning.saycan.bank import PlanExample, load_bank
from llm_planner_ros.planning.saycan.prompt import DialogExample, SayCanPrompt
from llm_planner_ros.planning.saycan.retrieval import ExampleRetriever
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.planning.skill_projection import SkillProjector

ABLATIONS = ("none", "no_affordance", "generative", "paper")
EXAMPLE_SOURCES = ("file", "retrieved", "none")


@dataclass(frozen=True)
class SayCanOptions:
    """``ablation``: one of ABLATIONS; ``top_k``: candidates kept in each step's table;
    ``generation_tokens``: budget of one generated step (generative ablation); ``scene_context``,
    ``examples``, ``retrieved_examples``, ``terminate_affordance``, ``avoid_revisits``, ``max_failures``,
    ``llm_temperature``, ``min_affordance``: see the module docstring; ``prune``: score only the skills
    that can enter the top_k table (branch and bound on p_LLM x affordance, ``llm.ranking``: the same
    choice and table as scoring every skill)."""

    ablation: str = "none"
    top_k: int = 5
    generation_tokens: int = 12
    scene_context: bool = False
    examples: str = "file"
    retrieved_examples: int = 4
    terminate_affordance: float | None = None
    avoid_revisits: bool = False
    max_failures: int = 0
    prune: bool = True
    llm_temperature: float = 1.0
    min_affordance: float = 0.0

    def __post_init__(self) -> None:
        if self.ablation not in ABLATIONS:
            raise ValueError(f"unknown SayCan ablation {self.ablation!r}; choose one of {', '.join(ABLATIONS)}")
        if self.top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {self.top_k}")
        if self.examples not in EXAMPLE_SOURCES:
            raise ValueError(f"unknown examples source {self.examples!r}; choose one of {', '.join(EXAMPLE_SOURCES)}")
        if self.retrieved_examples < 1:
            raise ValueError(f"retrieved_examples must be at least 1, got {self.retrieved_examples}")
        if self.terminate_affordance is not None and not 0.0 <= self.terminate_affordance <= 1.0:
            raise ValueError(
                f"terminate_affordance must be a probability in [0, 1] (or null: the environment's), "
                f"got {self.terminate_affordance}"
            )
        if self.max_failures < 0:
            raise ValueError(f"max_failures must be 0 (off) or a number of failed attempts, got {self.max_failures}")
        if not 0.0 <= self.min_affordance < 1.0:
            raise ValueError(f"min_affordance must be in [0, 1) (0: off), got {self.min_affordance}")
        if not self.llm_temperature > 0.0 or math.isinf(self.llm_temperature):
            raise ValueError(
                f"llm_temperature must be a positive number (1 = the paper's product), got {self.llm_temperature}"
            )


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
        retriever: ExampleRetriever | None = None,
    ) -> None:
        self.options = options or SayCanOptions()
        if self.options.ablation == "generative" and embedder is None:
            raise ValueError(
                "the generative ablation projects generated steps with sentence embeddings: pass an embedder"
            )
        if self.options.examples == "retrieved" and retriever is None:
            raise ValueError("examples: retrieved needs the example bank's retriever: pass a retriever")
        self._model = model
        self._prompt = prompt
        self._projector = SkillProjector(embedder) if embedder is not None else None
        self._retriever = retriever
        self._instruction = ""
        self._done: list[str] = []
        self._scene = ""
        self._examples: list[DialogExample] | None = None
        self._passed: list[World] = []
        self._touched: set[str] = set()  # labels named by the skills this plan executed
        self._failures: Counter[tuple[tuple[object, ...], str]] = Counter()
        self._chosen_in: tuple[object, ...] | None = None

    def reset(self, instruction: str) -> None:
        self._instruction = instruction
        self._done = []
        self._scene = ""
        self._passed = []
        self._touched = set()
        self._failures = Counter()
        self._chosen_in = None
        self._examples = [] if self.options.examples == "none" else None
        if self._retriever is not None and self.options.examples == "retrieved":
            nearest = self._retriever.nearest(instruction, self.options.retrieved_examples)
            # Most similar last: the example the model reads right before the request weighs most.
            self._examples = [dialog_example(example) for example in reversed(nearest)]

    def current_prompt(self) -> str:
        return self._prompt.render(self._instruction, self._done, self._scene, self._examples)

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        skills = list(env.admissible_skills())
        if not skills:
            return StepDecision(None, note="no admissible skill in this scene")
        if self.options.scene_context and not self._scene:
            self._scene = describe_scene(env.snapshot(), unsaid=True)
        if self.options.ablation == "generative":
            return self._generative_step(skills)
        if self.options.ablation == "no_affordance":
            affordances = [1.0] * len(skills)
        else:
            affordances = self._affordances(env, skills)
        prompt, completions = self.current_prompt(), [self._prompt.completion(s.text) for s in skills]
        temperature = self.options.llm_temperature
        if self.options.prune:
            # p^(1/T) x a orders the skills as p x a^T does, so the exact pruning of llm.ranking holds.
            weights = affordances if temperature == 1.0 else [a**temperature for a in affordances]
            (ranked,) = self._model.score_ranked([RankRequest(prompt, completions, weights, self.options.top_k)])
            log_probs: Sequence[float | None] = ranked.log_probs
        else:
            log_probs = self._model.score(prompt, completions).log_probs
        # A skill left unscored (None) provably ranks below the top_k table (llm.ranking).
        candidates = [
            CandidateScore(skill, llm, affordance, combined=math.exp(llm / temperature) * affordance)
            for skill, llm, affordance in zip(skills, log_probs, affordances, strict=True)
            if llm is not None
        ]
        return self._decide(candidates)

    def _affordances(self, env: PlanningEnvironment, skills: list[Skill]) -> list[float]:
        affordances = env.affordances(skills)
        if self.options.terminate_affordance is not None:
            affordances = [
                self.options.terminate_affordance if skill.family == TERMINATE else affordance
                for skill, affordance in zip(skills, affordances, strict=True)
            ]
        if self.options.min_affordance:
            affordances = [
                0.0 if skill.family != TERMINATE and affordance < self.options.min_affordance else affordance
                for skill, affordance in zip(skills, affordances, strict=True)
            ]
        if not (self.options.avoid_revisits or self.options.max_failures):
            return affordances
        world = env.snapshot()
        state = self._chosen_in = state_key(world)
        if self.options.avoid_revisits:
            self._passed.append(world.copy())
            affordances = [
                0.0 if affordance > 0.0 and self._revisits(world, skill) else affordance
                for skill, affordance in zip(skills, affordances, strict=True)
            ]
        if self.options.max_failures:
            affordances = [
                0.0 if self._failures[state, skill.text] >= self.options.max_failures else affordance
                for skill, affordance in zip(skills, affordances, strict=True)
            ]
        return affordances

    def _revisits(self, world: World, skill: Skill) -> bool:
        """Whether ``skill`` returns the world to a state this plan passed through.

        States are compared on the objects of the labels the plan's skills and ``skill`` name or change:
        an object of another label appearing or going (a perceived scene's false detection; the plan never moved
        it) does not make an undo new. In the physics kitchen, an 'apple' perception saw while the coke
        was lifted hid 'pick up the coke' right after putting it down at the user, in 2 runs of 8.
        """
        if skill.family == TERMINATE or not world.can_apply(skill):
            return False
        after = world.copy()
        after.apply(skill)
        # The labels of the objects the skill itself moves, makes or uses up count too: a coffee handed
        # over names no label in its text.
        changed = {obj.label for obj in set(world.objects).symmetric_difference(after.objects)}
        labels = self._touched | set(skill.arguments) | changed
        return any(state_key(after, labels) == state_key(passed, labels) for passed in self._passed)

    def observe(self, record: StepRecord) -> None:
        if record.succeeded:
            self._done.append(record.skill.text)
            self._touched.update(record.skill.arguments)
        elif record.status == StepStatus.FAILED and self._chosen_in is not None:
            self._failures[self._chosen_in, record.skill.text] += 1

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


def state_key(world: World, labels: Set[str] | None = None) -> tuple[object, ...]:
    """What makes two world states the same for ``avoid_revisits`` and ``max_failures``: robot place, the
    places of the objects by label (the gripper included; only those of ``labels`` when given), the
    drawer, the declared facts that hold, and the set of places visited (goals may ask for visits).
    Labels, not ids, because skills name labels and a perceived object's id is not stable: a coke re-seen
    after a failed pick may come back as another track, and the failure count must still find the state
    it failed in."""
    objects = tuple(sorted((obj.label, obj.at) for obj in world.objects if labels is None or obj.label in labels))
    return world.robot_at, objects, world.drawer_open, world.facts, frozenset(world.visited)


# The options that make the ``paper`` ablation (see the module docstring).
PAPER_SETUP = {
    "prompt_file": "saycan_prompt.yaml",
    "scene_context": False,
    "examples": "file",
    "terminate_affordance": None,
    "avoid_revisits": False,
    "max_failures": 0,
    "min_affordance": 0.0,
}


def dialog_example(example: PlanExample) -> DialogExample:
    """A bank example as a prompt example: its request, plan and scene line."""
    return DialogExample(example.instruction, example.steps, example.scene)


def build(resources: PlannerResources) -> SayCanPlanner:
    """SayCan from config/planners.yaml's ``saycan`` section (prompt_file, bank_file, ablation, top_k,
    scene_context, examples, retrieved_examples, terminate_affordance). In a domain other than the packaged
    kitchen, ``bank_file: ""`` is the domain's bank, and ``examples: none`` retrieves from it when there is
    one, unless the domain has a SayCan adapter of its own (planning.domain_examples)."""
    options = resources.options_for("saycan")
    if options.get("ablation") == "paper":
        options.update(PAPER_SETUP)
    prompt = SayCanPrompt.from_yaml(_config_path(options.pop("prompt_file", ""), "saycan_prompt.yaml"))
    bank_file = options.pop("bank_file", "")
    # Without an adapter of the domain's that knows the format, the prompt shows the bank's nearest
    # requests; without a bank either, SayCan still plans, scoring the domain's skills after the request.
    shows = (
        prompt_shows_examples(resources.kitchen, "saycan", resources.model.adapter)
        and domain_bank_file(resources.kitchen).is_file()
    )
    if options.get("examples") == "none" and shows:
        options["examples"] = "retrieved"
    if options.get("examples") == "retrieved" and not bank_file:
        bank_file = domain_bank(resources.kitchen)[0]
    bank_file = bank_file or domain_bank_file(resources.kitchen)
    planner_options = SayCanOptions(**options)
    embedder = resources.embedder if planner_options.ablation == "generative" else None
    retriever = None
    if planner_options.examples == "retrieved":
        bank_path = repo_path(bank_file)
        retriever = ExampleRetriever(load_bank(bank_path), resources.embedder, bank_path.with_suffix(".vectors.npz"))
    return SayCanPlanner(resources.model, prompt, planner_options, embedder, retriever)


def _config_path(value: str, default_name: str) -> Path:
    """A prompt file option: "" = the config folder's default, a bare name = that file of the config
    folder, anything else a path (relative ones from the checkout)."""
    if not value:
        return config_file(default_name)
    path = Path(value)
    return config_file(value) if len(path.parts) == 1 else repo_path(path)

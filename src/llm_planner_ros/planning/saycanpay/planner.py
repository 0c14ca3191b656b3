"""SayCanPay as a ``Planner`` of the shared plan loop: plan offline, then execute step by step.

At an instruction's first step the whole plan is made from the goal (the instruction) and the initial
observation (``env.describe_state()``), with no feedback from the environment (the paper's offline
planning: the partial plan is the planner's internal world state). The plan loop then executes it one
action per step; the first action that fails ends the plan (``no_candidate``, with the failed step in
the note), as an offline plan cannot recover.

Strategies (``strategy``): ``greedy_token`` (the model writes each step, mapped to the admissible
action nearest in edit distance, as the paper's Greedy-Token baseline), ``greedy_action`` and
``beam_action`` (``search``); decoding scores (``score``): ``say``, ``say_can``, ``say_can_pay``.

The domain is read off the environment: the kitchen when ``env.snapshot()`` is a kitchen ``World``, else
the environment's ``domain`` ("virtualhome"; BabyAI's when it names none); each domain has its own
prompt examples and Can and Pay models (``DomainModels``).
In the kitchen, a missing Can model means the kitchen's precondition rules on the planner's internal
world state after the partial plan (``kitchen_can: rules``, for comparison with the learned model).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.babyai_domain.episodes import load_episodes
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.domain_folder import (
    build_command,
    built_files_folder,
    domain_bank_file,
    domain_scorer_file,
    general_scorer_file,
)
from llm_planner_ros.domain.skill import TERMINATE, Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.llm.base import LanguageModel, RankRequest
from llm_planner_ros.paths import default_domain, repo_path
from llm_planner_ros.planning.decision import CandidateScore, StepDecision, StepRecord
from llm_planner_ros.planning.domain_examples import prompt_examples
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.registry import PlannerResources
from llm_planner_ros.planning.saycan.bank import PlanExample as BankExample
from llm_planner_ros.planning.saycan.bank import load_bank
from llm_planner_ros.planning.saycan.retrieval import ExampleRetriever
from llm_planner_ros.planning.saycanpay.models import DOMAINS, KINDS, CanPayScorer, load_scorer
from llm_planner_ros.planning.saycanpay.prompt import (
    STEP_END,
    PlanExample,
    PromptSource,
    SayPrompt,
    pick_examples,
    pick_kitchen_examples,
)
from llm_planner_ros.planning.saycanpay.retrieval import RetrievedKitchenPrompt
from llm_planner_ros.planning.saycanpay.search import SCORES, ActionScores, Beam, beam_search

STRATEGIES = ("greedy_token", "greedy_action", "beam_action")
KITCHEN_CAN = ("learned", "rules")
KITCHEN_PROMPTS = ("retrieved", "fixed")
# Domains a planner can be given models for: those with weight files (models.DOMAINS), and VirtualHome,
# whose Can is its simulator's preconditions (planning.virtualhome_planners).
PLANNING_DOMAINS = (*DOMAINS, "virtualhome")


@dataclass(frozen=True)
class DomainModels:
    """What SayCanPay plans with in one domain: where the Say prompt's expert plans come from (fixed, or
    chosen per instruction) and the Can and Pay models (None where the score does not use them; in the
    kitchen a None Can means the rules)."""

    prompt: PromptSource
    can: CanPayScorer | None = None
    pay: CanPayScorer | None = None


@dataclass(frozen=True)
class SayCanPayOptions:
    """``score``: one of SCORES; ``strategy``: one of STRATEGIES; ``candidates`` (m) and ``beam_size``
    (k): the paper's Table 6 (6 and 3); ``max_actions``: longest plan made offline; ``max_tokens``:
    budget of one written step (greedy_token, Table 6's 10); ``top_k``: rows of each step's table."""

    score: str = "say_can_pay"
    strategy: str = "beam_action"
    candidates: int = 6
    beam_size: int = 3
    max_actions: int = 15
    max_tokens: int = 10
    top_k: int = 5

    def __post_init__(self) -> None:
        if self.score not in SCORES:
            raise ValueError(f"unknown score {self.score!r}; choose one of {', '.join(SCORES)}")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {self.strategy!r}; choose one of {', '.join(STRATEGIES)}")
        if self.strategy == "greedy_token" and self.score != "say":
            raise ValueError("greedy_token writes each step with the language model alone: use score say")
        if not 1 <= self.beam_size <= self.candidates:
            raise ValueError(f"need 1 <= beam_size <= candidates, got {self.beam_size} and {self.candidates}")
        if self.max_actions < 1 or self.max_tokens < 1 or self.top_k < 1:
            raise ValueError("max_actions, max_tokens and top_k must be at least 1")

    @property
    def beam(self) -> int:
        """K of the search: 1 for greedy_action."""
        return 1 if self.strategy == "greedy_action" else self.beam_size


class SayCanPayPlanner:
    """The SayCanPay method. Outcomes of ``next_step``: the offline plan's next action with the
    candidate table it was chosen from; nothing (``no_candidate``) once an action failed or when the
    plan ended without the done action."""

    name = "saycanpay"

    def __init__(
        self,
        model: LanguageModel,
        domains: Mapping[str, DomainModels],
        options: SayCanPayOptions | None = None,
    ) -> None:
        self.options = options or SayCanPayOptions()
        for domain, models in domains.items():
            if domain not in PLANNING_DOMAINS:
                raise ValueError(f"unknown domain {domain!r}; choose among {', '.join(PLANNING_DOMAINS)}")
            if self.options.score in ("say_can", "say_can_pay") and models.can is None and domain != "kitchen":
                raise ValueError(f"score {self.options.score} needs the {domain} Can model: give it a can model")
            if self.options.score == "say_can_pay" and models.pay is None:
                raise ValueError(f"score say_can_pay needs the {domain} Pay model: give it a pay model")
        self._model = model
        self._domains = dict(domains)
        self._goal = ""
        self._plan: Beam | None = None
        self._failed: str | None = None

    @property
    def models(self) -> Mapping[str, DomainModels]:
        """What the planner scores with in each of its domains (its prompt source, Can and Pay models)."""
        return self._domains

    @property
    def plan(self) -> tuple[str, ...]:
        """The offline plan of the current instruction (empty before its first step)."""
        return self._plan.actions if self._plan else ()

    def reset(self, instruction: str) -> None:
        self._goal = instruction
        self._plan = None
        self._failed = None

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        if self._failed is not None:
            return StepDecision(None, note=self._failed)
        skills = {skill.text: skill for skill in env.admissible_skills()}
        if not skills:
            return StepDecision(None, note="no admissible action in this scene")
        if self._plan is None:
            snapshot = env.snapshot()
            domain = "kitchen" if isinstance(snapshot, World) else getattr(env, "domain", "babyai")
            models = self._domains.get(domain)
            if models is None:
                return StepDecision(None, note=f"no SayCanPay models for the {domain} domain were given")
            rules = snapshot if domain == "kitchen" and models.can is None else None
            self._plan = self._make_plan(models, env.describe_state(), skills, rules)
        index = len(history)
        if index >= len(self._plan.actions):
            return StepDecision(None, note=f"the offline plan of {index} action(s) ended without the done action")
        table = self._plan.tables[index]
        candidates = tuple(
            CandidateScore(skills[s.action], s.say, s.can, s.combined, s.pay) for s in table[: self.options.top_k]
        )
        return StepDecision(skills[self._plan.actions[index]], candidates, note=f"{self.options.strategy} plan")

    def observe(self, record: StepRecord) -> None:
        if not record.succeeded:
            self._failed = f"offline plan step {record.index + 1} {record.skill.text!r} failed: {record.message}"

    def _make_plan(
        self, models: DomainModels, initial_state: str, skills: dict[str, Skill], rules: World | None
    ) -> Beam:
        """The offline plan with the domain's prompt and models. With ``rules`` (the kitchen without a
        Can model) Can is the kitchen's preconditions on the internal world state after the partial plan
        (1 or 0); otherwise the Can model scores. Pay is the Pay model's."""
        done = next((text for text, skill in skills.items() if skill.family == TERMINATE), "")
        prompt, can_model, pay_model = models.prompt.for_goal(self._goal), models.can, models.pay
        if self.options.strategy == "greedy_token":
            return self._write_plan(prompt, initial_state, list(skills), done)

        def say(histories: Sequence[Sequence[str]]) -> list[list[tuple[str, float]]]:
            # one ranked request per beam: the model scores only what can enter each beam's top m
            requests = [
                RankRequest(
                    prompt.render(self._goal, initial_state, history),
                    [prompt.completion(a) for a in skills],
                    [1.0] * len(skills),
                    keep=min(self.options.candidates, len(skills)),
                )
                for history in histories
            ]
            return [
                [(a, p) for a, p in zip(skills, answer.log_probs, strict=True) if p is not None]
                for answer in self._model.score_ranked(requests)
            ]

        def can(history: Sequence[str], actions: Sequence[str]) -> list[float]:
            if rules is not None:
                world = rules.copy()
                for action in history:
                    if not world.can_apply(action):  # a beam kept for lack of better ones: nothing follows
                        return [0.0] * len(actions)
                    world.apply(action)
                return [1.0 if world.can_apply(action) else 0.0 for action in actions]
            assert can_model is not None
            return can_model.probabilities(self._goal, initial_state, history, actions)

        def pay(history: Sequence[str], actions: Sequence[str]) -> list[float]:
            assert pay_model is not None
            return pay_model.probabilities(self._goal, initial_state, history, actions)

        return beam_search(
            say,
            can if can_model is not None or rules is not None else None,
            pay if pay_model is not None else None,
            done=done,
            score=self.options.score,
            candidates=min(self.options.candidates, len(skills)),
            beam_size=min(self.options.beam, len(skills)),
            max_actions=self.options.max_actions,
        )

    def _write_plan(self, prompt: SayPrompt, initial_state: str, actions: list[str], done: str) -> Beam:
        """Greedy-Token: greedy generation of each step, projected to the nearest admissible action."""
        plan: list[str] = []
        tables: list[tuple[ActionScores, ...]] = []
        total = 0.0
        while len(plan) < self.options.max_actions and (not plan or plan[-1] != done):
            text = prompt.render(self._goal, initial_state, plan)
            generated = self._model.generate(text, max_tokens=self.options.max_tokens, stop=[STEP_END])
            text = generated.texts[0].strip()
            log_p = generated.mean_log_probs[0]
            distances = sorted((edit_distance(text, action), action) for action in actions)
            plan.append(distances[0][1])
            tables.append(tuple(ActionScores(a, log_p, 1.0, 1.0, -float(d)) for d, a in distances))
            total += log_p
        return Beam(tuple(plan), total, tuple(tables), plan[-1] == done)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance over characters (the paper maps written steps to admissible actions by it)."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


DEFAULT_EXAMPLES = "benchmarks/babyai/train.txt"
# The kitchen-family models default to the default domain's (its folder's saycanpay/); in the domain a
# plan runs in, that folder's own replace them (``build``).
DEFAULT_MODELS = {
    ("babyai", "can"): "data/saycanpay/babyai_can.safetensors",
    ("babyai", "pay"): "data/saycanpay/babyai_pay.safetensors",
    **{("kitchen", kind): str(domain_scorer_file(default_domain(), kind)) for kind in KINDS},
}
DEFAULT_CAN = DEFAULT_MODELS["babyai", "can"]
DEFAULT_PAY = DEFAULT_MODELS["babyai", "pay"]


def model_option(domain: str, kind: str) -> str:
    """The config/planners.yaml option naming a weight file: can_model, pay_model (BabyAI),
    kitchen_can_model, kitchen_pay_model."""
    return f"{kind}_model" if domain == "babyai" else f"{domain}_{kind}_model"


def load_examples(path: str | Path, count: int) -> SayPrompt:
    """The Say prompt with ``count`` expert plans of a BabyAI episode file (``pick_examples``)."""
    episodes = [PlanExample(e.goal, e.initial_state, e.plan) for e in load_episodes(repo_path(path))]
    return SayPrompt(pick_examples(episodes, count))


def load_kitchen_examples(path: str | Path, count: int, kitchen: Domain) -> SayPrompt:
    """The Say prompt with ``count`` kitchen expert plans of a SayCan bank file (generated requests with
    oracle plans, none of an evaluation suite; ``pick_kitchen_examples``; "" = ``kitchen_bank``'s), each
    with the initial observation the plan loop gives (``World.summary()``)."""
    examples = [
        (e.family, PlanExample(e.instruction, kitchen.world(e.initial).summary(), e.steps))
        for e in kitchen_bank(path, kitchen)[0]
    ]
    return SayPrompt(pick_kitchen_examples(examples, count))


def retrieved_kitchen_examples(path: str | Path, count: int, resources: PlannerResources) -> RetrievedKitchenPrompt:
    """Kitchen Say prompts with the ``count`` requests of a SayCan bank file ("" = ``kitchen_bank``'s) nearest
    to each instruction; a bank's sentence vectors are cached next to it (shared with the SayCan planner)."""
    bank, cache = kitchen_bank(path, resources.kitchen)
    return RetrievedKitchenPrompt(ExampleRetriever(bank, resources.embedder, cache), resources.kitchen, count)


def kitchen_bank(path: str | Path, kitchen: Domain) -> tuple[list[BankExample], Path | None]:
    """The examples of the bank file ``path`` and where their sentence vectors are cached; "" = the examples
    of ``kitchen``'s domain (``domain_examples.prompt_examples``: its bank, else tasks written from its
    files, whose vectors are not cached)."""
    if path:
        bank_path = repo_path(path)
        return load_bank(bank_path), bank_path.with_suffix(".vectors.npz")
    bank_file = domain_bank_file(kitchen)
    return prompt_examples(kitchen)[1], bank_file.with_suffix(".vectors.npz") if bank_file.is_file() else None


def build(resources: PlannerResources, domains: Sequence[str] = DOMAINS) -> SayCanPayPlanner:
    """SayCanPay from config/planners.yaml's ``saycanpay`` section (examples_file, kitchen_examples,
    kitchen_prompt, examples, can_model, pay_model, kitchen_can_model, kitchen_pay_model, kitchen_can, can_service,
    pay_service and the fields of SayCanPayOptions) for ``domains`` (a BabyAI benchmark needs neither
    the kitchen's prompt nor its models); the Can and Pay models load only when the score uses them. A
    ``<kind>_service`` (planner only) serves that kind in every domain instead of the weight files,
    which are then not read."""
    unknown = sorted(set(domains) - set(DOMAINS))
    if unknown:
        raise ValueError(f"unknown domain(s) {', '.join(unknown)}; choose from {', '.join(DOMAINS)}")
    options = resources.options_for("saycanpay")
    count = int(options.pop("examples", 3))
    kitchen_examples = options.pop("kitchen_examples", "")
    examples = {
        "babyai": options.pop("examples_file", "") or DEFAULT_EXAMPLES,
        "kitchen": kitchen_examples,
    }
    kitchen_prompt = options.pop("kitchen_prompt", "retrieved")
    if kitchen_prompt not in KITCHEN_PROMPTS:
        raise ValueError(f"unknown kitchen_prompt {kitchen_prompt!r}; choose one of {', '.join(KITCHEN_PROMPTS)}")
    loaders: dict[str, Callable[[str], PromptSource]] = {
        "babyai": lambda path: load_examples(path, count),
        "kitchen": lambda path: (
            retrieved_kitchen_examples(path, count, resources)
            if kitchen_prompt == "retrieved"
            else load_kitchen_examples(path, count, resources.kitchen)
        ),
    }
    files = {key: options.pop(model_option(*key), "") or default for key, default in DEFAULT_MODELS.items()}
    kitchen_can = options.pop("kitchen_can", "learned")
    services = {kind: options.pop(f"{kind}_service", "") for kind in KINDS}
    if kitchen_can not in KITCHEN_CAN:
        raise ValueError(f"unknown kitchen_can {kitchen_can!r}; choose one of {', '.join(KITCHEN_CAN)}")
    planner_options = SayCanPayOptions(**options)
    used = {"can": planner_options.score != "say", "pay": planner_options.score == "say_can_pay"}
    served = {kind: resources.served_scorer(kind, name) for kind, name in services.items() if name and used[kind]}
    skip = {("kitchen", "can")} if kitchen_can == "rules" else set()
    own_world = None
    if "kitchen" in domains:
        # A domain folder's own models (llm-planner domain build --saycanpay), else the general ones trained
        # across generated domains, unless options name others.
        folder = built_files_folder(resources.kitchen)
        own_world = (resources.kitchen.config.world, f"{build_command(resources.kitchen)} --saycanpay")
        for kind in KINDS:
            if files["kitchen", kind] == DEFAULT_MODELS["kitchen", kind]:
                own, general = domain_scorer_file(folder, kind), general_scorer_file(kind)
                files["kitchen", kind] = str(general if general is not None and not own.is_file() else own)
        missing = [
            files["kitchen", kind]
            for kind in KINDS
            if used[kind] and kind not in served and ("kitchen", kind) not in skip
            if not repo_path(files["kitchen", kind]).is_file()
        ]
        if missing:
            raise ValueError(
                f"saycanpay in {resources.kitchen.config.world!r} needs the domain's own Can and Pay models "
                f"({', '.join(missing)} missing; each domain's are trained for it): build "
                f"them with `{own_world[1]}`, or plan with `score: say_can` and `kitchen_can: rules` (the "
                "domain's preconditions), or serve them (can_service, pay_service)"
            )
    # Prompts load after every option is checked: a retrieved kitchen prompt embeds the bank first.
    prompts = {domain: loaders[domain](examples[domain]) for domain in domains}

    def scorer(domain: str, kind: str) -> CanPayScorer:
        if kind in served:
            return served[kind]
        if domain == "kitchen" and own_world is not None:
            library = resources.kitchen.library
            return load_scorer(repo_path(files[domain, kind]), kind, resources.embedder, domain, library, own_world)
        return load_scorer(repo_path(files[domain, kind]), kind, resources.embedder, domain)

    scorers = {
        (domain, kind): scorer(domain, kind)
        for domain in domains
        for kind in KINDS
        if used[kind] and ((domain, kind) not in skip or kind in served)
    }
    models = {d: DomainModels(prompts[d], scorers.get((d, "can")), scorers.get((d, "pay"))) for d in domains}
    return SayCanPayPlanner(resources.model, models, planner_options)

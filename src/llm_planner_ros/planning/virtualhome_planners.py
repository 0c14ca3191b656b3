"""The five methods set up for VirtualHome, each with its prompt examples from VirtualHome programs.

Every method gets the same examples file (``virtualhome_domain.examples``: programs that are not
evaluated tasks) and the same request (``VirtualHomeEnvironment.instruction``); the kitchen's prompt
files, example banks and adapters name kitchen skills and are not used. Examples are chosen as each
paper does: SayCan, zero-shot, LLM-Planner and SayCanPay retrieve the examples nearest to the request
(sentence embeddings; zero-shot one, as Huang et al.), ProgPrompt shows a fixed set of programs (its
paper's prompt), the most varied ones (``diverse``), with the base model; with its VirtualHome adapter,
which learned the programs themselves, it shows none. SayCan and ProgPrompt have VirtualHome adapters
(trained on the training examples: ``examples.development_split``); the bench uses them unless told
otherwise (``default_llm``). Options per method and the adapters are config/planners.yaml's ``domains:
virtualhome:`` sections (``virtualhome_options``), overridable by the bench's ``--option``; none reads a
kitchen ``World`` (no scene line, no revisit check), since a VirtualHome scene is a graph the kitchen's
state code cannot read.

SayCanPay's Can is VirtualHome's own preconditions on the planner's internal state after the partial
plan (``SimulatorCan``), as its kitchen uses the kitchen's rules without a learned model; VirtualHome has
no trained Pay model, so its score is ``say_can``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_planner_ros.llm.base import Embedder, LanguageModel
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.plan_loop import Planner
from llm_planner_ros.planning.registry import load_benchmark_options
from llm_planner_ros.planning.skill_projection import SkillProjector
from llm_planner_ros.planning.virtualhome_environment import VirtualHomeEnvironment
from llm_planner_ros.virtualhome_domain.examples import EXAMPLES_FILE, VirtualHomeExample, program_task
from llm_planner_ros.virtualhome_domain.vocabulary import skill_from_text

if TYPE_CHECKING:
    from llm_planner_ros.planning.progprompt.examples import PromptExamples

METHODS = ("saycan", "saycanpay", "progprompt", "zero_shot", "llm_planner")
# The section of config/planners.yaml's ``domains:`` that sets the methods up here.
BENCHMARK_DOMAIN = "virtualhome"
# The key of a method's section naming the embedded model's adapter (``training.saycan_adapter
# --virtualhome``; docs/benchmarks.md, "VirtualHome adapters": trained on the training examples only).
ADAPTER = "adapter"
PREAMBLE = (
    "Robot: Hello, I am a household robot in a home with several rooms.",
    "Robot: Tell me the task and I will answer with the numbered list of steps I would take.",
)


def virtualhome_options(method: str, path: str | Path | None = None) -> dict[str, Any]:
    """``method``'s options on VirtualHome: its section of config/planners.yaml's ``domains: virtualhome:``
    (or ``path``'s), without the adapter; ValueError names an unknown method."""
    if method not in METHODS:
        raise ValueError(f"unknown planner {method!r}; choose one of: {', '.join(METHODS)}")
    section = dict(load_benchmark_options(BENCHMARK_DOMAIN, path).get(method, {}))
    section.pop(ADAPTER, None)
    return section


def default_llm(method: str, path: str | Path | None = None) -> dict[str, str]:
    """The language model settings a method plans VirtualHome with unless told otherwise: the embedded model
    with the adapter its section names, or with none."""
    adapter = load_benchmark_options(BENCHMARK_DOMAIN, path).get(method, {}).get(ADAPTER) or "none"
    return {"adapter": str(adapter)}


def build_virtualhome_planner(
    method: str,
    model: LanguageModel,
    embedder: Embedder,
    examples: Sequence[VirtualHomeExample],
    overrides: Mapping[str, Any] | None = None,
) -> VirtualHomeMethod:
    """``method`` with ``examples`` and its ``virtualhome_options`` updated by ``overrides``; ValueError
    names an unknown method or option."""
    options = {**virtualhome_options(method), **(overrides or {})}
    if not examples:
        raise ValueError(
            "no VirtualHome prompt examples: build them with "
            f"`llm-planner train virtualhome-examples --out {EXAMPLES_FILE}`"
        )
    builder = {
        "saycan": _saycan,
        "saycanpay": _saycanpay,
        "progprompt": _progprompt,
        "zero_shot": _zero_shot,
        "llm_planner": _llm_planner,
    }[method]
    return builder(model, embedder, list(examples), options)


def _saycan(
    model: LanguageModel, embedder: Embedder, examples: list[VirtualHomeExample], options: dict[str, Any]
) -> VirtualHomeMethod:
    from llm_planner_ros.planning.saycan.planner import SayCanOptions, SayCanPlanner, dialog_example
    from llm_planner_ros.planning.saycan.prompt import SayCanPrompt
    from llm_planner_ros.planning.saycan.retrieval import ExampleRetriever

    bank = saycan_bank(examples)
    prompt = SayCanPrompt(PREAMBLE, tuple(dialog_example(example) for example in bank[:1]))
    return VirtualHomeMethod(
        SayCanPlanner(model, prompt, SayCanOptions(**options), retriever=ExampleRetriever(bank, embedder))
    )


def saycan_bank(examples: Sequence[VirtualHomeExample]) -> list[Any]:
    """The examples as SayCan's bank entries (``saycan.bank.PlanExample``): what it retrieves, and what its
    VirtualHome adapter trains on."""
    from llm_planner_ros.planning.saycan.bank import PlanExample

    return [PlanExample(e.id, "virtualhome", e.name, e.instruction, "", e.steps, {}, {}) for e in examples]


def _zero_shot(
    model: LanguageModel, embedder: Embedder, examples: list[VirtualHomeExample], options: dict[str, Any]
) -> VirtualHomeMethod:
    from llm_planner_ros.planning.zero_shot.planner import ZeroShotOptions, ZeroShotPlanner
    from llm_planner_ros.planning.zero_shot.prompt import Demonstration

    demonstrations = [Demonstration(e.instruction, e.steps) for e in examples]
    retriever = KnnRetriever(demonstrations, lambda d: d.task, embedder)
    return VirtualHomeMethod(ZeroShotPlanner(model, retriever, SkillProjector(embedder), ZeroShotOptions(**options)))


def _llm_planner(
    model: LanguageModel, embedder: Embedder, examples: list[VirtualHomeExample], options: dict[str, Any]
) -> VirtualHomeMethod:
    from llm_planner_ros.planning.llm_planner.planner import (
        GenerationOptions,
        LlmPlanner,
        LlmPlannerOptions,
        PlanGenerator,
    )
    from llm_planner_ros.planning.llm_planner.prompt import LlmPlannerPrompt, PlanExample

    generation_keys = {"examples", "max_tokens", "logit_bias"}
    generation = GenerationOptions(**{k: v for k, v in options.items() if k in generation_keys})
    planner_options = LlmPlannerOptions(**{k: v for k, v in options.items() if k not in generation_keys})
    pool = [PlanExample(e.instruction, e.steps, e.objects) for e in examples]
    generator = PlanGenerator(model, KnnRetriever(pool, lambda e: e.task, embedder), LlmPlannerPrompt(), generation)
    return VirtualHomeMethod(LlmPlanner(generator, SkillProjector(embedder), planner_options))


def _progprompt(
    model: LanguageModel, embedder: Embedder, examples: list[VirtualHomeExample], options: dict[str, Any]
) -> VirtualHomeMethod:
    from llm_planner_ros.planning.progprompt.planner import ProgPromptOptions, ProgPromptPlanner

    prompt_examples = progprompt_examples(examples, int(options.pop("programs")))
    return VirtualHomeMethod(ProgPromptPlanner(model, prompt_examples, ProgPromptOptions.from_mapping(options)))


def progprompt_examples(examples: Sequence[VirtualHomeExample], count: int) -> PromptExamples:
    """The ``count`` example programs ProgPrompt shows (``diverse``)."""
    from llm_planner_ros.planning.progprompt.examples import ExampleProgram, PromptExamples

    programs = tuple(ExampleProgram(e.instruction, program_body(e)) for e in diverse(examples, count))
    return PromptExamples(programs, (), str(EXAMPLES_FILE))


def progprompt_training_text(example: VirtualHomeExample, shown: PromptExamples | None) -> tuple[str, int]:
    """ProgPrompt's training text of one example in its own scene: the prompt the VirtualHome planner
    writes at the first step (the ``shown`` programs or none, the instruction as a comment), then the
    example's program; and where the program starts (characters)."""
    from llm_planner_ros.planning.progprompt.prompt import render_prompt
    from llm_planner_ros.planning.progprompt.training import program_completion
    from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary

    env = VirtualHomeEnvironment.for_task(program_task(example.id))
    vocabulary = Vocabulary.of_scene(env.admissible_skills(), env.snapshot(), env.observed_objects())
    prompt = render_prompt(shown, vocabulary, example.instruction, "", comment=True)
    return prompt + program_completion(vocabulary, example.steps), len(prompt)


def program_body(example: VirtualHomeExample) -> str:
    """An example's steps as ProgPrompt calls, one per line (``done`` is the program's end, not a call)."""
    from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary, call_texts

    steps = [text for text in example.steps if text != "done"]
    skills = [skill_from_text(text, example.objects) for text in dict.fromkeys(steps)]
    calls = call_texts(Vocabulary.of_scene(skills, None, example.objects))
    return "\n".join(calls[text] for text in steps)


def diverse(examples: Sequence[VirtualHomeExample], count: int) -> list[VirtualHomeExample]:
    """``count`` examples of different task names, the longer plans first (as varied a prompt as the
    examples allow); deterministic."""
    chosen: list[VirtualHomeExample] = []
    names: set[str] = set()
    for example in sorted(examples, key=lambda e: (-len(e.steps), e.id)):
        if example.name not in names and len(chosen) < count:
            chosen.append(example)
            names.add(example.name)
    return chosen


class SimulatorCan:
    """SayCanPay's Can in VirtualHome: 1 for an action the simulator would run after the partial plan,
    from the initial scene of the task being planned (``bind``), else 0; 0.1 for ``done``, as the
    environment's own affordance.

    The scene after each partial plan is kept for the task (by the plan so far), so a beam's candidates
    run one more action from their parent's scene instead of the whole plan from the start: linear work
    in the plan's length where replaying made it quadratic, and the same scenes."""

    def __init__(self) -> None:
        self._after: dict[tuple[str, ...], VirtualHomeEnvironment | None] = {}

    def bind(self, env: VirtualHomeEnvironment) -> None:
        self._after = {(): env.at_start()}

    def _scene_after(self, history: tuple[str, ...]) -> VirtualHomeEnvironment | None:
        """The environment after ``history`` from the task's start, None when an action of it cannot run."""
        missing = []
        while history not in self._after:
            missing.append(history)
            history = history[:-1]
        env = self._after[history]
        for partial in reversed(missing):
            env = None if env is None else env.branch().after(partial[-1:])
            self._after[partial] = env
        return env

    def probabilities(
        self, goal: str, initial_state: str, history: Sequence[str], actions: Sequence[str]
    ) -> list[float]:
        if not self._after:
            raise RuntimeError("SimulatorCan has no task: bind it to the task's environment before planning")
        after = self._scene_after(tuple(history))
        if after is None:
            return [0.0] * len(actions)
        skills = {skill.text: skill for skill in after.admissible_skills()}
        return after.affordances([skills[text] for text in actions])


@dataclass(frozen=True)
class VirtualHomeMethod:
    """A method ready for VirtualHome tasks: its planner, and ``bind(env)`` to call before each task."""

    planner: Planner
    bind: Callable[[VirtualHomeEnvironment], None] = lambda env: None


def _saycanpay(
    model: LanguageModel, embedder: Embedder, examples: list[VirtualHomeExample], options: dict[str, Any]
) -> VirtualHomeMethod:
    from llm_planner_ros.planning.saycanpay.planner import DomainModels, SayCanPayOptions, SayCanPayPlanner

    prompt = NearestSayPrompt(KnnRetriever(examples, lambda e: e.instruction, embedder), int(options.pop("examples")))
    can = SimulatorCan()
    models = {"virtualhome": DomainModels(prompt, can=can)}
    return VirtualHomeMethod(SayCanPayPlanner(model, models, SayCanPayOptions(**options)), can.bind)


class NearestSayPrompt:
    """SayCanPay's Say prompt with the ``count`` examples nearest to the goal, the nearest last."""

    def __init__(self, retriever: KnnRetriever[VirtualHomeExample], count: int) -> None:
        self._retriever = retriever
        self._count = count

    def for_goal(self, goal: str) -> Any:
        from llm_planner_ros.planning.saycanpay.prompt import PlanExample, SayPrompt

        near = reversed(self._retriever.nearest(goal, self._count))
        return SayPrompt(tuple(PlanExample(e.instruction, e.initial, e.steps) for e in near))

"""ProgPrompt (arXiv 2209.11302): the model writes the whole plan as a program; a safe interpreter runs it.

At the first step the planner renders the program prompt for the current scene (progprompt.prompt),
takes one greedy completion, and validates it (progprompt.validator). With ``grammar`` on (the
default) the completion is constrained to the program grammar of the scene (planning.grammars): skill
calls on the scene's objects and places, asserts with recovery, comments; so it parses and names only
what exists. The validator stays the second line: a program it still rejects (cut by the token budget
mid-line, a limit exceeded) runs up to the line before its first problem, and ``cut`` records that
line and why. A program with no acceptable line never runs: the planner proposes nothing and the
rejection (each line, and what to write instead) is the reason the plan ends. With ``grammar`` off
(the paper's free generation) a program runs only when the validator accepts all of it. An accepted
program is
interpreted one skill call per step (progprompt.interpreter):

- each assert is decided against the current state (``assert_check``: ``rules`` over the world state,
  or ``llm``, the paper's yes/no question to the model); a failed one runs its recovery steps;
- a call whose affordance is below ``infeasible_below`` is not dispatched: it comes back with ``skip``
  set, run_plan records it as skipped, and the program goes on with its next statement;
- when the program runs to its end the planner proposes ``done`` (a ``done()`` call ends it earlier);
  a failed assert without recovery stops the plan with that assert as the reason, and so does a
  program that decides more than ``max_checks_per_step`` asserts on the way to one call (a loop of
  asserts: each one is a model call with ``assert_check: llm``, and the plan loop can only be
  canceled between calls).

As in the paper the program is written once per instruction: a step that fails is not re-planned, the
program's asserts are how it recovers. The scene changing under the program is another matter: when the
plan loop finds that an object the program's remaining calls need is gone or moved so that a call can no
longer run, or that a new object the instruction names appeared (``planning.scene_change``), the
program is dropped and a new one is written for the current scene. At most ``max_replans`` times per
instruction: a scene that keeps changing (a detector whose objects flicker in and out) would otherwise
have it write a program at every step until the step budget, so the next change ends the plan instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from llm_planner_ros.domain.domain_folder import domain_examples_file
from llm_planner_ros.domain.skill import TERMINATE, Skill
from llm_planner_ros.llm.base import LanguageModel
from llm_planner_ros.paths import repo_path
from llm_planner_ros.planning.decision import CandidateScore, StepDecision, StepRecord
from llm_planner_ros.planning.domain_examples import (
    DOMAIN_PROMPT_EXAMPLES,
    diverse_examples,
    prompt_examples,
    prompt_shows_examples,
)
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.grammars import GrammarError, program_grammar
from llm_planner_ros.planning.progprompt.checks import CHECKERS, MODEL, RULES, ModelChecker, RuleChecker, StateChecker
from llm_planner_ros.planning.progprompt.errors import ProgramError, ProgramProblem
from llm_planner_ros.planning.progprompt.examples import (
    PromptExamples,
    bank_programs,
    check_example_programs,
    load_examples,
)
from llm_planner_ros.planning.progprompt.interpreter import MAX_CHECKS, MAX_CHECKS_OPTION, ProgramRun
from llm_planner_ros.planning.progprompt.program import Program, Repeat, SkillCall, Statement
from llm_planner_ros.planning.progprompt.prompt import STOP, program_text, render_prompt
from llm_planner_ros.planning.progprompt.validator import ProgramLimits, parse_program, parse_valid_prefix
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary
from llm_planner_ros.planning.registry import PlannerResources
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.planning.scene_change import Replan

# ``examples`` option: the prompt shows the examples file's programs, or none.
EXAMPLES_SHOWN, NO_EXAMPLES = "file", "none"
EXAMPLE_CHOICES = (EXAMPLES_SHOWN, NO_EXAMPLES)


@dataclass(frozen=True)
class ProgPromptOptions:
    """``assert_check``: how asserts are decided, one of CHECKERS; ``infeasible_below``: a call whose
    affordance is below this is skipped instead of dispatched; ``max_tokens``: budget of the generated
    program; ``max_checks_per_step``: the most asserts decided on the way to one skill call (beyond it
    the program halts); ``limits``: what size and shape of program the validator accepts; ``grammar``:
    constrain generation to the scene's program grammar (False: the paper's free generation);
    ``max_replans``: the most programs re-written for scene changes per instruction (one more ends the plan);
    ``examples``: ``file`` shows the example programs (the paper's prompt), ``none`` leaves them out (for a
    model trained on programs: the embedded model's adapter); ``scene_context``: a comment line saying
    where the robot is, what it holds and what lies where (``saycan.scene``) follows the lists;
    ``instruction_comment``: each ``def`` line is followed by its whole instruction as a comment (the
    function's name keeps 60 characters; for requests that list their goals)."""

    assert_check: str = RULES
    infeasible_below: float = 0.05
    max_tokens: int = 256
    max_checks_per_step: int = MAX_CHECKS
    limits: ProgramLimits = field(default_factory=ProgramLimits)
    grammar: bool = True
    max_replans: int = 3
    examples: str = EXAMPLES_SHOWN
    scene_context: bool = False
    instruction_comment: bool = False

    def __post_init__(self) -> None:
        if self.examples not in EXAMPLE_CHOICES:
            raise ValueError(f"unknown examples {self.examples!r}; choose one of {', '.join(EXAMPLE_CHOICES)}")
        if self.assert_check not in CHECKERS:
            raise ValueError(f"unknown assert_check {self.assert_check!r}; choose one of {', '.join(CHECKERS)}")
        if not 0.0 <= self.infeasible_below <= 1.0:
            raise ValueError(f"infeasible_below must be in [0, 1], got {self.infeasible_below}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}")
        if self.max_checks_per_step < 1:
            raise ValueError(f"{MAX_CHECKS_OPTION} must be at least 1, got {self.max_checks_per_step}")
        if self.max_replans < 0:
            raise ValueError(f"max_replans must be at least 0, got {self.max_replans}")

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> ProgPromptOptions:
        """From a config section, ``limits`` a nested mapping; unknown keys raise, naming the known ones."""
        known = {f.name for f in fields(cls)}
        limit_names = {f.name for f in fields(ProgramLimits)}
        limits = dict(options.get("limits") or {})
        unknown = sorted(set(options) - known) + sorted(f"limits.{key}" for key in set(limits) - limit_names)
        if unknown:
            raise ValueError(
                f"unknown progprompt option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}, "
                f"limits: {', '.join(sorted(limit_names))}"
            )
        return cls(**{**options, "limits": ProgramLimits(**limits)})


class ProgPromptPlanner:
    """The ProgPrompt method as a ``Planner`` for ``run_plan``.

    Outcomes of ``next_step``: the program's next skill call (with ``skip`` set when it is infeasible
    now); ``done`` once the program has run to its end; nothing (``skill`` None) when the program was
    rejected, an assert without recovery failed or the scene changed once more than ``max_replans``
    allows, ``note`` saying which line and why. ``program`` and
    ``program_text`` show what the model wrote for the current instruction; ``cut`` is None, or the
    first problem of a program of which only the lines before it run.
    """

    name = "progprompt"

    def __init__(
        self,
        model: LanguageModel,
        examples: PromptExamples,
        options: ProgPromptOptions | None = None,
    ) -> None:
        self.options = options or ProgPromptOptions()
        self._model = model
        self._examples = examples
        self._checker: StateChecker = (
            ModelChecker(model, examples.feedback) if self.options.assert_check == MODEL else RuleChecker()
        )
        self.reset("")

    def reset(self, instruction: str) -> None:
        self._instruction = instruction
        self.replans = 0  # programs re-written for scene changes during this instruction
        self._start_program()

    def _start_program(self) -> None:
        self.program_text = ""
        self.program: Program | None = None
        self.cut: ProgramProblem | None = None
        self._run: ProgramRun | None = None
        self._rejected: str | None = None
        self._log_prob = 0.0
        self._line = 0  # line of the call proposed last

    def remaining_plan(self) -> list[str]:
        """Skill texts of the calls after the one proposed last, in program order, loops once, recovery
        statements left out (they run only when an assert fails) (``PlanHolder``)."""
        if self.program is None:
            return []
        return [call.skill.text for call in _calls(self.program.body) if call.line > self._line]

    def replan(self, why: Replan) -> None:
        """Drop the program: the next step writes a new one for the current scene, or, past
        ``max_replans`` re-writes, proposes nothing and ends the plan with why (``PlanHolder``)."""
        self._start_program()
        self.replans += 1
        if self.replans > self.options.max_replans:
            self._rejected = (
                f"the scene changed again after {self.options.max_replans} program re-write(s) for this "
                f"instruction (option max_replans): {why.reason}"
            )

    def next_step(self, env: PlanningEnvironment, history: Sequence[StepRecord]) -> StepDecision:
        if self._run is None and self._rejected is None:
            self._write_program(env)
        if self._rejected is not None:
            return StepDecision(None, note=self._rejected)
        assert self._run is not None
        advance = self._run.advance(lambda condition: self._checker.holds(condition, env))
        checks = [str(check) for check in advance.checks]
        if advance.halted is not None:
            return StepDecision(None, note=f"the program stopped: {advance.halted}")
        if advance.call is None:
            terminate = next((skill for skill in env.admissible_skills() if skill.family == TERMINATE), None)
            if terminate is None:
                return StepDecision(None, note="the program ran to its end, but this scene has no terminate skill")
            end = "the program ran to its end" if self.cut is None else f"the program ran to its cut ({self.cut})"
            return self._decision(env, terminate, [*checks, end])
        call = advance.call
        self._line = call.line
        return self._decision(env, call.skill, [*checks, f"line {call.line}: {call.text}"])

    def observe(self, record: StepRecord) -> None:
        """Nothing to learn from an outcome: the program reacts to the state through its asserts (the paper
        gives its programs no action-success feedback either)."""

    def _write_program(self, env: PlanningEnvironment) -> None:
        world = env.snapshot()
        vocabulary = Vocabulary.of_scene(env.admissible_skills(), world, env.observed_objects())
        prompt = render_prompt(
            self._examples if self.options.examples == EXAMPLES_SHOWN else None,
            vocabulary,
            self._instruction,
            describe_scene(world) if self.options.scene_context else "",
            self.options.instruction_comment,
        )
        try:
            grammar = program_grammar(vocabulary) if self.options.grammar else None
        except GrammarError as error:
            self._rejected = f"no program can be written for this scene: {error}"
            return
        generation = self._model.generate(
            prompt, n=1, max_tokens=self.options.max_tokens, temperature=0.0, stop=STOP, grammar=grammar
        )
        self.program_text = program_text(self._instruction, generation.texts[0])
        self._log_prob = generation.mean_log_probs[0]
        try:
            if grammar is None:
                self.program = parse_program(self.program_text, vocabulary, self.options.limits)
            else:
                self.program, self.cut = parse_valid_prefix(self.program_text, vocabulary, self.options.limits)
        except ProgramError as error:
            self._rejected = f"the generated program was rejected: {error}"
            return
        self._run = ProgramRun(self.program, self.options.max_checks_per_step)

    def _decision(self, env: PlanningEnvironment, skill: Skill, notes: list[str]) -> StepDecision:
        affordance = env.affordances([skill])[0]
        candidate = CandidateScore(skill, self._log_prob, affordance, combined=affordance)
        note = "; ".join(notes)
        if skill.family != TERMINATE and affordance < self.options.infeasible_below:
            reason = f"{notes[-1]} is infeasible now (affordance {affordance:.2f} < {self.options.infeasible_below})"
            return StepDecision(skill, (candidate,), note, skip=reason)
        return StepDecision(skill, (candidate,), note)


def _calls(statements: Sequence[Statement]) -> Iterator[SkillCall]:
    for statement in statements:
        if isinstance(statement, SkillCall):
            yield statement
        elif isinstance(statement, Repeat):
            yield from _calls(statement.body)


def build(resources: PlannerResources) -> ProgPromptPlanner:
    """ProgPrompt from config/planners.yaml's ``progprompt`` section (examples_file, assert_check, ...).
    ``examples_file: ""`` is the domain folder's ``examples/progprompt.yaml``, else example programs written
    from DOMAIN_PROMPT_EXAMPLES plans of the domain's ``prompt_examples`` (its bank, else tasks written from
    its files), which ``examples: none`` shows unless the domain has a ProgPrompt adapter of its own."""
    options = resources.options_for("progprompt")
    examples_file = options.pop("examples_file", None) or domain_examples_file(resources.kitchen, "progprompt")
    if not examples_file:
        source, bank = prompt_examples(resources.kitchen)
        chosen = diverse_examples(bank, DOMAIN_PROMPT_EXAMPLES)
        examples = bank_programs(resources.kitchen, chosen, source)
        if options.get("examples") == "none" and prompt_shows_examples(
            resources.kitchen, "progprompt", resources.model.adapter
        ):
            options["examples"] = "file"
    else:
        examples = load_examples(repo_path(examples_file))
    planner_options = ProgPromptOptions.from_mapping(options)
    check_example_programs(examples, resources.kitchen, planner_options.limits)
    return ProgPromptPlanner(resources.model, examples, planner_options)

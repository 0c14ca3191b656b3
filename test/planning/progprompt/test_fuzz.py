"""Property-based tests: random and hostile programs never run anything but whitelisted skills.

Every program, however it is built (random unicode, bytes, hostile Python, deep nesting, huge loops,
long lines, or statement mixes that are mostly well formed), must either be rejected with a ProgramError
whose problems name lines of the text, or validate into a program whose interpretation, with any
verdicts for its asserts, emits only skills of the scene's whitelist and ends within a bounded number
of steps. Throughout, nothing may be executed: exec/eval are trapped, compile may only build syntax
trees, and a sentinel file that hostile programs try to create must never appear.
"""

from __future__ import annotations

import ast
import builtins
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from language_model_doubles import ProgramModel
from repo_paths import REPO_ROOT
from world_builders import vocabulary_of

from llm_planner_ros.domain import load_domain_files
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.planning.environment import SkillOutcome
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.progprompt.checks import CHECKERS
from llm_planner_ros.planning.progprompt.errors import ProgramError
from llm_planner_ros.planning.progprompt.examples import load_examples
from llm_planner_ros.planning.progprompt.interpreter import ProgramRun
from llm_planner_ros.planning.progprompt.planner import ProgPromptOptions, ProgPromptPlanner
from llm_planner_ros.planning.progprompt.validator import ProgramLimits, parse_program
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIMITS = ProgramLimits()
# The most calls a valid program can yield: every line a call, each inside max_depth loops of max_repeat.
MAX_CALLS = LIMITS.max_lines * LIMITS.max_repeat**LIMITS.max_depth

_WORLD = load_domain_files().world(
    {
        "robot": {"at": "table", "holding": None},
        "objects": [
            {"id": "coke_1", "label": "coke", "at": "far counter"},
            {"id": "apple_1", "label": "apple", "at": "table"},
        ],
    }
)
VOCABULARY: Vocabulary = vocabulary_of(_WORLD)
WHITELIST: frozenset[Skill] = frozenset(
    skill
    for function in VOCABULARY.functions.values()
    for argument, skill in function.skills.items()
    if argument is None or argument in VOCABULARY.objects or argument in VOCABULARY.locations
)
EXAMPLES = load_examples(REPO_ROOT / "domains/saycan_kitchen/examples/progprompt.yaml")
SENTINEL = Path("/tmp") / f"progprompt_fuzz_sentinel_{random.getrandbits(48):012x}"

HOSTILE_LINES = [
    "import os",
    "from subprocess import run",
    f"open({str(SENTINEL)!r}, 'w').write('pwned')",
    f"__import__('os').system('touch {SENTINEL}')",
    f"exec(\"open({str(SENTINEL)!r}, 'w')\")",
    "eval('1+1')",
    "compile('x', 'f', 'exec')",
    "().__class__.__base__.__subclasses__()",
    "find.__globals__['__builtins__']",
    "getattr(find, '__code__')",
    "globals()['find'] = print",
    "find = print",
    "breakpoint()",
    "lambda: find('coke')",
    "[find('coke') for _ in range(10**9)]",
    "while True: find('coke')",
    "for _ in iter(int, 1): find('coke')",
    "with open('x') as f: pass",
    "try:\n        find('coke')\n    except Exception: pass",
    "def find(x): pass",
    "class X: pass",
    "async def f(): pass",
    "x = yield",
    "raise SystemExit",
    "del find",
    "global find",
    "find('coke') if True else None",
    "find(objects[0])",
    "find(*objects)",
    "find(obj='coke')",
    "find(f'{__import__}')",
    "find('coke'); import os",
    "assert __import__('os') else: find('coke')",
    "assert holding('coke') else: __import__('os')",
    "assert holding('coke') else: import os",
    "'" + "a" * 500 + "'",
    "find(" + "(" * 300 + "'coke'" + ")" * 300 + ")",
    "find(" + "-" * 150 + "1)",
    "assert " + "not " * 40 + "holding('coke')",
    "for _ in range(999999999999):",
]
SCENE_NAMES = [*VOCABULARY.objects, *VOCABULARY.locations, "hand"]
OTHER_NAMES = ["pepsi", "user", "drawers", "__class__", "", " ", "COKE", "far_counter", "coke\x00", "ｃｏｋｅ"]
FUNCTION_NAMES = [
    *VOCABULARY.functions,
    "holding",
    "near",
    "robot_at",
    "at",
    "range",
    "eval",
    "exec",
    "open",
    "__import__",
    "print",
    "getattr",
    "compile",
    "_assert_",
    "os.system",
    "find.__call__",
]


@contextmanager
def nothing_may_run() -> Iterator[list[Any]]:
    """Trap exec and eval, and let compile build syntax trees only (ast.parse calls it with PyCF_ONLY_AST)."""
    original_compile, original_exec, original_eval = builtins.compile, builtins.exec, builtins.eval
    violations: list[Any] = []

    def guarded_compile(source: Any, filename: Any, mode: str, flags: int = 0, *args: Any, **kwargs: Any) -> Any:
        if not flags & ast.PyCF_ONLY_AST:
            violations.append(("compile", source))
            raise AssertionError("compile() to code object called on a generated program")
        return original_compile(source, filename, mode, flags, *args, **kwargs)

    def trapped(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            violations.append((name, args))
            raise AssertionError(f"{name}() called while validating or interpreting a program")

        return call

    builtins.compile = guarded_compile  # type: ignore[assignment]
    builtins.exec, builtins.eval = trapped("exec"), trapped("eval")
    try:
        yield violations
    finally:
        builtins.compile, builtins.exec, builtins.eval = original_compile, original_exec, original_eval


def check_program(text: str, verdicts: random.Random) -> None:
    """The whole property: rejected with line-numbered problems, or run to a bounded end on the whitelist."""
    with nothing_may_run() as violations:
        try:
            program = parse_program(text, VOCABULARY, LIMITS)
        except ProgramError as error:
            lines = max(1, len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")))
            assert error.problems and all(1 <= p.line <= max(lines, LIMITS.max_lines + 1) for p in error.problems)
            assert all(p.message.strip() for p in error.problems)
            assert str(error).startswith("line ")
        else:
            run = ProgramRun(program)
            for _ in range(MAX_CALLS + 1):
                advance = run.advance(lambda _condition: verdicts.random() < 0.5)
                if advance.call is None:
                    break
                assert advance.call.skill in WHITELIST
            else:
                pytest.fail(f"the program yielded more than {MAX_CALLS} calls")
    assert violations == []
    assert not SENTINEL.exists()


def quoted(names: list[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(names).map(repr)


ARGUMENTS = st.one_of(
    quoted(SCENE_NAMES),
    quoted(OTHER_NAMES),
    st.sampled_from(["coke", "far_counter", "__class__", "objects"]),
    st.text(max_size=12).map(repr),
)
VALID_CALLS = st.sampled_from(
    sorted(
        f"{function.name}({'' if argument is None else repr(argument)})"
        for function in VOCABULARY.functions.values()
        for argument in function.skills
        if argument is None or argument in VOCABULARY.objects or argument in VOCABULARY.locations
    )
)
RANDOM_CALLS = st.builds(
    lambda name, args: f"{name}({', '.join(args)})", st.sampled_from(FUNCTION_NAMES), st.lists(ARGUMENTS, max_size=3)
)
CALLS = st.one_of(VALID_CALLS, VALID_CALLS, VALID_CALLS, RANDOM_CALLS)
VALID_CHECKS = st.sampled_from(
    [
        "holding('coke')",
        "near('apple')",
        "'coke' in 'hand'",
        "'apple' not in 'table'",
        "robot_at('table')",
        "at('coke', 'user')",
        "not near('coke')",
    ]
)
CHECKS = st.one_of(
    VALID_CHECKS,
    VALID_CHECKS,
    RANDOM_CALLS,
    st.builds(lambda a, b: f"{a} in {b}", ARGUMENTS, ARGUMENTS),
    st.builds(lambda a, b: f"{a} not in {b}", ARGUMENTS, ARGUMENTS),
    RANDOM_CALLS.map(lambda call: f"not {call}"),
)
REPEATS = st.one_of(
    st.integers(1, 5).map(str),
    st.integers(-2, 8).map(str),
    st.sampled_from(["10**9", "True", "1.5", "x", "'3'", "3, 4", "n"]),
)


@st.composite
def statements(draw: st.DrawFn, depth: int = 1) -> list[str]:
    """Lines of a block at ``depth`` (1 = the function body): mostly well formed, sometimes hostile."""
    indent = "    " * depth
    kinds = ["call"] * 6 + ["inline", "inline", "multi", "plain", "hostile", "comment"]
    kinds += ["loop", "loop"] if depth < 6 else []
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(kinds))
        if kind == "call":
            lines.append(indent + draw(CALLS))
        elif kind == "inline":
            lines.append(f"{indent}assert({draw(CHECKS)}) else: {draw(CALLS)}")
        elif kind == "multi":
            lines.append(f"{indent}assert({draw(CHECKS)})")
            lines.extend(f"{indent}    else: {call}" for call in draw(st.lists(CALLS, min_size=1, max_size=3)))
        elif kind == "plain":
            lines.append(f"{indent}assert {draw(CHECKS)}")
        elif kind == "hostile":
            lines.append(indent + draw(st.sampled_from(HOSTILE_LINES)))
        elif kind == "comment":
            lines.append(f"{indent}# {draw(st.text(max_size=20))}")
        else:
            lines.append(f"{indent}for _ in range({draw(REPEATS)}):")
            lines.extend(draw(statements(depth + 1)))
    return lines


def as_program(lines: list[str]) -> str:
    return "def task():\n" + "\n".join(lines) + "\n"


@FUZZ
@given(st.text(max_size=400), st.randoms(use_true_random=False))
def test_random_unicode_text(text: str, verdicts: random.Random) -> None:
    check_program(text, verdicts)
    check_program(as_program(["    " + text]), verdicts)


@FUZZ
@given(st.binary(max_size=400), st.randoms(use_true_random=False))
def test_random_bytes(data: bytes, verdicts: random.Random) -> None:
    check_program(as_program(["    " + line for line in data.decode("latin-1").split("\n")]), verdicts)
    check_program(data.decode("utf-8", errors="surrogateescape"), verdicts)


@FUZZ
@given(statements(), st.randoms(use_true_random=False))
def test_generated_statement_mixes(lines: list[str], verdicts: random.Random) -> None:
    check_program(as_program(lines), verdicts)


@FUZZ
@given(
    st.lists(st.sampled_from(HOSTILE_LINES), min_size=1, max_size=5), statements(), st.randoms(use_true_random=False)
)
def test_hostile_lines_among_valid_steps_reject_the_program(
    hostile: list[str], lines: list[str], verdicts: random.Random
) -> None:
    program = as_program(["    find('coke')", *("    " + line for line in hostile), *lines])
    check_program(program, verdicts)
    with pytest.raises(ProgramError):
        parse_program(program, VOCABULARY, LIMITS)


@FUZZ
@given(
    st.integers(1, 400),
    st.sampled_from(["(", "[", "not ", "-", "find(", "    for _ in range(2):\n"]),
    st.randoms(use_true_random=False),
)
def test_deep_nesting(depth: int, opener: str, verdicts: random.Random) -> None:
    closer = {"(": ")", "[": "]", "find(": ")"}.get(opener, "")
    nested = opener * depth + "'coke'" + closer * depth
    check_program(as_program(["    find(" + nested + ")"]), verdicts)
    check_program(as_program([f"    assert {nested} else: find('coke')"]), verdicts)
    loops = "".join("    " * (level + 1) + "for _ in range(2):\n" for level in range(min(depth, 120)))
    check_program("def task():\n" + loops + "    " * (min(depth, 120) + 1) + "find('coke')\n", verdicts)


@FUZZ
@given(st.integers(0, 20_000), st.sampled_from(["find('coke')", "'a'", "# c", "x"]), st.randoms(use_true_random=False))
def test_long_lines_and_long_programs(size: int, unit: str, verdicts: random.Random) -> None:
    check_program(as_program(["    " + "find('" + "a" * size + "')"]), verdicts)
    check_program(as_program(["    " + unit] * min(size, 3000)), verdicts)


class RecordingEnvironment(SimulatedEnvironment):
    """The simulated kitchen, remembering every skill it was asked to execute."""

    def __init__(self) -> None:
        super().__init__(_WORLD.copy())
        self.executed: list[Skill] = []

    def execute(self, skill: Skill) -> SkillOutcome:
        self.executed.append(skill)
        return super().execute(skill)


@FUZZ
@given(
    st.one_of(statements().map(lambda lines: "\n" + "\n".join(lines)), st.text(max_size=300)),
    st.sampled_from(CHECKERS),
    st.randoms(use_true_random=False),
)
def test_completions_through_the_planner_dispatch_only_whitelisted_skills(
    completion: str, assert_check: str, answers: random.Random
) -> None:
    env = RecordingEnvironment()
    model = ProgramModel(completion, answer=lambda _prompt: answers.random() < 0.5)
    planner = ProgPromptPlanner(model, EXAMPLES, ProgPromptOptions(assert_check=assert_check))
    with nothing_may_run() as violations:
        result = run_plan(planner, "bring me a coke", env, max_steps=60)
    assert violations == [] and not SENTINEL.exists()
    assert set(env.executed) <= WHITELIST
    # NOTHING_DONE / NOTHING_TO_DO: a program that calls done() before any skill took effect is never a success.
    ended = (
        EndReason.DONE,
        EndReason.NO_CANDIDATE,
        EndReason.MAX_STEPS,
        EndReason.NOTHING_DONE,
        EndReason.NOTHING_TO_DO,
    )
    assert result.reason in ended
    assert result.message
    if result.reason == EndReason.NOTHING_DONE:
        assert result.message.startswith("the method chose done before any skill took effect"), result.message
    if result.reason == EndReason.NO_CANDIDATE:
        assert result.message.startswith(("the generated program was rejected: line ", "the program stopped: line "))


def test_the_mostly_well_formed_generator_also_makes_valid_programs() -> None:
    """Guards the fuzzing itself: a share of generated programs must validate, or the interpreter
    half of the property would never be exercised."""
    accepted = 0

    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(statements())
    def count(lines: list[str]) -> None:
        nonlocal accepted
        try:
            parse_program(as_program(lines), VOCABULARY, LIMITS)
            accepted += 1
        except ProgramError:
            pass

    count()
    assert accepted >= 10


def test_the_trap_catches_execution_and_code_compilation() -> None:
    with nothing_may_run() as violations:
        with pytest.raises(AssertionError):
            exec("x = 1")
        with pytest.raises(AssertionError):
            compile("x = 1", "<fuzz>", "exec")
        ast.parse("x = 1")
    assert [name for name, _ in violations] == ["exec", "compile"]

"""Runs a validated program one skill call at a time, deciding its asserts against the current state.

The interpreter is a walk over ``Program`` statements (never Python execution): ``ProgramRun.advance``
moves to the next skill call, deciding every check it passes on the way with the caller's judge; a
check that fails runs its recovery statements before the program goes on, and loops repeat their
bodies. The caller (the ProgPrompt planner) dispatches each call it gets and asks again.

Work between two calls is bounded: a run decides at most ``max_checks`` checks on the way to one call
(loops of asserts could otherwise ask thousands, each a model call with ``assert_check: llm``, with no
point to cancel in between); the next check halts the program instead.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from llm_planner_ros.domain.conditions import Condition
from llm_planner_ros.planning.progprompt.program import Check, Program, Repeat, SkillCall, Statement

Judge = Callable[[Condition], bool]
# The planner's option that sets ``max_checks``, named in the halt reason so that it says what to change,
# and its default: far above the few asserts a plan makes before a call, far below an assert loop's count.
MAX_CHECKS_OPTION = "max_checks_per_step"
MAX_CHECKS = 50


@dataclass(frozen=True)
class CheckResult:
    """How one assert was decided on the way to a call: it held, or it failed and ran its recovery."""

    check: Check
    held: bool

    def __str__(self) -> str:
        if self.held:
            return f"line {self.check.line}: assert {self.check.condition} held"
        outcome = "running its recovery" if self.check.recovery else "and has no recovery"
        return f"line {self.check.line}: assert {self.check.condition} failed, {outcome}"


@dataclass(frozen=True)
class Advance:
    """What ``ProgramRun.advance`` reached, with the checks decided on the way (in order).

    ``call`` set: dispatch it next. ``call`` None: the program has nothing more to run; ``halted`` is
    None when it ran to its end, else why it stopped (an assert without recovery failed, or the checks on
    the way to one call exceeded the budget).
    """

    call: SkillCall | None
    checks: tuple[CheckResult, ...] = ()
    halted: str | None = None


class ProgramRun:
    """One execution of a program: where it stands. Not restartable; make a new run to start over.

    ``max_checks``: the most checks decided on the way to one call (the planner's max_checks_per_step).
    """

    def __init__(self, program: Program, max_checks: int = MAX_CHECKS) -> None:
        self.program = program
        self.max_checks = max_checks
        self._walk = _statements(program.body)
        self._ended: Advance | None = None

    def advance(self, judge: Judge) -> Advance:
        """The next skill call; every check on the way is decided by ``judge`` (True: the condition holds)."""
        if self._ended is not None:
            return self._ended
        checks: list[CheckResult] = []
        verdict: bool | None = None
        while True:
            try:
                statement = self._walk.send(verdict)
            except StopIteration:
                self._ended = Advance(None, tuple(checks))
                return self._ended
            if isinstance(statement, SkillCall):
                return Advance(statement, tuple(checks))
            assert isinstance(statement, Check)
            if len(checks) == self.max_checks:
                self._walk.close()
                self._ended = Advance(
                    None,
                    tuple(checks),
                    halted=(
                        f"line {statement.line}: more than {self.max_checks} checks without a skill call "
                        f"(option {MAX_CHECKS_OPTION} of config/planners.yaml's progprompt section)"
                    ),
                )
                return self._ended
            verdict = judge(statement.condition)
            checks.append(CheckResult(statement, verdict))
            if not verdict and not statement.recovery:
                self._walk.close()
                self._ended = Advance(None, tuple(checks), halted=str(checks[-1]))
                return self._ended


def _statements(statements: Sequence[Statement]) -> Generator[Statement, bool | None, None]:
    """Yield each call to run and each check to decide, in program order; a check receives its verdict
    through ``send`` and its recovery follows when the verdict is False."""
    for statement in statements:
        if isinstance(statement, Repeat):
            for _ in range(statement.times):
                yield from _statements(statement.body)
        elif isinstance(statement, Check):
            held = yield statement
            if not held:
                yield from _statements(statement.recovery)
        else:
            yield statement

"""Why a generated plan program was not accepted, line by line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A rejected program can have one problem per statement; the reason shown to people keeps the first few.
_SHOWN = 3


@dataclass(frozen=True)
class ProgramProblem:
    """One reason to reject a program: the line of the generated text (1 = the ``def`` line) and what to fix."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class ProgramError(ValueError):
    """A program that is not run at all; ``problems`` lists every reason, in line order."""

    def __init__(self, problems: Sequence[ProgramProblem]) -> None:
        if not problems:
            raise ValueError("a ProgramError needs at least one problem")
        self.problems = tuple(sorted(problems, key=lambda problem: problem.line))
        shown = "; ".join(map(str, self.problems[:_SHOWN]))
        more = len(self.problems) - _SHOWN
        super().__init__(shown + (f" (and {more} more)" if more > 0 else ""))

    @classmethod
    def at(cls, line: int, message: str) -> ProgramError:
        return cls([ProgramProblem(line, message)])

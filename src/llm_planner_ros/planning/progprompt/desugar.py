"""ProgPrompt's ``assert <check> else: <recovery>`` lines, rewritten into syntax that ``ast`` can parse.

The paper's programs (Fig. 3) write a precondition and its recovery as::

    assert('coke' in 'hand') else: pick_up('coke')      # recovery on the same line
    assert(near('coke'))                                # or one recovery step per `else:` line below
        else: find('coke')
        else: pick_up('coke')

which is not Python. Before parsing, every assert that has recovery steps becomes a marker block::

    if not _assert_(<check>):
        <recovery step>
        ...

The validator accepts an ``if`` only in exactly this form (an ``if not`` over one call of MARKER, no
``else``) and reads it back as a check with its recovery; every other ``if`` is rejected. An assert
without ``else`` is left as Python's assert (a check without recovery). The rewrite only moves text
between lines, it never evaluates anything; each output line remembers the line it came from, so
every error names the line of the text the model wrote.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from llm_planner_ros.planning.progprompt.errors import ProgramError

MARKER = "_assert_"
_INDENT = "    "
_ASSERT = re.compile(r"assert\b")
_ELSE = re.compile(r"else\s*:(.*)$")


@dataclass(frozen=True)
class Desugared:
    """Parsable text and, for each of its lines (index 0 = line 1), the line of the original text."""

    text: str
    source_lines: tuple[int, ...]

    def source_line(self, line: int | None) -> int:
        """The original line of output ``line`` (errors past the end point at the last line)."""
        if not self.source_lines:
            return 1
        if line is None or line < 1:
            return self.source_lines[0]
        return self.source_lines[min(line, len(self.source_lines)) - 1]


def desugar(text: str) -> Desugared:
    """Rewrite every ``assert ... else: ...`` of ``text``; ProgramError for an ``else:`` that has no assert."""
    lines = split_lines(text)
    output: list[str] = []
    sources: list[int] = []
    block_indent: str | None = None  # set while `else:` lines may still extend the last assert block
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        recovery = _else_recovery(stripped)
        if recovery is not None:
            if block_indent is None:
                raise ProgramError.at(
                    number, "`else:` must follow an `assert`: write `assert <check> else: <recovery>`"
                )
            if not recovery:
                raise ProgramError.at(
                    number, "`else:` needs its recovery step on the same line, e.g. `else: find('coke')`"
                )
            output.append(block_indent + _INDENT + recovery)
            sources.append(number)
            continue
        if stripped and not stripped.startswith("#"):
            block_indent = None
            rewritten = _assert_block(line, stripped, _next_is_else(lines, number))
            if rewritten is not None:
                block_indent = line[: len(line) - len(line.lstrip())]
                output.extend(rewritten)
                sources.extend([number] * len(rewritten))
                continue
        output.append(line)
        sources.append(number)
    return Desugared("\n".join(output), tuple(sources))


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as the parser counts them: LF, CR LF and a lone CR each end a line."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _assert_block(line: str, stripped: str, else_follows: bool) -> list[str] | None:
    """The marker block of an assert line that has recovery steps; None for any other line."""
    if not _ASSERT.match(stripped):
        return None
    split = _split_else(stripped)
    if split is None:
        return None
    check, recovery = split
    if recovery is None and not else_follows:
        return None
    indent = line[: len(line) - len(line.lstrip())]
    block = [f"{indent}if not {MARKER}({check}):"]
    if recovery:
        block.append(indent + _INDENT + recovery)
    return block


def _split_else(assert_line: str) -> tuple[str, str | None] | None:
    """(check, recovery) of ``assert <check> [else: <recovery>]`` with the comment dropped; None when the
    line does not tokenize (it is then left for the parser to report)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(assert_line).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    start = tokens[0].end[1]  # just after `assert`
    end = next((token.start[1] for token in tokens if token.type == tokenize.COMMENT), len(assert_line))
    depth = 0
    for token, following in zip(tokens, tokens[1:], strict=False):
        if token.start[1] >= end:
            break
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif depth == 0 and token.type == tokenize.NAME and token.string == "else" and following.string == ":":
            return assert_line[start : token.start[1]].strip(), assert_line[following.end[1] : end].strip()
    return assert_line[start:end].strip(), None


def _else_recovery(stripped: str) -> str | None:
    """The recovery text of an ``else: <step>`` line ('' when it has none); None for other lines."""
    match = _ELSE.match(stripped)
    return None if match is None else match.group(1).strip()


def _next_is_else(lines: list[str], number: int) -> bool:
    """Whether the first line after line ``number`` that is neither blank nor a comment is an ``else:`` line."""
    for line in lines[number:]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return _else_recovery(stripped) is not None
    return False

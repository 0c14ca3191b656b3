"""The assert/else rewrite: ProgPrompt's assert syntax becomes parsable marker blocks, lines kept traceable."""

from __future__ import annotations

import ast

import pytest

from llm_planner_ros.planning.progprompt.desugar import MARKER, desugar
from llm_planner_ros.planning.progprompt.errors import ProgramError


def lines_with_sources(text: str) -> list[tuple[int, str]]:
    desugared = desugar(text)
    return list(zip(desugared.source_lines, desugared.text.split("\n"), strict=False))


def test_inline_recovery_becomes_a_marker_block_on_the_same_source_line() -> None:
    pairs = lines_with_sources("def t():\n    assert('coke' in 'hand') else: pick_up('coke')  # grab\n")
    assert pairs[1:3] == [(2, f"    if not {MARKER}(('coke' in 'hand')):"), (2, "        pick_up('coke')")]


def test_else_lines_below_an_assert_become_its_recovery_steps() -> None:
    text = (
        "def t():\n    assert(near('coke'))\n        # get there\n        else: find('coke')\n"
        "    else: pick_up('coke')\n    done()\n"
    )
    pairs = lines_with_sources(text)
    assert pairs[1:6] == [
        (2, f"    if not {MARKER}((near('coke'))):"),
        (3, "        # get there"),
        (4, "        find('coke')"),
        (5, "        pick_up('coke')"),
        (6, "    done()"),
    ]
    ast.parse(desugar(text).text)


def test_assert_without_else_stays_python() -> None:
    text = "def t():\n    assert holding('coke')\n    find('coke')\n"
    assert desugar(text).text == text


def test_else_and_colon_inside_strings_or_brackets_are_not_split() -> None:
    text = "def t():\n    assert('else: x' in 'hand')\n"
    assert desugar(text).text == text


def test_tab_indented_asserts_stay_parsable() -> None:
    ast.parse(desugar("def t():\n\tassert(near('coke')) else: find('coke')\n\tdone()\n").text)


def test_an_else_without_assert_is_rejected_with_its_line() -> None:
    with pytest.raises(ProgramError, match="line 3: `else:` must follow an `assert`"):
        desugar("def t():\n    find('coke')\n    else: find('coke')\n")


def test_an_else_without_a_step_is_rejected() -> None:
    with pytest.raises(ProgramError, match="line 3: `else:` needs its recovery step"):
        desugar("def t():\n    assert(near('coke'))\n    else:\n        find('coke')\n")


def test_source_line_of_an_error_past_the_end_is_the_last_line() -> None:
    desugared = desugar("def t():\n    assert(near('coke')) else: find('coke')")
    assert desugared.source_line(99) == 2
    assert desugared.source_line(None) == 1

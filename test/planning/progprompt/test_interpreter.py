"""The interpreter: calls come out one at a time in program order, failed asserts run their recovery,
loops repeat, and a failed assert without recovery stops the program."""

from __future__ import annotations

from llm_planner_ros.domain.conditions import Condition
from llm_planner_ros.planning.progprompt.interpreter import Advance, ProgramRun
from llm_planner_ros.planning.progprompt.validator import parse_program
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary


def run_all(text: str, vocabulary: Vocabulary, verdicts: dict[str, list[bool]]) -> tuple[list[str], Advance, list[str]]:
    """Every call the program yields, the final Advance, and every check decided, judging each check by
    the next verdict listed for its condition's text."""
    run = ProgramRun(parse_program(text, vocabulary))
    calls: list[str] = []
    decided: list[str] = []

    def judge(condition: Condition) -> bool:
        decided.append(str(condition))
        return verdicts[str(condition)].pop(0)

    while (advance := run.advance(judge)).call is not None:
        calls.append(advance.call.text)
    return calls, advance, decided


def test_calls_come_in_order_and_held_asserts_skip_their_recovery(vocabulary: Vocabulary) -> None:
    text = "def t():\n    find('coke')\n    assert near('coke') else: find('apple')\n    pick_up('coke')\n"
    calls, end, decided = run_all(text, vocabulary, {"near(coke)": [True]})
    assert calls == ["find('coke')", "pick_up('coke')"]
    assert decided == ["near(coke)"]
    assert end == Advance(None, ()) and end.halted is None


def test_a_failed_assert_runs_every_recovery_step_then_the_program_goes_on(vocabulary: Vocabulary) -> None:
    text = (
        "def t():\n    assert('coke' in 'hand')\n        else: find('coke')\n        else: pick_up('coke')\n"
        "    bring_it_to_you()\n"
    )
    calls, end, _ = run_all(text, vocabulary, {"holding(coke)": [False]})
    assert calls == ["find('coke')", "pick_up('coke')", "bring_it_to_you()"]
    assert end.halted is None


def test_checks_decided_on_the_way_are_reported_with_the_next_call(vocabulary: Vocabulary) -> None:
    text = "def t():\n    assert near('coke') else: find('coke')\n    assert holding('coke') else: pick_up('coke')\n"
    run = ProgramRun(parse_program(text, vocabulary))
    first = run.advance(lambda condition: str(condition) == "holding(coke)")
    assert first.call is not None and first.call.text == "find('coke')"
    assert [str(check) for check in first.checks] == ["line 2: assert near(coke) failed, running its recovery"]
    second = run.advance(lambda condition: True)
    assert second.call is None and [str(c) for c in second.checks] == ["line 3: assert holding(coke) held"]


def test_loops_repeat_their_body_and_recheck_asserts_each_time(vocabulary: Vocabulary) -> None:
    text = (
        "def t():\n    for _ in range(3):\n        assert near('apple') else: find('apple')\n        go_to('table')\n"
    )
    calls, _, decided = run_all(text, vocabulary, {"near(apple)": [False, True, False]})
    assert calls == ["find('apple')", "go_to('table')", "go_to('table')", "find('apple')", "go_to('table')"]
    assert decided == ["near(apple)"] * 3


def test_a_failed_assert_without_recovery_halts_for_good(vocabulary: Vocabulary) -> None:
    text = "def t():\n    find('coke')\n    assert holding('coke')\n    bring_it_to_you()\n"
    calls, end, _ = run_all(text, vocabulary, {"holding(coke)": [False]})
    assert calls == ["find('coke')"]
    assert end.halted == "line 3: assert holding(coke) failed, and has no recovery"
    run = ProgramRun(parse_program(text, vocabulary))
    run.advance(lambda _c: False)
    assert run.advance(lambda _c: False).halted is not None
    assert run.advance(lambda _c: True).call is None  # still halted: a run never resumes


def test_the_checks_on_the_way_to_one_call_are_bounded_and_the_budget_starts_again_after_each_call(
    vocabulary: Vocabulary,
) -> None:
    text = (
        "def t():\n    for _ in range(3):\n        assert near('apple')\n    find('coke')\n"
        "    for _ in range(4):\n        assert near('coke')\n    find('apple')\n"
    )
    run = ProgramRun(parse_program(text, vocabulary), max_checks=3)
    decided: list[str] = []

    def judge(condition: Condition) -> bool:
        decided.append(str(condition))
        return True

    first = run.advance(judge)
    assert first.call is not None and first.call.text == "find('coke')" and len(first.checks) == 3
    second = run.advance(judge)
    assert second.call is None and len(second.checks) == 3 and decided == ["near(apple)"] * 3 + ["near(coke)"] * 3
    assert second.halted == (
        "line 6: more than 3 checks without a skill call (option max_checks_per_step of "
        "config/planners.yaml's progprompt section)"
    )
    assert run.advance(judge) is second and len(decided) == 6  # halted for good, nothing more decided

"""The validator: whitelisted programs become statements with resolved skills; anything else is rejected
with the line and what to write instead."""

from __future__ import annotations

import pytest
from repo_paths import REPO_ROOT
from world_builders import MakeWorld, vocabulary_of

from llm_planner_ros.domain import Domain, World
from llm_planner_ros.domain.conditions import At, Holding, Not, RobotAt
from llm_planner_ros.planning.progprompt.errors import ProgramError
from llm_planner_ros.planning.progprompt.examples import check_example_programs, load_examples
from llm_planner_ros.planning.progprompt.program import Check, Near, Repeat, SkillCall
from llm_planner_ros.planning.progprompt.validator import ProgramLimits, parse_program
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary

GOOD = """def bring_me_a_coke():
    # 1: find the coke
    find('coke')
    assert(near('coke')) else: find('coke')
    pick_up(coke)
    # 2: bring it
    assert('coke' in 'hand')
        else: find('coke')
        else: pick_up('Coke')
    bring_it_to_you()
    for _ in range(2):
        go_to(far_counter)
    assert not at('coke', 'table')
    assert robot_at('user') else: bring_it_to_you()
    assert('coke' not in 'user') else: put_down('coke')
"""


def rejection(text: str, vocabulary: Vocabulary, limits: ProgramLimits | None = None) -> str:
    with pytest.raises(ProgramError) as raised:
        parse_program(text, vocabulary, limits)
    return str(raised.value)


def body(*lines: str) -> str:
    return "def task():\n" + "".join(f"    {line}\n" for line in lines)


def test_a_whitelisted_program_becomes_statements_with_resolved_skills(vocabulary: Vocabulary) -> None:
    program = parse_program(GOOD, vocabulary)
    assert program.name == "bring_me_a_coke"
    find, near_check, pick, hand_check, bring, loop, not_at, robot_check, placed_check = program.body
    assert find == SkillCall(3, find.skill, "find('coke')") and find.skill.text == "find a coke"
    assert isinstance(near_check, Check) and near_check.condition == Near("coke") and near_check.line == 4
    assert [call.skill.text for call in near_check.recovery] == ["find a coke"]  # type: ignore[union-attr]
    assert isinstance(pick, SkillCall) and pick.skill.text == "pick up the coke"
    assert isinstance(hand_check, Check) and hand_check.condition == Holding(("coke",))
    recovery = [(s.line, s.skill.text) for s in hand_check.recovery]  # type: ignore[union-attr]
    assert recovery == [(8, "find a coke"), (9, "pick up the coke")]
    assert isinstance(bring, SkillCall) and bring.skill.text == "bring it to you"
    assert isinstance(loop, Repeat) and loop.times == 2
    assert [s.skill.text for s in loop.body] == ["go to the far counter"]  # type: ignore[union-attr]
    assert isinstance(not_at, Check) and not_at.condition == Not(At(("coke",), "table")) and not_at.recovery == ()
    assert isinstance(robot_check, Check) and robot_check.condition == RobotAt("user")
    assert isinstance(placed_check, Check) and placed_check.condition == Not(At(("coke",), "user"))


def test_the_shipped_example_programs_pass_the_validator(kitchen: Domain) -> None:
    examples = load_examples(REPO_ROOT / "domains/saycan_kitchen/examples/progprompt.yaml")
    assert len(examples.programs) == 3 and len(examples.feedback) >= 2
    check_example_programs(examples, kitchen, ProgramLimits())


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("import os", "line 2: imports are not allowed"),
        ("from os import system", "line 2: imports are not allowed"),
        ("os.system('ls')", "line 2: attribute access is not allowed"),
        ("find('coke').x", "line 2: a step must be a skill call, not attribute access"),
        ("find(__import__)", "line 2: names with double underscores are not allowed"),
        ("__import__('os')", "line 2: names with double underscores are not allowed"),
        ("eval('find(1)')", "line 2: eval() is not one of the robot's skills; the skills are: find, pick_up"),
        ("exec('x')", "line 2: exec() is not one of the robot's skills"),
        ("open('/etc/passwd')", "line 2: open() is not one of the robot's skills"),
        ("while True: find('coke')", "line 2: while loops are not allowed: repeat a fixed number of times"),
        ("for _ in range(100): find('coke')", "line 2: range(100) is out of bounds"),
        ("for _ in range(0): find('coke')", "line 2: range(0) is out of bounds"),
        ("for _ in range(10**9): find('coke')", "line 2: loops repeat a fixed number of times"),
        ("for _ in range(True): find('coke')", "line 2: loops repeat a fixed number of times"),
        ("for _ in ['a', 'b']: find('coke')", "line 2: loops repeat a fixed number of times"),
        ("for x.y in range(2): find('coke')", "line 2: the loop variable must be a plain name"),
        ("x = 1", "line 2: assignments are not allowed"),
        ("def helper(): find('coke')", "line 2: definitions are not allowed inside a plan"),
        ("class A: pass", "line 2: definitions are not allowed inside a plan"),
        ("lambda: find('coke')", "line 2: a step must be a skill call, not a lambda"),
        ("[find(x) for x in 'ab']", "line 2: a step must be a skill call, not a comprehension"),
        ("find('coke')[0]", "line 2: a step must be a skill call, not a subscript"),
        ("find(objects[0])", "line 2: a subscript is not allowed as an argument"),
        ("find(f'{1}')", "line 2: an f-string is not allowed as an argument"),
        ("find(*['coke'])", "line 2: unpacking is not allowed as an argument"),
        ("find(obj='coke')", "line 2: keyword arguments are not allowed"),
        ("find('coke', 'apple')", "line 2: find takes <obj>, got 2 argument(s)"),
        ("'just a note'", "line 2: a string on its own is not a step: write notes as # comments"),
        ("if True: find('coke')", "line 2: if statements are not allowed: check the state with `assert"),
        ("assert holding('coke'), 'no coke'", "line 2: an assert takes no message"),
        ("assert else: find('coke')", "line 2: `assert` needs exactly one check"),
        ("assert open('x') else: find('coke')", "line 2: open() is not a check; checks are holding(obj)"),
        ("assert not not holding('coke')", "line 2: a check takes at most one `not`"),
        ("assert 1 < 2", "line 2: the only comparison in a check is one `in`"),
        ("holding('coke')", "line 2: holding() is a check, not a skill"),
        ("find('pepsi')", "line 2: 'pepsi' is not an object of this scene; the scene has: apple, coke, sponge"),
        ("find('__class__')", "line 2: '__class__' is not an object of this scene"),
        ("go_to('coke')", "line 2: 'coke' is an object, but a location is needed here"),
        ("find('table')", "line 2: 'table' is a location, but an object is needed here"),
        ("go_to('user')", "line 2: go_to('user') is not a skill of this robot; go_to takes one of: 'close counter'"),
        ("done(1)", "line 2: done takes no arguments, got 1 argument(s)"),
        ("return", "line 2: return is not allowed"),
        ("pass", "line 2: `pass` is not allowed"),
        ("with open('x'): find('coke')", "line 2: `with` is not allowed"),
        ("try: find('coke')\n    except: pass", "line 2: `try` is not allowed"),
        ("global x", "line 2: `global` is not allowed"),
        ("find('coke'", "line 2: not valid program syntax: '(' was never closed"),
    ],
)
def test_hostile_or_unsupported_statements_are_rejected_with_their_line(
    vocabulary: Vocabulary, line: str, expected: str
) -> None:
    assert expected in rejection(body(line), vocabulary)


def test_every_problem_is_reported_in_line_order(vocabulary: Vocabulary) -> None:
    with pytest.raises(ProgramError) as raised:
        parse_program(body("find('coke')", "import os", "x = 2", "pick_up('coke')", "eval('1')"), vocabulary)
    assert [problem.line for problem in raised.value.problems] == [3, 4, 6]
    assert "(and" not in str(raised.value)


def test_the_program_must_be_one_function_without_parameters(vocabulary: Vocabulary) -> None:
    assert "line 1: a program is one `def <task>():` function" in rejection("find('coke')\n", vocabulary)
    assert "line 3: a program is one function" in rejection("def t():\n    find('coke')\nfind('coke')\n", vocabulary)
    assert "line 1: the plan function takes no parameters" in rejection("def t(x):\n    find('coke')\n", vocabulary)
    assert "line 1: names with double underscores" in rejection("def __init__():\n    find('coke')\n", vocabulary)
    assert "line 1: the program is empty" in rejection("# nothing\n", vocabulary)
    assert "not valid program syntax: expected an indented block" in rejection("def t():\n", vocabulary)


def test_limits_bound_repeats_nesting_line_length_and_size(vocabulary: Vocabulary) -> None:
    limits = ProgramLimits(max_repeat=3, max_depth=2, max_line_length=40, max_lines=6)
    assert "range(4) is out of bounds" in rejection(body("for _ in range(4): find('coke')"), vocabulary, limits)
    nested = body(
        "for _ in range(2):", "    for _ in range(2):", "        for _ in range(2):", "            find('coke')"
    )
    assert "line 4: loops and recovery blocks nest deeper than 2 levels" in rejection(nested, vocabulary, limits)
    deep_recovery = body(
        "for _ in range(2):", "    for _ in range(2):", "        assert near('coke') else: find('coke')"
    )
    assert "line 4: loops and recovery blocks nest deeper" in rejection(
        deep_recovery, vocabulary, ProgramLimits(max_depth=2)
    )
    long_line = body("find(" + "'coke'," * 5 + ")")
    assert "line 2: the line has 45 characters; the limit is 40" in rejection(long_line, vocabulary, limits)
    too_many = body(*["find('coke')"] * 6)
    assert "line 7: the program has 8 lines; the limit is 6" in rejection(too_many, vocabulary, limits)


@pytest.mark.parametrize("character", ["\x00", "\u202e", "\u200b", "\x1b", "\u2028", "\ud800"])
def test_invisible_and_control_characters_are_rejected(vocabulary: Vocabulary, character: str) -> None:
    assert f"line 2: invisible or control character U+{ord(character):04X}" in rejection(
        body(f"find('co{character}ke')"), vocabulary
    )


def test_unicode_lookalike_names_stay_unknown(vocabulary: Vocabulary) -> None:
    assert "is not an object of this scene" in rejection(body("find('ｃｏｋｅ')"), vocabulary)


def test_drawer_skills_exist_only_in_drawer_scenes(make_world: MakeWorld) -> None:
    without: World = make_world("table", coke_1="table")
    with_drawer: World = make_world("table", drawer=False, coke_1="table")
    program = body("go_to('drawers')", "open_drawer()", "put_in_drawer('coke')", "assert at('coke', 'drawer')")
    assert "open_drawer() is not one of the robot's skills" in rejection(program, vocabulary_of(without))
    calls = parse_program(program, vocabulary_of(with_drawer)).body
    texts = [c.skill.text for c in calls[:3]]  # type: ignore[union-attr]
    assert texts == ["go to the drawers", "open the drawer", "put the coke in the drawer"]
    assert calls[3].condition == At(("coke",), "drawer")  # type: ignore[union-attr]


def test_limits_must_be_positive_whole_numbers() -> None:
    with pytest.raises(ValueError, match="max_repeat must be a whole number of at least 1"):
        ProgramLimits(max_repeat=0)

"""Accept or reject a generated plan program, before anything of it runs.

``parse_program`` checks the raw text (size, line length, invisible characters), rewrites ProgPrompt's
``assert ... else: ...`` (progprompt.desugar), builds a syntax tree with ``ast.parse`` (a tree only:
the text is never compiled to code, evaluated or executed) and walks that tree against a whitelist.
Accepted, and nothing else:

- a call of a skill function of the vocabulary, each argument an object or location of the scene,
  quoted (``find('coke')``) or as a bare name (``go_to(far_counter)``);
- ``assert <check> else: <recovery>`` (or ``assert <check>``), where a check is one of ``holding(obj)``,
  ``near(obj)``, ``robot_at(location)``, ``at(obj, location)``, ``'obj' in 'hand'``, ``'obj' in
  'location'``, optionally under one ``not``;
- ``for _ in range(N)`` with a literal N between 1 and ``ProgramLimits.max_repeat``;
- comments.

Everything else (imports, attribute access, subscripts, other names, strings that are not scene names,
other loops, definitions, lambdas, comprehensions, assignments, double-underscore names, too deep
nesting, too long lines or programs) is rejected with a ``ProgramError`` that names each line and says
what to write instead.
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llm_planner_ros.domain.conditions import At, Condition, Holding, Not, RobotAt
from llm_planner_ros.planning.progprompt.desugar import MARKER, Desugared, desugar, split_lines
from llm_planner_ros.planning.progprompt.errors import ProgramError, ProgramProblem
from llm_planner_ros.planning.progprompt.program import Check, Near, Program, Repeat, SkillCall, Statement
from llm_planner_ros.planning.progprompt.vocabulary import LOCATION, OBJECT, Vocabulary

# Words that stand for the gripper in ProgPrompt's `'coke' in 'hand'` checks.
HAND_WORDS = ("hand", "hands", "gripper")
# Unicode categories no program needs and that can hide text: controls (tab excepted), format characters
# (bidirectional overrides, zero-width joiners), surrogates, private-use and unassigned code points,
# and line or paragraph separators the parser would not count as lines.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

_PLAN_FORM = "a plan has only skill calls, `assert <check> else: <recovery>`, comments and `for _ in range(N)`"
_CHECK_FORMS = "holding(obj), near(obj), robot_at(location), at(obj, location), 'obj' in 'hand'"


@dataclass(frozen=True)
class ProgramLimits:
    """Bounds on a program's size and shape.

    ``max_repeat``: largest N of ``for _ in range(N)``; ``max_depth``: deepest nesting of loop bodies
    and recovery blocks (a statement of the function body is at depth 0); ``max_line_length`` and
    ``max_lines``: of the text, ``def`` line included.
    """

    max_repeat: int = 5
    max_depth: int = 3
    max_line_length: int = 160
    max_lines: int = 80

    def __post_init__(self) -> None:
        for name in ("max_repeat", "max_depth", "max_line_length", "max_lines"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"program limit {name} must be a whole number of at least 1, got {value!r}")


@dataclass(frozen=True)
class _Predicate:
    """A check the program may assert: the kinds of its arguments and the condition they make."""

    kinds: tuple[str, ...]
    make: Callable[..., Condition]


PREDICATES: dict[str, _Predicate] = {
    "holding": _Predicate((OBJECT,), lambda label: Holding((label,))),
    "near": _Predicate((OBJECT,), Near),
    "robot_at": _Predicate((LOCATION,), RobotAt),
    "at": _Predicate((OBJECT, LOCATION), lambda label, place: At((label,), place)),
}

_STATEMENT_ADVICE: dict[type[ast.stmt], str] = {
    ast.Import: "imports are not allowed: the skills are already imported",
    ast.ImportFrom: "imports are not allowed: the skills are already imported",
    ast.FunctionDef: "definitions are not allowed inside a plan: write its steps directly",
    ast.AsyncFunctionDef: "definitions are not allowed inside a plan: write its steps directly",
    ast.ClassDef: "definitions are not allowed inside a plan: write its steps directly",
    ast.While: "while loops are not allowed: repeat a fixed number of times with `for _ in range(N)`",
    ast.If: "if statements are not allowed: check the state with `assert <check> else: <recovery>`",
    ast.Assign: "assignments are not allowed: pass names directly, e.g. find('coke')",
    ast.AugAssign: "assignments are not allowed: pass names directly, e.g. find('coke')",
    ast.AnnAssign: "assignments are not allowed: pass names directly, e.g. find('coke')",
    ast.Return: "return is not allowed: the plan ends after its last step",
}

_EXPRESSION_KINDS: dict[type[ast.expr], str] = {
    ast.Attribute: "attribute access",
    ast.Subscript: "a subscript",
    ast.Lambda: "a lambda",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
    ast.Call: "a nested call",
    ast.JoinedStr: "an f-string",
    ast.Starred: "unpacking",
    ast.NamedExpr: "an assignment expression",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.BinOp: "arithmetic",
    ast.UnaryOp: "an operator",
    ast.BoolOp: "and/or",
    ast.Compare: "a comparison",
    ast.IfExp: "a conditional expression",
    ast.List: "a list",
    ast.Tuple: "a tuple",
    ast.Dict: "a dict",
    ast.Set: "a set",
}


def parse_program(text: str, vocabulary: Vocabulary, limits: ProgramLimits | None = None) -> Program:
    """The validated program of ``text``, one ``def <task>():`` function; ProgramError names each rejected line."""
    limits = limits or ProgramLimits()
    _check_text(text, limits)
    desugared = desugar(text)
    try:
        # A syntax tree only: nothing of the text is compiled to code or run.
        tree = ast.parse(desugared.text, mode="exec")
    except SyntaxError as error:
        raise ProgramError.at(desugared.source_line(error.lineno), f"not valid program syntax: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise ProgramError.at(1, f"the program cannot be parsed ({type(error).__name__}): {str(error)[:120]}") from None
    return _Validator(vocabulary, limits, desugared, text).program(tree)


def parse_valid_prefix(
    text: str, vocabulary: Vocabulary, limits: ProgramLimits | None = None
) -> tuple[Program, ProgramProblem | None]:
    """The whole program of ``text`` and None, or else the longest program made of its first lines that
    is accepted, with the first problem of the whole text (where and why the program was cut).

    For a program cut short by the token budget or with one bad line, the steps before that line can
    still run. ProgramError (the whole text's) when not even one statement before the problem is accepted.
    """
    try:
        return parse_program(text, vocabulary, limits), None
    except ProgramError as error:
        whole = error
    lines = split_lines(text)
    keep = whole.problems[0].line - 1
    while keep >= 2:  # the def line and at least one line of its body
        try:
            return parse_program("\n".join(lines[:keep]) + "\n", vocabulary, limits), whole.problems[0]
        except ProgramError as error:
            keep = min(keep - 1, error.problems[0].line - 1)
    raise whole


def _check_text(text: str, limits: ProgramLimits) -> None:
    """Reject text too large to parse safely, or with characters that could hide what it says."""
    lines = split_lines(text)
    if len(lines) > limits.max_lines:
        raise ProgramError.at(
            limits.max_lines + 1, f"the program has {len(lines)} lines; the limit is {limits.max_lines}"
        )
    problems = []
    for number, line in enumerate(lines, start=1):
        if len(line) > limits.max_line_length:
            problems.append(
                ProgramProblem(
                    number,
                    f"the line has {len(line)} characters; the limit is {limits.max_line_length}: split the step",
                )
            )
        hidden = next((c for c in line if c != "\t" and unicodedata.category(c) in _HIDDEN_CATEGORIES), None)
        if hidden is not None:
            problems.append(
                ProgramProblem(number, f"invisible or control character U+{ord(hidden):04X} is not allowed")
            )
    if problems:
        raise ProgramError(problems)


class _Validator:
    """One walk over a parsed program: collects every problem, builds the statements when there is none."""

    def __init__(self, vocabulary: Vocabulary, limits: ProgramLimits, desugared: Desugared, text: str) -> None:
        self.vocabulary = vocabulary
        self.limits = limits
        self.desugared = desugared
        self.text = text
        self.problems: list[ProgramProblem] = []

    def program(self, tree: ast.Module) -> Program:
        function = self._function(tree)
        body = self._block(function.body, depth=0) if function is not None else ()
        if self.problems:
            raise ProgramError(self.problems)
        assert function is not None
        return Program(function.name, body, self.text)

    def _function(self, tree: ast.Module) -> ast.FunctionDef | None:
        statements = tree.body
        if not statements:
            return self._reject(1, "the program is empty: write `def <task>():` and its steps")
        first = statements[0]
        if not isinstance(first, ast.FunctionDef):
            return self._reject(
                self._line(first), "a program is one `def <task>():` function with the plan's steps in it"
            )
        if len(statements) > 1:
            return self._reject(
                self._line(statements[1]), "a program is one function: nothing may follow it unindented"
            )
        arguments = first.args
        if (
            arguments.posonlyargs
            or arguments.args
            or arguments.vararg
            or arguments.kwonlyargs
            or arguments.kwarg
            or first.decorator_list
            or first.returns is not None
        ):
            return self._reject(self._line(first), "the plan function takes no parameters, decorators or annotations")
        if _is_dunder(first.name):
            return self._reject(self._line(first), "names with double underscores are not allowed")
        return first

    def _block(self, nodes: Sequence[ast.stmt], depth: int) -> tuple[Statement, ...]:
        statements = (self._statement(node, depth) for node in nodes)
        return tuple(statement for statement in statements if statement is not None)

    def _statement(self, node: ast.stmt, depth: int) -> Statement | None:
        line = self._line(node)
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Call):
                return self._skill_call(node.value, line)
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return self._reject(line, "a string on its own is not a step: write notes as # comments")
            return self._reject(line, f"a step must be a skill call, not {_kind(node.value)}; {_PLAN_FORM}")
        if isinstance(node, ast.If) and (marked := _marked_check(node)) is not None:
            if len(marked.args) != 1 or marked.keywords:
                return self._reject(line, f"`assert` needs exactly one check before `else:`, one of {_CHECK_FORMS}")
            return self._check(marked.args[0], node.body, line, depth)
        if isinstance(node, ast.Assert):
            if node.msg is not None:
                return self._reject(line, "an assert takes no message: write `assert <check> else: <recovery>`")
            return self._check(node.test, (), line, depth)
        if isinstance(node, ast.For):
            return self._repeat(node, line, depth)
        advice = _STATEMENT_ADVICE.get(type(node), f"`{type(node).__name__.lower()}` is not allowed; {_PLAN_FORM}")
        return self._reject(line, advice)

    def _check(self, test: ast.expr, recovery_nodes: Sequence[ast.stmt], line: int, depth: int) -> Check | None:
        if not self.vocabulary.checks:
            return self._reject(line, "this scene's state cannot be checked: write the plan as skill calls only")
        condition = self._condition(test, line)
        if recovery_nodes and depth + 1 > self.limits.max_depth:
            return self._too_deep(line)
        recovery = self._block(recovery_nodes, depth + 1)
        return None if condition is None else Check(line, condition, recovery)

    def _repeat(self, node: ast.For, line: int, depth: int) -> Repeat | None:
        bound = self.limits.max_repeat
        form = f"loops repeat a fixed number of times: `for _ in range(N)` with N a whole number from 1 to {bound}"
        if not isinstance(node.target, ast.Name) or _is_dunder(node.target.id):
            return self._reject(line, f"the loop variable must be a plain name; {form}")
        if node.orelse:
            return self._reject(line, f"`for ... else` is not allowed; {form}")
        call = node.iter
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "range"
            and len(call.args) == 1
            and not call.keywords
            and isinstance(call.args[0], ast.Constant)
            and type(call.args[0].value) is int
        ):
            return self._reject(line, form)
        times = call.args[0].value
        if not 1 <= times <= bound:
            return self._reject(line, f"range({times}) is out of bounds; {form}")
        if depth + 1 > self.limits.max_depth:
            return self._too_deep(line)
        body = self._block(node.body, depth + 1)
        return Repeat(line, times, body)

    def _skill_call(self, call: ast.Call, line: int) -> SkillCall | None:
        name = self._callee(call, line)
        if name is None:
            return None
        function = self.vocabulary.functions.get(name)
        if function is None:
            if name in PREDICATES:
                return self._reject(
                    line, f"{name}() is a check, not a skill: use it as `assert {name}(...) else: <recovery>`"
                )
            return self._reject(
                line,
                f"{name}() is not one of the robot's skills; the skills are: {', '.join(self.vocabulary.functions)}",
            )
        kinds = () if function.parameter is None else (function.parameter,)
        arguments = self._arguments(call, name, kinds, line)
        if arguments is None:
            return None
        argument = arguments[0] if arguments else None
        skill = function.skills.get(argument)
        if skill is None:
            accepted = ", ".join(repr(a) for a in function.skills if a is not None)
            return self._reject(
                line, f"{name}({argument!r}) is not a skill of this robot; {name} takes one of: {accepted}"
            )
        return SkillCall(line, skill, f"{name}({'' if argument is None else repr(argument)})")

    def _condition(self, node: ast.expr, line: int) -> Condition | None:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            if isinstance(node.operand, ast.UnaryOp):
                return self._reject(line, f"a check takes at most one `not`; checks are {_CHECK_FORMS}")
            condition = self._positive_condition(node.operand, line)
            return None if condition is None else Not(condition)
        return self._positive_condition(node, line)

    def _positive_condition(self, node: ast.expr, line: int) -> Condition | None:
        if isinstance(node, ast.Compare):
            return self._membership(node, line)
        if not isinstance(node, ast.Call):
            return self._reject(line, f"{_kind(node)} is not a check; checks are {_CHECK_FORMS}")
        name = self._callee(node, line)
        if name is None:
            return None
        predicate = PREDICATES.get(name)
        if predicate is None:
            return self._reject(line, f"{name}() is not a check; checks are {_CHECK_FORMS}")
        arguments = self._arguments(node, name, predicate.kinds, line)
        return None if arguments is None else predicate.make(*arguments)

    def _membership(self, node: ast.Compare, line: int) -> Condition | None:
        """``'coke' in 'hand'`` (the gripper holds a coke) or ``'coke' in 'table'`` (a coke lies there)."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.In, ast.NotIn)):
            return self._reject(
                line, "the only comparison in a check is one `in`: 'coke' in 'hand' or 'coke' in 'table'"
            )
        label = self._name_argument(node.left, OBJECT, line)
        container = node.comparators[0]
        written = _written_name(container)
        if written is not None and _normal(written) in HAND_WORDS:
            condition: Condition | None = None if label is None else Holding((label,))
        else:
            place = self._name_argument(container, LOCATION, line)
            condition = None if label is None or place is None else At((label,), place)
        if condition is None or isinstance(node.ops[0], ast.In):
            return condition
        return Not(condition)

    def _callee(self, call: ast.Call, line: int) -> str | None:
        if not isinstance(call.func, ast.Name):
            return self._reject(
                line, f"{_kind(call.func)} is not allowed: call the imported skills by name, e.g. find('coke')"
            )
        if _is_dunder(call.func.id):
            return self._reject(line, "names with double underscores are not allowed")
        return call.func.id

    def _arguments(self, call: ast.Call, name: str, kinds: tuple[str, ...], line: int) -> list[str] | None:
        if call.keywords:
            return self._reject(
                line, "keyword arguments are not allowed: give the names in order, e.g. at('coke', 'table')"
            )
        if len(call.args) != len(kinds):
            expected = ", ".join(f"<{kind}>" for kind in kinds) or "no arguments"
            return self._reject(line, f"{name} takes {expected}, got {len(call.args)} argument(s)")
        values = [self._name_argument(node, kind, line) for node, kind in zip(call.args, kinds, strict=False)]
        return None if any(value is None for value in values) else [str(value) for value in values]

    def _name_argument(self, node: ast.expr, kind: str, line: int) -> str | None:
        """The scene name an argument gives (normalized), or None after recording why it is not one."""
        if isinstance(node, ast.Name) and _is_dunder(node.id):
            return self._reject(line, "names with double underscores are not allowed")
        written = _written_name(node)
        if written is None:
            return self._reject(
                line,
                f"{_kind(node)} is not allowed as an argument: give {_KIND_WORDS[kind]} name in quotes, e.g. 'coke'",
            )
        name = _normal(written)
        known = self.vocabulary.names(kind)
        if name in known:
            return name
        other = LOCATION if kind == OBJECT else OBJECT
        if name in self.vocabulary.names(other):
            return self._reject(
                line,
                f"{written!r} is {_KIND_WORDS[other]}, but {_KIND_WORDS[kind]} is needed here: "
                f"one of {', '.join(known)}",
            )
        return self._reject(
            line,
            f"{written[:40]!r} is not {_KIND_WORDS[kind]} of this scene; the scene has: {', '.join(known) or 'none'}",
        )

    def _too_deep(self, line: int) -> None:
        self._reject(
            line, f"loops and recovery blocks nest deeper than {self.limits.max_depth} levels: flatten the plan"
        )

    def _reject(self, line: int, message: str) -> None:
        self.problems.append(ProgramProblem(line, message))

    def _line(self, node: ast.stmt) -> int:
        return self.desugared.source_line(node.lineno)


_KIND_WORDS = {OBJECT: "an object", LOCATION: "a location"}


def _marked_check(node: ast.If) -> ast.Call | None:
    """The ``_assert_(...)`` call of desugar's rewrite of an assert (``if not _assert_(...):`` without
    ``else``); None for any other ``if``."""
    test = node.test
    if (
        not node.orelse
        and isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Call)
        and isinstance(test.operand.func, ast.Name)
        and test.operand.func.id == MARKER
    ):
        return test.operand
    return None


def _written_name(node: ast.expr) -> str | None:
    """The text of a quoted string or a bare name; None for any other expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return node.id
    return None


def _normal(written: str) -> str:
    """A written name as the scene spells names: 'Far_Counter' -> 'far counter'."""
    return " ".join(written.replace("_", " ").lower().split())


def _is_dunder(name: str) -> bool:
    return name.startswith("__") or name.endswith("__")


def _kind(node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return f"the literal {node.value!r:.30}"
    if isinstance(node, ast.Name):
        return f"the name {node.id!r:.40}"
    return _EXPRESSION_KINDS.get(type(node), f"a {type(node).__name__} expression")

"""Validation of YAML-shaped data with errors that name the file, the episode and the field.

Loaders walk a parsed YAML tree with a ``Checker``; every problem is collected (not just the first)
so a person fixing an episode file sees them all at once, then ``Checker.raise_if_any`` raises one
``ValidationError`` listing them. Given the document's text, each problem also names its line: the line
of the field, or of the nearest enclosing one when the field is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.domain.hidden_text import hidden_text, visible
from llm_planner_ros.yaml_text import DuplicateKeyError, load_yaml


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a document: where (episode, dotted field path) and what."""

    field: str
    message: str
    episode: str | None = None
    line: int | None = None
    # Where the episode's entry is in the document (``episodes[3]``): ``field`` is relative to it.
    entry: str = ""

    def __str__(self) -> str:
        where = f"field {visible(self.field) or '<top level>'}"
        if self.episode is not None:
            where = f"episode {self.episode}, {where}"
        if self.line is not None:
            where = f"line {self.line}, {where}"
        return f"{where}: {self.message}"


class InputError(Exception):
    """Something a user gave (a file, an id, an option) that cannot be used. Its message names what and
    the fix; command-line programs print it without a traceback."""


class ValidationError(InputError, ValueError):
    """A document (a file, or a block given at run time) that does not match its format.

    ``source`` names the document (a file path); ``problems`` lists everything wrong with it.
    """

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        count = f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}"
        lines = "\n".join(f"  {problem}" for problem in self.problems)
        super().__init__(f"{source}: {count}\n{lines}")


def join(field: str, key: str | int) -> str:
    """Dotted path of a child field: ``join("initial", "robot") == "initial.robot"``, ``[i]`` for items."""
    if isinstance(key, int):
        return f"{field}[{key}]"
    return f"{field}.{key}" if field else key


def plural(noun: str) -> str:
    """``family`` -> ``families``, ``label`` -> ``labels``, ``label or category`` -> ``labels or
    categories`` (the nouns problems name)."""
    if " or " in noun:
        return " or ".join(plural(part) for part in noun.split(" or "))
    return f"{noun[:-1]}ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else f"{noun}s"


def quoted_list(names: Iterable[str]) -> str:
    return ", ".join(repr(name) for name in names)


class Checker:
    """Type and key checks that record a ``Problem`` and return None instead of raising.

    ``episode`` tags every problem recorded through this checker; ``for_episode`` makes a checker for
    one episode that shares the problem list.
    """

    def __init__(self, problems: list[Problem] | None = None, episode: str | None = None, entry: str = "") -> None:
        self.problems: list[Problem] = [] if problems is None else problems
        self.episode = episode
        self.entry = entry

    def for_episode(self, episode: str, entry: str = "") -> Checker:
        """A checker whose problems name ``episode``, with fields relative to its ``entry`` in the document."""
        return Checker(self.problems, episode, entry)

    def add(self, field: str, message: str) -> None:
        self.problems.append(Problem(field, message, self.episode, entry=self.entry))

    def reject(self, value: Any, field: str, message: str) -> None:
        """Record a problem with ``value``, unless it is MISSING (its key's absence is already reported)."""
        if value is not MISSING:
            self.add(field, message)

    def raise_if_any(
        self, source: str, error: type[ValidationError] = ValidationError, text: str | None = None
    ) -> None:
        """Raise ``error`` listing every problem; with the document's YAML ``text``, each names its line."""
        if self.problems:
            raise error(source, with_lines(self.problems, text) if text is not None else self.problems)

    def plain_texts(self, value: Any, field: str = "") -> None:
        """Record every string of ``value`` (a parsed document: its keys and its values) that can show other
        than it says: a control or format character, a word that mixes alphabets (``hidden_text``). A
        domain's names, synonyms and skill texts are what the planner reads and the robot acts on; they get
        the rule an instruction gets."""
        if isinstance(value, str):
            found = hidden_text(value)
            if found is not None:
                self.add(field, found)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                self.plain_texts(key, join(field, str(key)))
                self.plain_texts(item, join(field, str(key)))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.plain_texts(item, join(field, index))

    def mapping(
        self, value: Any, field: str, required: Sequence[str] = (), optional: Sequence[str] = ()
    ) -> Fields | None:
        """``value`` as ``Fields`` if it is a mapping; records unknown keys and missing required keys."""
        if not isinstance(value, Mapping):
            # The whole document is not shown: its first line may be another file's (a link to one).
            shown = _shown(value) if field else f"a {type(value).__name__}"
            self.reject(value, field, f"must be a mapping with keys {quoted_list([*required, *optional])}, got {shown}")
            return None
        allowed = [*required, *optional]
        for key in value:
            if key not in allowed:
                self.add(join(field, str(key)), f"unknown key; allowed keys here: {quoted_list(allowed)}")
        for key in required:
            if key not in value:
                self.add(join(field, key), "missing (required)")
        return Fields(value)

    def named_entries(self, value: Any, field: str, what: str) -> Mapping[str, Any] | None:
        """A non-empty mapping from names to entries, e.g. location name -> position."""
        if not isinstance(value, Mapping) or not value:
            self.reject(
                value, field, f"must be a non-empty mapping of {what} names to their entries, got {_shown(value)}"
            )
            return None
        return {str(name): entry for name, entry in value.items()}

    def string(self, value: Any, field: str) -> str | None:
        """A non-empty string."""
        if not isinstance(value, str) or not value.strip():
            self.reject(value, field, f"must be a non-empty string, got {_shown(value)}")
            return None
        return value

    def identifier(self, value: Any, field: str) -> str | None:
        """A non-empty string or an integer (YAML reads ``id: 12`` as a number), as a string."""
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return self.string(value, field)

    def one_of(self, value: Any, field: str, allowed: Sequence[str], what: str) -> str | None:
        """A string that is one of ``allowed`` (``what`` names the kind: "label", "location")."""
        text = self.string(value, field)
        if text is None:
            return None
        if text not in allowed:
            self.add(field, f"unknown {what} {text!r}; known {plural(what)}: {quoted_list(allowed)}")
            return None
        return text

    def one_or_more_of(self, value: Any, field: str, allowed: Sequence[str], what: str) -> tuple[str, ...] | None:
        """A name from ``allowed`` or a non-empty list of them (YAML lets authors write either)."""
        items = value if isinstance(value, list) else [value]
        if not items:
            self.add(field, f"must name at least one {what}")
            return None
        names = [
            self.one_of(item, join(field, i) if isinstance(value, list) else field, allowed, what)
            for i, item in enumerate(items)
        ]
        if any(name is None for name in names):
            return None
        return tuple(name for name in names if name is not None)

    def positive_int(self, value: Any, field: str) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.reject(value, field, f"must be a positive integer, got {_shown(value)}")
            return None
        return value

    def boolean(self, value: Any, field: str) -> bool | None:
        if not isinstance(value, bool):
            self.reject(value, field, f"must be true or false, got {_shown(value)}")
            return None
        return value

    def number(self, value: Any, field: str) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.reject(value, field, f"must be a number, got {_shown(value)}")
            return None
        return float(value)

    def probability(self, value: Any, field: str) -> float | None:
        number = self.number(value, field)
        if number is not None and not 0.0 <= number <= 1.0:
            self.add(field, f"must be in [0, 1], got {number}")
            return None
        return number

    def list_of(self, value: Any, field: str, allow_empty: bool = False) -> list[Any] | None:
        if not isinstance(value, list) or (not value and not allow_empty):
            need = "a list" if allow_empty else "a non-empty list"
            self.reject(value, field, f"must be {need}, got {_shown(value)}")
            return None
        return value


# Every node parses its domain's files at start: a domain of 1,000 skills is 19 kB of YAML, so a file
# 200 times that is no domain a robot plans in, and parsing one would hold each node's start for minutes.
MAX_YAML_BYTES = 4 * 1024 * 1024


def read_yaml(
    path: str | Path, error: type[ValidationError], fix: str, locate: Callable[[str | Path], Path] = Path
) -> tuple[str, Any]:
    """The text of the YAML file ``locate(path)`` and its document. ``error``, naming ``path``, with one
    problem, never a traceback: when the file cannot be found or read (``fix`` says what to give instead),
    is no regular file (a device or a pipe would never end), is larger than ``MAX_YAML_BYTES``, is not
    UTF-8 text (a binary file), or is not valid YAML (the problem has the line where the broken part
    begins)."""
    source = str(path)
    try:
        located = locate(path)
        if located.exists() and not located.is_file():
            raise error(source, [Problem("", f"is no regular file (a folder, device or pipe): {fix}")])
        with located.open("rb") as stream:
            data = stream.read(MAX_YAML_BYTES + 1)
        if len(data) > MAX_YAML_BYTES:
            raise error(
                source,
                [
                    Problem(
                        "",
                        f"is larger than {MAX_YAML_BYTES // (1024 * 1024)} MB, the most a domain or episode "
                        "file may be (every node parses it at start; a domain of 1,000 skills is 19 kB): split "
                        "its episodes over several files, or give the skills as families with templates",
                    )
                ],
            )
        text = data.decode("utf-8")
        return text, load_yaml(text, source)
    except DuplicateKeyError as cause:
        line = cause.problem_mark.line + 1 if cause.problem_mark is not None else None
        raise error(source, [Problem("", str(cause.problem), line=line)]) from cause
    except yaml.YAMLError as cause:
        raise error(source, [_yaml_problem(cause)]) from cause
    except UnicodeDecodeError as cause:
        raise error(source, [Problem("", f"not a text file (UTF-8 YAML expected): {cause}")]) from cause
    except OSError as cause:
        raise error(source, [Problem("", f"cannot be read ({cause.strerror or cause}): {fix}")]) from cause


def _yaml_problem(cause: yaml.YAMLError) -> Problem:
    """A YAML syntax error as one problem: what the parser expected, the line where what failed began (an
    unclosed quote's start, else where the parser stopped) and where it stopped."""
    context, problem = getattr(cause, "context", None), getattr(cause, "problem", None)
    start = getattr(cause, "context_mark", None) or getattr(cause, "problem_mark", None)
    stop = getattr(cause, "problem_mark", None)
    what = ", ".join(part for part in (context, problem) if part) or str(cause)
    at = f" (line {stop.line + 1}, column {stop.column + 1})" if stop is not None else ""
    return Problem(
        "",
        f"not valid YAML: {what}{at}: fix the syntax there (close each quote and bracket, indent nested "
        "keys, put a space after each colon)",
        line=start.line + 1 if start is not None else None,
    )


_PATH_STEP = re.compile(r"\[(\d+)\]|\.?([^.\[]+)")


def with_lines(problems: Sequence[Problem], text: str) -> list[Problem]:
    """``problems`` with the 1-based line of each field in the YAML ``text`` (unchanged if it does not parse)."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return list(problems)
    return [replace(problem, line=field_line(root, _document_path(problem))) for problem in problems]


def _document_path(problem: Problem) -> str:
    return join(problem.entry, problem.field) if problem.entry and problem.field else problem.entry or problem.field


def field_line(root: yaml.Node | None, field: str) -> int | None:
    """The line of ``field`` (a dotted path as ``join`` writes it) in a composed YAML document: the key's
    line for a mapping entry, the item's for a list item; where the path leaves the document (a missing
    key), the line of the deepest part of it that is there."""
    if root is None:
        return None
    node, line = root, root.start_mark.line + 1
    for index, key in _PATH_STEP.findall(field):
        if index and isinstance(node, yaml.SequenceNode) and int(index) < len(node.value):
            node = node.value[int(index)]
            line = node.start_mark.line + 1
        elif key and isinstance(node, yaml.MappingNode):
            entry = next((pair for pair in node.value if getattr(pair[0], "value", None) == key), None)
            if entry is None:
                break
            line, node = entry[0].start_mark.line + 1, entry[1]
        else:
            break
    return line


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


class Fields(dict[str, Any]):
    """A checked mapping; ``fields[key]`` of an absent key is MISSING, which every check skips quietly
    (``Checker.mapping`` already reported it). Use ``.get(key, default)`` for optional keys."""

    def __missing__(self, key: str) -> Any:
        return MISSING


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    return f"{type(value).__name__} {repr(value)[:60]}"

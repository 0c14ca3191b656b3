"""Episodes of the SayCanPay BabyAI pickup splits (benchmarks/babyai/*.txt) and their text format.

One episode per block, blocks separated by a blank line::

    [Seed] 451
    [Goal] pick up the ball.
    [Initial State] Room 1 has grey ball. Room 2 has blue key, agent. ... is locked.
    [Step 1] pick up blue key
    [Observation] picked blue key
    ...
    [Step 8] done picking up
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_FIELD = re.compile(r"^\[(?P<key>[A-Za-z ]+?)(?: (?P<number>\d+))?\] ?(?P<value>.*)$")


class EpisodeFormatError(ValueError):
    """A block of an episode file does not follow the format of the module docstring."""


@dataclass(frozen=True)
class Episode:
    """One task: ``goal`` ("pick up the ball."), the ``initial_state`` text, and the oracle ``plan``
    (action texts in order, ending with ``done picking up``) with the ``observations`` the environment
    printed after each action but the last."""

    seed: int
    goal: str
    initial_state: str
    plan: tuple[str, ...]
    observations: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"seed-{self.seed}"


def parse_episode(block: str) -> Episode:
    """The episode in one block; EpisodeFormatError names the line that does not fit."""
    fields: dict[str, str] = {}
    plan: list[str] = []
    observations: list[str] = []
    for line in block.strip().splitlines():
        match = _FIELD.match(line.strip())
        if match is None:
            raise EpisodeFormatError(f"line {line!r} is not of the form '[Key] value'")
        key, value = match["key"], match["value"].strip()
        if key == "Step":
            if int(match["number"]) != len(plan) + 1:
                raise EpisodeFormatError(f"step {match['number']} out of order in block starting {block[:40]!r}")
            plan.append(value)
        elif key == "Observation":
            observations.append(value)
        elif key in ("Seed", "Goal", "Initial State"):
            fields[key] = value
        else:
            raise EpisodeFormatError(f"unknown field [{key}] in line {line!r}")
    missing = [key for key in ("Seed", "Goal", "Initial State") if key not in fields]
    if missing or not plan:
        raise EpisodeFormatError(f"block starting {block[:40]!r} lacks {', '.join(missing) or 'steps'}")
    if not fields["Seed"].isdigit():
        raise EpisodeFormatError(f"[Seed] {fields['Seed']!r} is not a whole number")
    return Episode(int(fields["Seed"]), fields["Goal"], fields["Initial State"], tuple(plan), tuple(observations))


@dataclass(frozen=True)
class UnreadableBlock:
    """A block of an episode file that is not an episode: ``id`` ("block-3", the third block) and why."""

    id: str
    reason: str


def _blocks(path: str | Path) -> list[str]:
    return re.split(r"\n\s*\n", Path(path).read_text(encoding="utf-8").strip())


def load_episodes(path: str | Path) -> Iterator[Episode]:
    """Every episode of an episode file, in file order; EpisodeFormatError at the first bad block."""
    for block in _blocks(path):
        yield parse_episode(block)


def read_episodes(path: str | Path) -> list[Episode | UnreadableBlock]:
    """Every block of an episode file in order, an UnreadableBlock for each that is not an episode (a
    benchmark fails it with the reason and goes on). OSError or UnicodeDecodeError: no file to read."""
    read: list[Episode | UnreadableBlock] = []
    for number, block in enumerate(_blocks(path), start=1):
        try:
            read.append(parse_episode(block))
        except EpisodeFormatError as error:
            read.append(UnreadableBlock(f"block-{number}", str(error)))
    return read

"""What every ``llm-planner bench`` does alike: one ``--json`` option and writer, one progress bar.

``--json PATH`` writes the benchmark's report (a JSON object or list) to PATH, making its folders; a
bench that runs episode by episode writes after each one, so a run stopped midway keeps what it
measured. ``--json -``, or ``--json`` with no value, prints the report on stdout instead.

``progress_bar`` is the bar a bench shows over its episodes, tasks or forwards: what runs now, how many
are done of how many, the time spent and the time left; lines a bench prints through it (an episode's
outcome) scroll above the bar.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

STDOUT = "-"


def add_json_argument(parser: argparse.ArgumentParser, what: str = "the numbers") -> None:
    """Add ``--json [PATH]``; its value is a Path, ``"-"`` (stdout) or None (no JSON)."""
    parser.add_argument(
        "--json",
        nargs="?",
        const=STDOUT,
        default=None,
        type=lambda value: value if value == STDOUT else Path(value),
        metavar="PATH",
        help=f"write {what} as JSON to PATH (`-` or no PATH: print it)",
    )


def json_file(target: Path | str | None) -> Path | None:
    """The file ``--json`` names, None when it names none (absent, or stdout)."""
    return None if target is None or target == STDOUT else Path(target)


def write_json(
    target: Path | str | None, report: Any, say: Callable[[str], Any] | None = None, partial: bool = False
) -> None:
    """Write ``report`` where ``--json`` says (nothing when None); ``say`` announces a written file. A
    ``partial`` report (written after each episode) goes to a file only, never to stdout."""
    if target is None:
        return
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    path = json_file(target)
    if path is None:
        if not partial:
            print(text, end="")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if say is not None:
        say(f"wrote {path}")


class BenchProgress:
    """A running bench's bar: ``show`` names the item now running, ``say`` prints a line above the bar,
    ``advance`` counts one item done."""

    def __init__(self, progress: Any, task: Any) -> None:
        self._progress = progress
        self._task = task

    def show(self, description: str) -> None:
        self._progress.update(self._task, description=description)

    def say(self, line: str) -> None:
        self._progress.console.print(line)

    def advance(self) -> None:
        self._progress.advance(self._task)


@contextmanager
def progress_bar(console: Any, title: str, total: int) -> Iterator[BenchProgress]:
    """A progress bar over ``total`` items on ``console`` (a rich Console); it stays on screen when the
    bench ends, showing the count it reached."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), TimeRemainingColumn(), console=console) as progress:
        yield BenchProgress(progress, progress.add_task(title, total=total))

"""What every ``llm-planner bench`` does alike with its numbers: one ``--json`` option and one writer.

``--json PATH`` writes the benchmark's report (a JSON object or list) to PATH, making its folders; a
bench that runs episode by episode writes after each one, so a run stopped midway keeps what it
measured. ``--json -``, or ``--json`` with no value, prints the report on stdout instead.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
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

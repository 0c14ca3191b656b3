"""The console's durable audit trail: every operator action, accepted or refused, with who, from where
and when, appended as one JSON object a line to a file of its own per console run, and to the node's log.

The page's action list is a short in-memory window; this file is the record. Requests refused before
they reach an action (no token, a foreign Host) come from anyone who can reach the port, so they are
rate-limited (``RefusalLimiter``) before they are written or shown, and kept apart from the operators'
actions on the page: a flood of them can neither fill the disk nor push an operator's entry out.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

AUDIT_FOLDER = Path("~/.cache/llm_planner_ros/console")
REFUSALS_PER_WINDOW = 10
REFUSAL_WINDOW_S = 60.0


def audit_path(folder: str, started: float | None = None) -> Path:
    """The file of one console run: ``console-<date>_<time>-<pid>.jsonl`` in ``folder`` (empty: the default
    folder), which is created when missing."""
    base = Path(folder).expanduser() if folder else AUDIT_FOLDER.expanduser()
    stamp = datetime.fromtimestamp(time.time() if started is None else started).strftime("%Y-%m-%d_%H-%M-%S")
    return base / f"console-{stamp}-{os.getpid()}.jsonl"


class AuditTrail:
    """Appends entries to ``path`` (opened for appending only, each line flushed and synced to disk) and
    passes a one-line summary of each to ``log`` (the node's logger; ``warn`` for refused requests)."""

    def __init__(self, path: Path, log: Callable[[str], None], warn: Callable[[str], None]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("a", encoding="utf-8")
        self._log, self._warn = log, warn
        self._lock = threading.Lock()

    def write(self, entry: dict[str, Any]) -> None:
        """One entry (the board's: time, who, action, robot, detail, kind) as a line, then to the log."""
        line = json.dumps({"at": datetime.fromtimestamp(entry["time"]).isoformat(timespec="milliseconds"), **entry})
        with self._lock:
            if self._file.closed:
                return
            try:
                self._file.write(line + "\n")
                self._file.flush()
                os.fsync(self._file.fileno())
            except OSError as error:  # a full disk must not stop the e-stop: the node's log still has it
                self._warn(f"audit file {self.path} not written ({error}); the entry follows")
        robot = f" [{entry['robot']}]" if entry.get("robot") else ""
        text = f"console{robot}: {entry['who']} {entry['action']}" + (f": {entry['detail']}" if entry["detail"] else "")
        # Two call sites: rclpy's logger refuses a second severity from one line of code.
        if entry.get("kind") == "refused request":
            self._warn(text)
        else:
            self._log(text)

    def close(self) -> None:
        with self._lock:
            self._file.close()


class RefusalLimiter:
    """At most ``per_window`` refused requests pass each ``window_s``; the others are only counted, and the
    count is handed to the next one that passes (or to ``flush`` at the end), so the log says how many."""

    def __init__(self, per_window: int = REFUSALS_PER_WINDOW, window_s: float = REFUSAL_WINDOW_S) -> None:
        self._per_window, self._window_s = per_window, window_s
        self._lock = threading.Lock()
        self._window_start = -window_s
        self._passed = 0
        self._suppressed = 0

    def admit(self, now: float) -> int | None:
        """None when this refusal is not to be logged; else how many were left out before it."""
        with self._lock:
            if now - self._window_start >= self._window_s:
                self._window_start, self._passed = now, 0
            if self._passed >= self._per_window:
                self._suppressed += 1
                return None
            self._passed += 1
            left_out, self._suppressed = self._suppressed, 0
            return left_out

    def flush(self) -> int:
        """How many were left out since the last one that passed (and starts counting anew)."""
        with self._lock:
            left_out, self._suppressed = self._suppressed, 0
            return left_out

"""The planner's goal events (``/llm_planner/goals``, one JSON object each) as a recording reads them.

planner publishes ``{"goal_id", "seq", "event": "started" | "ended", "stamp", ...}``: a start carries
the instruction and method, an end its reason and message. ``seq`` counts the planner's events 1, 2, ... in
the order it published them, so a reader that sees 7 after 4 knows two events never reached it. Anyone can
publish on the topic: ``parse_goal_event`` names what makes a message no goal event instead of failing on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# The keys each kind of event must hold, besides goal_id and event.
EVENT_KEYS: dict[str, tuple[str, ...]] = {"started": ("instruction", "planner"), "ended": ("reason", "message")}


class ForeignEventError(ValueError):
    """A message on the goals topic that is not a goal event of planner; the message says why."""


@dataclass(frozen=True)
class GoalEvent:
    """One goal event: its kind (``started`` or ``ended``), its ``seq`` (None: a publisher without one)
    and every field it holds."""

    event: str
    seq: int | None
    fields: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]


def parse_goal_event(text: str) -> GoalEvent:
    """The goal event ``text`` holds; ForeignEventError when it is not JSON, not an object, of an unknown
    kind, or lacks a key its kind needs."""
    try:
        fields = json.loads(text)
    except json.JSONDecodeError as error:
        raise ForeignEventError(f"not JSON ({error.msg} at character {error.pos})") from error
    if not isinstance(fields, dict):
        raise ForeignEventError(f"a JSON {type(fields).__name__}, not an object")
    event = fields.get("event")
    if event not in EVENT_KEYS:
        raise ForeignEventError(f"'event' is {event!r}, not one of {', '.join(EVENT_KEYS)}")
    missing = [key for key in ("goal_id", *EVENT_KEYS[event]) if key not in fields]
    if missing:
        raise ForeignEventError(f"a {event!r} event without {', '.join(repr(key) for key in missing)}")
    seq = fields.get("seq")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
        raise ForeignEventError(f"'seq' is {seq!r}, not a positive integer")
    return GoalEvent(event, seq, fields)


class SequenceGaps:
    """Counts the goal events missing between those seen, from their ``seq``: each event should follow the
    one before by exactly 1. A seq not above the last one begins a new count (the planner restarted). With
    ``last`` None the events before the first one seen are not counted (a bag that begins mid-run); a
    recorder that knows what came before gives ``last`` (0: the first event must be seq 1)."""

    def __init__(self, last: int | None = None) -> None:
        self.lost = 0
        self._last = last

    def seed(self, seq: int | None) -> None:
        """An event from before the count began (history): the next one should follow it."""
        if seq is not None:
            self._last = seq

    def see(self, seq: int | None) -> int:
        """Take one event's ``seq`` (None: not counted); returns how many events are missing just before it."""
        if seq is None:
            return 0
        missing = seq - self._last - 1 if self._last is not None and seq > self._last else 0
        self.lost += missing
        self._last = seq
        return missing

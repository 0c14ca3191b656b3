"""The rules planner applies to its goals, without ROS: one goal at a time, the e-stop, and
noticing that a goal's client has gone away.

``GoalSlot`` admits one goal at a time, refusing the others (``on_busy: reject``) or letting the
newest take over (``on_busy: preempt``) without parking an executor thread per waiting goal. ``EStop``
holds the state of ``/llm_planner/stop``: latched until released, or momentary. ``ClientWatch``
decides from the subscriptions on the action's feedback topic that the client of a running goal is
gone (a killed process never cancels its goal, and rclpy's action server does not notice).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterable


class GoalSlot:
    """Room for one running goal; each admitted goal holds a ticket until ``leave(ticket)``.

    ``try_enter()``: a ticket, or None when another goal holds the slot (busy).
    ``preempt()``: supersedes the running goal (its ``superseded(ticket)`` turns true, so it stops at
    its next check) and every older waiter, then waits for the slot; returns the ticket once the slot
    is its own, or None when a still newer goal superseded it while it waited. A burst of preempting
    goals therefore keeps at most one waiter: the older ones return at once.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._holder: int | None = None
        self._newest = 0

    def try_enter(self) -> int | None:
        with self._changed:
            if self._holder is not None:
                return None
            self._newest += 1
            self._holder = self._newest
            return self._holder

    def preempt(self) -> int | None:
        with self._changed:
            self._newest += 1
            ticket = self._newest
            self._changed.notify_all()
            while self._holder is not None and ticket == self._newest:
                self._changed.wait()
            if ticket != self._newest:
                return None
            self._holder = ticket
            return ticket

    def superseded(self, ticket: int) -> bool:
        """True once a newer goal asked to take over from ``ticket``."""
        with self._changed:
            return ticket != self._newest

    def leave(self, ticket: int) -> None:
        with self._changed:
            if self._holder == ticket:
                self._holder = None
                self._changed.notify_all()

    def wait_free(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` until no goal holds the slot; True when it is free."""
        with self._changed:
            return self._changed.wait_for(lambda: self._holder is None, timeout=timeout_s)


class EStop:
    """The e-stop state behind ``topic`` (std_msgs/Bool: true stops, false releases).

    Latched: a stop holds until released; the running goal ends and every goal arriving meanwhile is
    refused (``refusal()``) with how to release it. Momentary (``estop_latched: false``): a stop ends the
    running goal only; the next goal to start forgets it (``goal_started()``).
    """

    def __init__(self, latched: bool, topic: str) -> None:
        self.latched = latched
        self._topic = topic
        self._engaged = threading.Event()

    def set(self, engaged: bool) -> None:
        if engaged:
            self._engaged.set()
        else:
            self._engaged.clear()

    @property
    def engaged(self) -> bool:
        return self._engaged.is_set()

    def refusal(self) -> str | None:
        """Why a goal that arrives now may not start (latched and engaged), else None."""
        return self.reason() if self.latched else None

    def goal_started(self) -> None:
        if not self.latched:
            self._engaged.clear()

    def reason(self) -> str | None:
        """Why the running goal must stop now, or None."""
        if not self._engaged.is_set():
            return None
        if self.latched:
            return f"e-stop latched: publish false on {self._topic} to release"
        return f"e-stop on {self._topic}"


class ClientWatch:
    """Whether the client of one running goal is still there, from the endpoints subscribed to the
    action's feedback topic (every rclpy/rcl action client subscribes to it).

    The goal's client is taken to be among the subscriptions seen when the goal started (or, if none
    was discovered yet, the first ones seen afterwards). It is gone once none of them has been seen
    for ``grace_s``. Subscriptions that appear later (a retry from a new client) do not keep a dead
    client's goal alive. A long-lived listener present from the start (another client node) does: the
    watch cannot tell which endpoint sent the goal, and never ends a goal whose client may listen.
    """

    def __init__(self, grace_s: float, now: float) -> None:
        self.grace_s = grace_s
        self._origin: frozenset[Hashable] | None = None
        self._last_seen = now
        self._gone = False

    def update(self, subscribers: Iterable[Hashable], now: float) -> bool:
        """Record the current feedback subscriptions; True when the client has just been found gone."""
        present = frozenset(subscribers)
        if self._origin is None and present:
            self._origin = present
        if self._origin is not None and self._origin & present:
            self._last_seen = now
        if self._gone or now - self._last_seen < self.grace_s:
            return False
        self._gone = True
        return True

    @property
    def gone(self) -> bool:
        return self._gone

"""What an agent may ask of the MCP server, checked before a request reaches the robot: an instruction's
length, each client's call rate, and one goal at a time per robot (a second refused, or queued when
configured). ROS-free; every refusal is an ``AgentRefusal`` whose message says why and what to do.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

MAX_INSTRUCTION_CHARS = 500
CALLS_PER_MINUTE = 30
QUEUE_WAIT_S = 300.0


class AgentRefusal(Exception):
    """A call the server will not pass on; the message is the tool error the agent reads."""


@dataclass(frozen=True)
class AgentLimits:
    """The limits of ``llm-planner mcp`` (its options): ``queue`` makes a goal for a busy robot wait up to
    ``queue_wait_s`` for it instead of being refused."""

    max_instruction_chars: int = MAX_INSTRUCTION_CHARS
    calls_per_minute: int = CALLS_PER_MINUTE
    queue: bool = False
    queue_wait_s: float = QUEUE_WAIT_S

    def check_instruction(self, instruction: str) -> str:
        """The instruction stripped; AgentRefusal when it is empty or longer than the limit."""
        text = instruction.strip()
        if not text:
            raise AgentRefusal("refused: the instruction is empty: say what the robot should do")
        if len(text) > self.max_instruction_chars:
            raise AgentRefusal(
                f"refused: the instruction has {len(text)} characters, more than this server's limit of "
                f"{self.max_instruction_chars} (llm-planner mcp --max-instruction-chars): say it shorter"
            )
        return text


class CallRate:
    """At most ``per_minute`` calls per client in any 60 s (a sliding window); ``clock`` for tests."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._per_minute = per_minute
        self._clock = clock
        self._calls: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def admit(self, client: str) -> None:
        """Counts one call of ``client``; AgentRefusal, not counted, when it is over the limit."""
        now = self._clock()
        with self._lock:
            calls = self._calls.setdefault(client, deque())
            while calls and now - calls[0] >= 60.0:
                calls.popleft()
            if len(calls) >= self._per_minute:
                wait = 60.0 - (now - calls[0])
                raise AgentRefusal(
                    f"refused: client {client!r} made {len(calls)} calls in the last minute, this server's limit "
                    f"(llm-planner mcp --calls-per-minute): try again in {wait:.0f} s"
                )
            calls.append(now)


class GoalSlots:
    """One goal at a time per robot, held by the call that sends it and freed when its goal ends."""

    def __init__(self, limits: AgentLimits) -> None:
        self._limits = limits
        self._held: dict[str, str] = {}
        self._free = threading.Condition()

    def take(self, robot: str, holder: str) -> None:
        """Hold ``robot``'s slot for ``holder`` (what it runs, for the message of a refused second call).
        Busy: AgentRefusal at once, or with ``queue`` after waiting ``queue_wait_s`` in vain."""
        with self._free:
            if robot in self._held and self._limits.queue:
                self._free.wait_for(lambda: robot not in self._held, self._limits.queue_wait_s)
            if robot in self._held:
                waited = f" (waited {self._limits.queue_wait_s:.0f} s)" if self._limits.queue else ""
                raise AgentRefusal(
                    f"refused: robot {robot or '/'} is busy with {self._held[robot]}{waited}: one goal at a time "
                    "per robot; wait for it to end (status) or cancel it (cancel)"
                )
            self._held[robot] = holder

    def release(self, robot: str) -> None:
        with self._free:
            self._held.pop(robot, None)
            self._free.notify_all()

"""What the operator console shows, kept in one place for every browser that watches.

``ConsoleBoard`` holds, for each robot the console serves, its current goal, the plan's steps with their
candidate tables, the step waiting for approval, the last decision, the e-stop, the scene and the robot
state, and one action log for all of them. ROS callbacks and web requests change it from their own
threads; every change makes a new version, and every browser's event stream is woken to send the new
snapshot, so several browsers see the same state.

The action log on the page is a window of the last ``LOG_LENGTH`` operator actions; every entry also goes
to the board's ``audit`` (the durable trail, ``audit.AuditTrail``). Requests refused before they reach an
action (no token, a foreign Host) are kept apart, rate-limited, in a list of their own (``refused``), so
they never push an operator's entry out of the window.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from llm_planner_ros.operator_console.audit import RefusalLimiter
from llm_planner_ros.planning.decision import StepRecord

LOG_LENGTH = 200
REFUSED_LENGTH = 20


def step_json(record: StepRecord) -> dict[str, Any]:
    """One plan step as the page draws it: the chosen skill, its status and message, and each candidate's
    LLM probability (not its log), affordance, payoff and combined score (the SayCan Figure-5 chart)."""
    return {
        "index": record.index,
        "skill": record.skill.text,
        "status": record.status.name.lower(),
        "message": record.message,
        "planning_s": round(record.planning_s, 4),
        "stamp": record.stamp,
        "candidates": [
            {
                "skill": candidate.skill.text,
                "llm": candidate.llm_probability,
                "affordance": candidate.affordance,
                "pay": candidate.pay,
                "combined": candidate.combined,
            }
            for candidate in record.candidates
        ],
    }


@dataclass
class RobotBoard:
    """One robot's part of the page. ``goal``: the last goal's start event and, once over, its end
    (reason, message); ``steps``: that goal's steps by index, latest status winning; ``pending``: the
    approval request waiting for a person (None: nothing to approve); ``decision``: the last answer
    given and why; ``estop``: the last value seen on the stop topic (None: none yet); ``camera``: the
    number of the latest frame (0: none) and the topic it came from."""

    namespace: str
    goal: dict[str, Any] | None = None
    steps: dict[int, dict[str, Any]] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
    decision: dict[str, Any] | None = None
    estop: bool | None = None
    scene: list[dict[str, Any]] = field(default_factory=list)
    robot_state: Any = None
    camera_frame: int = 0
    camera_topic: str = ""

    def as_json(self, index: int) -> dict[str, Any]:
        return {
            "index": index,
            "namespace": self.namespace or "/",
            "goal": self.goal,
            "steps": [self.steps[key] for key in sorted(self.steps)],
            "pending": self.pending,
            "decision": self.decision,
            "estop": self.estop,
            "scene": self.scene,
            "robot_state": self.robot_state,
            "camera": {"frame": self.camera_frame, "topic": self.camera_topic},
        }


class ConsoleBoard:
    """The console's state for the robots in ``namespaces`` ("" for the console's own namespace).

    ``change(robot, edit)`` applies ``edit`` under the lock and publishes a new version;
    ``snapshot()`` is what a browser receives; ``wait_changed(version)`` (async) returns once the
    version differs from ``version``, or after its timeout (the stream then sends a keep-alive)."""

    def __init__(
        self,
        namespaces: Iterable[str],
        token_required: bool,
        audit: Callable[[dict[str, Any]], None] | None = None,
        limiter: RefusalLimiter | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._robots = [RobotBoard(namespace) for namespace in namespaces]
        self._log: deque[dict[str, Any]] = deque(maxlen=LOG_LENGTH)
        self._refused: deque[dict[str, Any]] = deque(maxlen=REFUSED_LENGTH)
        self._audit = audit
        self._limiter = limiter or RefusalLimiter()
        self._token_required = token_required
        self._version = 0
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    @property
    def robot_count(self) -> int:
        return len(self._robots)

    @property
    def version(self) -> int:
        with self._lock:
            return self._version

    def change(self, robot: int, edit: Callable[[RobotBoard], None]) -> None:
        with self._lock:
            edit(self._robots[robot])
            self._bump()

    def read(self, robot: int, view: Callable[[RobotBoard], Any]) -> Any:
        with self._lock:
            return view(self._robots[robot])

    def log(self, who: str, action: str, robot: int | None, detail: str = "") -> dict[str, Any]:
        """Records an operator's action (or a refusal of one) with who and when; returns the entry."""
        entry = {
            "time": time.time(),
            "kind": "action",
            "who": who,
            "action": action,
            "robot": self._robots[robot].namespace or "/" if robot is not None else "",
            "detail": detail,
        }
        with self._lock:  # under the lock, so the trail has the page's order
            self._log.append(entry)
            if self._audit is not None:
                self._audit(entry)
            self._bump()
        return entry

    def refused(self, who: str, action: str, detail: str) -> dict[str, Any] | None:
        """Records a request refused before it reached an action, unless the limiter leaves it out
        (None then); an entry that passes says how many were left out before it."""
        now = time.time()
        left_out = self._limiter.admit(now)
        if left_out is None:
            return None
        if left_out:
            detail += f" ({left_out} more refused requests before this one were not logged)"
        entry = {"time": now, "kind": "refused request", "who": who, "action": action, "robot": "", "detail": detail}
        with self._lock:
            self._refused.append(entry)
            if self._audit is not None:
                self._audit(entry)
            self._bump()
        return entry

    def close(self) -> None:
        """Logs how many refused requests were left out since the last one logged, if any."""
        left_out = self._limiter.flush()
        if left_out and self._audit is not None:
            detail = f"{left_out} refused requests were not logged (rate limit)"
            self._audit(
                {
                    "time": time.time(),
                    "kind": "refused request",
                    "who": "console",
                    "action": "left out",
                    "robot": "",
                    "detail": detail,
                }
            )

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "version": self._version,
                "token_required": self._token_required,
                "robots": [robot.as_json(index) for index, robot in enumerate(self._robots)],
                "log": list(self._log),
                "refused": list(self._refused),
            }

    async def wait_changed(self, version: int, timeout_s: float) -> int:
        """The current version once it is not ``version`` (at once if it already is not), or after
        ``timeout_s``."""
        event = asyncio.Event()
        waiter = (asyncio.get_running_loop(), event)
        with self._lock:
            if self._version != version:
                return self._version
            self._waiters.add(waiter)
        try:
            await asyncio.wait_for(event.wait(), timeout_s)
        except TimeoutError:
            pass
        finally:
            with self._lock:
                self._waiters.discard(waiter)
        return self.version

    def _bump(self) -> None:
        """Called with the lock held: a new version, and every waiting stream woken in its own loop."""
        self._version += 1
        for loop, event in self._waiters:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the stream's loop has closed (the server is shutting down)
                pass

"""The steps waiting for a person's approval, between the planner's ConfirmPlan request and the page.

``ApprovalDesk.ask`` is called from the console's ConfirmPlan service (one thread per request): it puts
the request on the board for every browser and blocks until a person answers it on the page, its time
runs out, or the console closes. Only a person's approve approves; every other end refuses, with the
reason the planner reports and the page shows.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from llm_planner_ros.operator_console.board import ConsoleBoard, RobotBoard, step_json
from llm_planner_ros.planning.decision import StepRecord

CLOSED = "the operator console shut down"


@dataclass(frozen=True)
class Answer:
    """The reply to one approval request: ``approved`` only when a person approved it."""

    approved: bool
    reason: str


@dataclass
class _Request:
    robot: int
    done: threading.Event
    answer: Answer | None = None


class ApprovalDesk:
    """One pending approval per robot (the planner asks one step at a time); ``answer`` settles it by its
    id, so a second browser answering the same request, or one answering after the time ran out, is told
    it was already settled instead of settling another."""

    def __init__(self, board: ConsoleBoard, timeout_s: float) -> None:
        self._board = board
        self._timeout_s = timeout_s
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._requests: dict[int, _Request] = {}
        self._closed = False

    def ask(self, robot: int, instruction: str, steps: Sequence[StepRecord]) -> Answer:
        """Blocks until the request is answered; refused when ``timeout_s`` passes or the desk closes."""
        with self._lock:
            if self._closed:
                return Answer(False, CLOSED)
            request_id = next(self._ids)
            request = _Request(robot, threading.Event())
            self._requests[request_id] = request
        pending = {
            "id": request_id,
            "instruction": instruction,
            "steps": [step_json(step) for step in steps],
            "asked": time.time(),
            "timeout_s": self._timeout_s,
        }
        self._board.change(robot, lambda board: setattr(board, "pending", pending))
        if not request.done.wait(self._timeout_s):
            reason = f"no answer on the operator console in {self._timeout_s:g} s"
            if self._settle(request_id, Answer(False, reason), "console"):
                self._board.log("console", "timed out", robot, f"{[step.skill.text for step in steps]}: {reason}")
        answer = request.answer
        assert answer is not None  # set by _settle before done is set
        return answer

    def answer(self, robot: int, request_id: int, approved: bool, reason: str, who: str) -> str | None:
        """A person's answer to request ``request_id`` of ``robot``; None when it settled the request,
        else why it did not (already answered, timed out, or another robot's)."""
        with self._lock:
            request = self._requests.get(request_id)
        if request is None or request.robot != robot:
            return f"approval request {request_id} is no longer pending (answered, timed out or withdrawn)"
        verdict = f"approved by {who}" if approved else f"refused by {who}" + (f": {reason}" if reason else "")
        if not self._settle(request_id, Answer(approved, verdict), who):
            return f"approval request {request_id} was settled a moment ago"
        return None

    def refuse_pending(self, robot: int, reason: str, who: str) -> bool:
        """Refuses ``robot``'s pending request, if any (the e-stop was pressed: nothing may start)."""
        with self._lock:
            pending = [request_id for request_id, request in self._requests.items() if request.robot == robot]
        return any([self._settle(request_id, Answer(False, reason), who) for request_id in pending])

    def close(self) -> None:
        """Refuses every pending request and every later one (the console is going away)."""
        with self._lock:
            self._closed = True
            pending = list(self._requests)
        for request_id in pending:
            self._settle(request_id, Answer(False, CLOSED), "console")

    def _settle(self, request_id: int, answer: Answer, who: str) -> bool:
        with self._lock:
            request = self._requests.pop(request_id, None)
        if request is None:
            return False
        request.answer = answer
        decision = {"id": request_id, "approved": answer.approved, "reason": answer.reason, "who": who}

        def settle(board: RobotBoard) -> None:
            skills = []
            if board.pending is not None and board.pending["id"] == request_id:
                skills = [step["skill"] for step in board.pending["steps"]]
                board.pending = None
            board.decision = {**decision, "skills": skills, "time": time.time()}

        self._board.change(request.robot, settle)
        request.done.set()
        return True

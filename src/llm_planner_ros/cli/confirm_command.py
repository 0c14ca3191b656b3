"""``llm-planner confirm``: a person approves or refuses each step in a terminal.

The robot graph sets the planner's ``require_confirmation``: before every step it calls
``llm_planner/confirm`` (ConfirmPlan) and dispatches the step only when the answer approves it in
``confirm_timeout_s``. This command serves that service (in ``--namespace``): it prints the instruction,
the step and its candidate table (the language model's probability, the affordance, the payoff where the
method has one, the combined score) and reads one line: ``y`` or ``yes`` approves; anything else refuses,
and text after ``n`` is the reason the planner reports (``n the cup is hot``). An empty line refuses.

Safety: nothing here dispatches a skill, and nothing approves without a person's line. When the terminal
closes (end of input) the pending step is refused and the command stops serving, so later steps find no
service and are refused by the planner; Ctrl-C leaves a pending request unanswered, which the planner
counts as refused when its timeout passes. Every answer is printed with the operator's login and the time.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import threading
import time
from datetime import datetime
from typing import TextIO

import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rich.console import Console
from rich.markup import escape

from llm_planner_interfaces.srv import ConfirmPlan
from llm_planner_ros.ros.conversions import record_from_msg
from llm_planner_ros.ros.topics import CONFIRM_SERVICE
from llm_planner_ros.visualization.score_table import step_table

APPROVALS = ("y", "yes")
CLOSED = "the operator's terminal closed"
DELIVERY_S = 2.0  # how long the closing answer's reply is given to reach the planner before the node goes


def answer(line: str) -> tuple[bool, str]:
    """(approved, reason) from the operator's line: ``y``/``yes`` approves; anything else refuses, with the
    text after a leading ``n``/``no`` as the reason."""
    text = line.strip()
    word, _, rest = text.partition(" ")
    if word.lower() in APPROVALS and not rest:
        return True, f"approved by {getpass.getuser()}"
    reason = rest.strip() if word.lower() in ("n", "no") else text
    return False, f"refused by {getpass.getuser()}" + (f": {reason}" if reason else "")


class TerminalConfirmation:
    """Serves ConfirmPlan from one terminal. ``serve()`` blocks until the input ends (returns 0) or
    Ctrl-C; one request is asked at a time, in the order they come."""

    def __init__(self, namespace: str, console: Console, lines: TextIO) -> None:
        self._console = console
        self._lines = lines
        self._closed = threading.Event()
        self._context = Context()
        rclpy.init(context=self._context)
        self.node = rclpy.create_node("operator_confirm", namespace=namespace or None, context=self._context)
        self.service_name = self.node.resolve_service_name(CONFIRM_SERVICE)
        self._service = self.node.create_service(ConfirmPlan, CONFIRM_SERVICE, self._on_request)

    def serve(self) -> int:
        executor = SingleThreadedExecutor(context=self._context)
        executor.add_node(self.node)
        # Text in square brackets is rich markup: the usage, skills, instruction and reasons are escaped so
        # that "[reason]" and an operator's "[hot]" are printed, not read as styles and dropped.
        self._console.print(escape(f"answering {self.service_name}: y approves a step, n [reason] refuses it"))
        try:
            while not self._closed.is_set():
                executor.spin_once(timeout_sec=0.2)
            # The closing answer was only handed to DDS when its callback returned: destroying the node at
            # once can drop the reply before the planner reads it, and the planner then waits out its
            # confirm_timeout_s. Keep serving a moment (a later request is refused as closed too).
            deadline = time.monotonic() + DELIVERY_S
            while time.monotonic() < deadline:
                executor.spin_once(timeout_sec=0.1)
        finally:
            executor.shutdown(timeout_sec=2)
            self.node.destroy_node()
            rclpy.shutdown(context=self._context)
        self._console.print(f"{CLOSED}: no longer answering {self.service_name}; the planner refuses every step")
        return 0

    def _on_request(self, request: ConfirmPlan.Request, response: ConfirmPlan.Response) -> ConfirmPlan.Response:
        self._console.rule(f"[bold]{escape(request.instruction)}")
        for step in request.steps:
            self._console.print(step_table(record_from_msg(step)))
        skills = ", ".join(repr(step.skill) for step in request.steps)
        self._console.print(escape(f"approve {skills}? [y / n reason] "), end="")
        line = self._lines.readline()
        if not line:
            self._closed.set()
            approved, reason = False, CLOSED
        else:
            approved, reason = answer(line)
        response.approved, response.reason = approved, reason
        stamp = datetime.now().astimezone().isoformat(timespec="seconds")
        verdict = "[green]approved[/green]" if approved else "[red]refused[/red]"
        self._console.print(f"{stamp} {escape(skills)} {verdict} ({escape(reason)})")
        return response


def run(args: argparse.Namespace) -> int:
    return TerminalConfirmation(args.namespace, Console(), sys.stdin).serve()

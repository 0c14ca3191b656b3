r"""``llm-planner bench console``: how long a new plan step takes to reach the operator console's page.

    llm-planner bench console [--steps 300] [--rate-hz 10] [--steps-per-goal 10] [--streams 4] \
        [--candidates 10] [--poll-hz 2] [--json PATH]

Starts the ``operator_console`` node (any free port, a namespace of its own so no running graph is
disturbed) and publishes PlanStep messages on its ``llm_planner/scores`` as a planner does: goals of
``--steps-per-goal`` steps (each goal announced on ``llm_planner/goals``), each step with ``--candidates``
scored candidates, stamped when published. Watching at once:

- ``--streams`` event-stream clients (what each browser's EventSource receives);
- a headless Chromium on the page, timed when the page has drawn the step (skipped, and said so, where
  Chromium is not installed);
- the naive way, measured in the same run: a client polling ``/api/state`` at ``--poll-hz``.

Latency is the wall-clock time from the step's stamp to its arrival (all on this machine's clock). The
event stream sends a watcher the board's latest state, and the board shows the current goal's steps: a
goal's last step that the next goal replaced before the watcher's next snapshot is never seen, so under
load "steps seen" can fall short of those published at goal changes (with one goal it cannot).
Printed and written: p50, p95 and max per watcher, and the ratio of the naive p95 to the page's.
Exit status 0 when the page's p95 (the streams' where no browser ran) is within ``TARGET_P95_MS``, 1 when
not, 2 when the console did not come up.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from llm_planner_ros.evaluation.bench_report import add_json_argument, progress_bar, write_json
from llm_planner_ros.operator_console.web_app import KEEP_ALIVE_S
from llm_planner_ros.options import finite_float

TARGET_P95_MS = 200.0
READY_TIMEOUT_S = 60.0
DRAIN_TIMEOUT_S = 10.0  # the longest the watchers get after the last step to receive it
# Wraps the page's draw(): after each drawing, every step it had not shown yet gets its latency.
PAGE_PROBE = """
window.stepLatencies = [];
const seen = new Set();
const drawSnapshot = window.draw;
window.draw = function (snapshot) {
  drawSnapshot(snapshot);
  const now = Date.now() / 1000;
  for (const step of snapshot.robots[0].steps) {
    if (!seen.has(step.stamp)) { seen.add(step.stamp); window.stepLatencies.push([step.stamp, now - step.stamp]); }
  }
};
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--steps", type=int, default=300, help="plan steps to publish (default 300)")
    parser.add_argument("--rate-hz", type=finite_float, default=10.0, help="steps published per second (default 10)")
    parser.add_argument("--steps-per-goal", type=int, default=10, help="steps of each goal (default 10)")
    parser.add_argument("--streams", type=int, default=4, help="event-stream clients watching at once (default 4)")
    parser.add_argument("--candidates", type=int, default=10, help="scored candidates per step (default 10)")
    parser.add_argument(
        "--poll-hz", type=finite_float, default=2.0, help="the naive client's polls per second (default 2)"
    )
    add_json_argument(parser)


@dataclass
class Watcher:
    """One client of the console: the latency of every step it saw, by the step's stamp (unique per step)."""

    name: str
    latencies: dict[float, float] = field(default_factory=dict)
    error: str = ""

    def saw(self, snapshot: dict[str, Any], now: float) -> None:
        for step in snapshot["robots"][0]["steps"]:
            self.latencies.setdefault(step["stamp"], now - step["stamp"])

    def summary(self, published: int) -> dict[str, Any]:
        values = np.array(list(self.latencies.values())) * 1000.0
        if not len(values):
            return {"watcher": self.name, "steps_seen": 0, "steps_published": published, "error": self.error}
        return {
            "watcher": self.name,
            "steps_seen": len(values),
            "steps_published": published,
            "p50_ms": round(float(np.percentile(values, 50)), 1),
            "p95_ms": round(float(np.percentile(values, 95)), 1),
            "max_ms": round(float(values.max()), 1),
        }


def stream(url: str, watcher: Watcher, stop: threading.Event) -> None:
    """Reads the console's event stream as a browser's EventSource does, until ``stop``; a stream that
    breaks says why in the report (``watcher.error``)."""
    import requests

    # The read timeout outlasts the console's keep-alive: a quiet stream is not a broken one.
    try:
        with requests.get(f"{url}api/events", stream=True, timeout=(10, KEEP_ALIVE_S + 10)) as reply:
            event = "message"  # the snapshots; the console's "alive" events carry none
            for line in reply.iter_lines(decode_unicode=True):
                if stop.is_set():
                    return
                if line and line.startswith("event: "):
                    event = line[7:]
                elif line and line.startswith("data: ") and event == "message":
                    watcher.saw(json.loads(line[6:]), time.time())
                elif not line:
                    event = "message"
    except requests.exceptions.RequestException as error:
        if not stop.is_set():
            watcher.error = f"the event stream broke: {error}"


def poll(url: str, watcher: Watcher, stop: threading.Event, period_s: float) -> None:
    """The naive client: asks for the whole state every ``period_s``."""
    import requests

    while not stop.wait(period_s):
        try:
            watcher.saw(requests.get(f"{url}api/state", timeout=10).json(), time.time())
        except requests.exceptions.RequestException as error:
            watcher.error = f"a poll failed: {error}"


def run(args: argparse.Namespace) -> int:
    import rclpy
    from rich.console import Console

    from llm_planner_ros.processes import NodeProcess, ros_argv

    for option, value in (("--steps", args.steps), ("--steps-per-goal", args.steps_per_goal)):
        if value < 1:
            raise SystemExit(f"{option} must be at least 1, got {value}")
    console = Console()
    namespace = f"/console_bench_{os.getpid()}"
    logs = Path("out") / "bench-console"
    logs.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        argv = ros_argv("operator_console", params={"port": 0}, namespace=namespace)
        process = NodeProcess(argv, os.environ, logs / f"operator_console-{os.getpid()}.log").start()
        stack.callback(process.stop)
        rclpy.init()
        stack.callback(rclpy.shutdown)
        node = rclpy.create_node("console_latency_bench", namespace=namespace)
        url = _console_url(node, process)
        if url is None:
            console.print(f"[red]the console did not come up in {READY_TIMEOUT_S:g} s[/red]:\n{process.log()}")
            return 2
        stop = threading.Event()
        stack.callback(stop.set)
        streams = [Watcher(f"event stream {i + 1}") for i in range(args.streams)]
        naive = Watcher(f"naive: polling /api/state at {args.poll_hz:g} Hz")
        for watcher in streams:
            threading.Thread(target=stream, args=(url, watcher, stop), daemon=True).start()
        threading.Thread(target=poll, args=(url, naive, stop, 1.0 / args.poll_hz), daemon=True).start()
        driver, browser_note = _open_page(stack, url)
        time.sleep(1.0)  # every watcher connected before the first step
        with progress_bar(console, "plan steps published", args.steps) as bar:
            last = _publish(node, args, bar.advance)
        _drain(streams, driver, last)
        page = _page_watcher(driver) if driver is not None else None
    rows = [watcher.summary(args.steps) for watcher in ([page] if page else []) + [*streams, naive]]
    return _report(console, args, rows, browser_note)


def _report(console: Any, args: argparse.Namespace, rows: list[dict[str, Any]], browser_note: str) -> int:
    """Prints the table and the verdict on the first row (the page, else the first stream); writes --json."""
    from rich.table import Table

    measured, naive = rows[0], rows[-1]
    ratio = naive["p95_ms"] / measured["p95_ms"] if measured.get("p95_ms") and naive.get("p95_ms") else None
    table = Table(title=f"console latency: {args.steps} steps at {args.rate_hz:g} Hz, {args.candidates} candidates")
    for column in ("watcher", "steps seen", "p50 ms", "p95 ms", "max ms"):
        table.add_column(column, justify="left" if column == "watcher" else "right")
    for row in rows:
        cells = (str(row.get(key, "-")) for key in ("p50_ms", "p95_ms", "max_ms"))
        table.add_row(row["watcher"], f"{row['steps_seen']}/{row['steps_published']}", *cells)
    console.print(table)
    if browser_note:
        console.print(f"[yellow]{browser_note}[/yellow]")
    met = measured.get("p95_ms") is not None and measured["p95_ms"] <= TARGET_P95_MS
    verdict = "met" if met else "NOT met"
    console.print(f"{measured['watcher']}: p95 {measured.get('p95_ms')} ms (target <= {TARGET_P95_MS:g} ms: {verdict})")
    if ratio is not None:
        console.print(f"the naive poll's p95 is {ratio:.1f}x that")
    report = {
        "steps": args.steps,
        "rate_hz": args.rate_hz,
        "steps_per_goal": args.steps_per_goal,
        "candidates": args.candidates,
        "streams": args.streams,
        "watchers": rows,
        "naive_p95_over_measured_p95": round(ratio, 2) if ratio else None,
        "target_p95_ms": TARGET_P95_MS,
        "target_met": met,
        "browser": browser_note or "headless Chromium",
    }
    write_json(args.json, report, console.print)
    return 0 if met else 1


def _console_url(node: Any, process: Any) -> str | None:
    """The page's address the console publishes once up; None when it did not come up in time."""
    import rclpy
    from std_msgs.msg import String

    from llm_planner_ros.ros.topics import STATE_QOS

    urls: list[str] = []
    node.create_subscription(String, "operator_console/url", lambda msg: urls.append(msg.data), STATE_QOS)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not urls and time.monotonic() < deadline and process.returncode is None:
        rclpy.spin_once(node, timeout_sec=0.1)
    return urls[-1] if urls else None


def _drain(streams: list[Watcher], driver: Any, last: float) -> None:
    """Waits until the page and every unbroken stream have seen the step stamped ``last`` (the last one,
    which no later goal replaces), or ``DRAIN_TIMEOUT_S`` passed."""
    deadline = time.monotonic() + DRAIN_TIMEOUT_S
    while time.monotonic() < deadline:
        page = [] if driver is None else [driver.execute_script("return window.stepLatencies.map((s) => s[0])")]
        seen = [list(watcher.latencies) for watcher in streams if not watcher.error] + page
        # The board's stamp is the message's seconds and nanoseconds again: equal to ``last`` within 1 us.
        if all(stamps and max(stamps) >= last - 1e-6 for stamps in seen):
            return
        time.sleep(0.1)


def _publish(node: Any, args: argparse.Namespace, advance: Callable[[], None]) -> float:
    """Publishes ``args.steps`` steps at ``args.rate_hz``, a new goal every ``args.steps_per_goal`` steps;
    the last step's stamp."""
    from std_msgs.msg import String

    from llm_planner_interfaces.msg import PlanStep, SkillScore
    from llm_planner_ros.ros.topics import GOALS_TOPIC, SCORES_TOPIC

    goals = node.create_publisher(String, GOALS_TOPIC, 100)
    scores = node.create_publisher(PlanStep, SCORES_TOPIC, 100)
    candidates = [
        SkillScore(skill=f"candidate skill {i}", llm=-0.5 * i, affordance=0.9, pay=1.0, combined=0.9 * np.exp(-0.5 * i))
        for i in range(args.candidates)
    ]
    period = 1.0 / args.rate_hz
    start = time.monotonic()
    for number in range(args.steps):
        if number % args.steps_per_goal == 0:
            event = {"goal_id": uuid.uuid4().hex, "event": "started", "stamp": time.time(), "instruction": "a coke"}
            goals.publish(String(data=json.dumps({**event, "planner": "saycan"})))
        step = PlanStep(index=number % args.steps_per_goal, skill="candidate skill 0", candidates=candidates)
        now = time.time()
        step.stamp.sec, step.stamp.nanosec = int(now), int((now % 1) * 1e9)
        scores.publish(step)
        advance()
        time.sleep(max(0.0, start + (number + 1) * period - time.monotonic()))
    return now


def _open_page(stack: ExitStack, url: str) -> tuple[Any, str]:
    """The page in headless Chromium with the latency probe, closed with ``stack``; (None, why) where
    Chromium is missing."""
    from llm_planner_ros.operator_console.headless_browser import BrowserMissing, headless_chromium

    try:
        driver = stack.enter_context(headless_chromium())
    except BrowserMissing as error:
        return None, f"no page measured: {error}"
    driver.get(url)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while "live" not in driver.find_element("id", "connection").text and time.monotonic() < deadline:
        time.sleep(0.05)
    driver.execute_script(PAGE_PROBE)
    return driver, ""


def _page_watcher(driver: Any) -> Watcher:
    watcher = Watcher("page drawn (headless Chromium)")
    for key, latency in driver.execute_script("return window.stepLatencies"):
        watcher.latencies[key] = latency
    return watcher

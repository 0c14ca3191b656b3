"""`llm-planner console`: the operator console beside running graphs, here for two namespaced robots.

The test is the planners: it asks each robot's ``llm_planner/confirm`` as a planner does, and answers on
the console's API as the page does; each request must reach the robot it came from, and only that one.
"""

from __future__ import annotations

import json
import socket
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from console_browser import console_url
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan

pytestmark = [pytest.mark.graph, pytest.mark.timeout(120)]


def state(url: str) -> dict:
    with urllib.request.urlopen(url.split("?")[0] + "api/state", timeout=10) as reply:
        return json.loads(reply.read())


def answer(url: str, robot: int, request_id: int, approved: bool) -> int:
    body = json.dumps({"approved": approved, "reason": "", "operator": "cli"}).encode()
    request = urllib.request.Request(
        f"{url.split('?')[0]}api/robots/{robot}/approvals/{request_id}",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return reply.status


def test_console_serves_each_namespaced_robots_approvals(ros_graph: RosGraph) -> None:
    cli = str(Path(sys.executable).parent / "llm-planner")
    ros_graph.start_process([cli, "console", "--port", "0", "--robots", "robot1,robot2"], label="console")
    url = console_url(ros_graph)
    assert [robot["namespace"] for robot in state(url)["robots"]] == ["/robot1", "/robot2"]
    confirm = ros_graph.service_client(ConfirmPlan, "/robot2/llm_planner/confirm")
    assert ros_graph.service_client(ConfirmPlan, "/robot1/llm_planner/confirm") is not None
    step = PlanStep(index=0, skill="pick up the apple")
    request = ConfirmPlan.Request(instruction="bring me an apple", steps=[step])
    with ThreadPoolExecutor(1) as asking:
        reply = asking.submit(wait_future, confirm.call_async(request), 60, "the console's answer")

        def pending() -> dict | None:
            return state(url)["robots"][1]["pending"]

        wait_until(lambda: pending() is not None, 30, "robot2's step on the console")
        assert state(url)["robots"][0]["pending"] is None
        assert answer(url, 1, pending()["id"], True) == 200
        response = reply.result(timeout=60)
    assert response.approved and response.reason == "approved by cli@127.0.0.1"
    assert state(url)["robots"][1]["decision"]["skills"] == ["pick up the apple"]


def test_a_console_on_every_address_prints_and_publishes_one_a_browser_can_open(ros_graph: RosGraph) -> None:
    cli = str(Path(sys.executable).parent / "llm-planner")
    console = ros_graph.start_process([cli, "console", "--host", "0.0.0.0", "--port", "0"], label="console")
    url = console_url(ros_graph)
    # The machine's name (this test's machine resolves its own), never 0.0.0.0, which no other machine opens.
    assert urlsplit(url).hostname == socket.gethostname()
    token = parse_qs(urlsplit(url).query)["token"][0]
    with urllib.request.urlopen(f"{url.split('?')[0]}api/state?token={token}", timeout=10) as reply:
        assert reply.status == 200
    wait_until(lambda: f"operator console at {url} " in console.log(), 10, "the address in the console's output")

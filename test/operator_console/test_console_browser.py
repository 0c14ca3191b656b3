"""The operator console in a real browser against a running graph.

The sim graph runs with ``require_confirmation: true``, as the robot graph does, SayCan replaying a
recorded fetch; operator_console serves ``/llm_planner/confirm`` and two headless Chromium windows,
driven by Selenium, are the people watching it.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from action_msgs.msg import GoalStatus
from console_browser import browser, click, console_url, screenshot, start_console, text_of, wait_for_text
from replayed_planner_graph import FETCH_INSTRUCTION, confirming_fetch_graph, execute_instruction, load_scene
from ros_harness import RosGraph, wait_until
from selenium.webdriver.common.by import By

from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan

pytestmark = [pytest.mark.graph, pytest.mark.timeout(420)]


def executed(response: Any) -> list[tuple[str, int]]:
    return [(step.skill, step.status) for step in response.result.executed]


def api(url: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
    """A request to the console as a script would make it: (status, JSON answer)."""
    base = url.split("?")[0].rstrip("/")
    request = urllib.request.Request(
        base + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **({"X-Console-Token": token} if token else {})},
        method="GET" if body is None else "POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def confirming_graph(tmp_path: Path, confirm_timeout_s: float, **console: Any):
    """The replayed fetch with every step waiting for approval, and the console (``console`` parameters)."""
    consoles = []
    graph = confirming_fetch_graph(tmp_path, confirm_timeout_s, lambda g: consoles.append(start_console(g, **console)))
    return graph, consoles


def test_two_browsers_approve_and_refuse_steps_and_the_estop_stops_the_robot_and_latches(tmp_path: Path) -> None:
    graph_context, _ = confirming_graph(tmp_path, 120.0, approval_timeout_s=120.0)
    with graph_context as graph, browser() as ann, browser() as bo, ThreadPoolExecutor(1) as goals:
        url = console_url(graph)
        for person, name in ((ann, "ann"), (bo, "bo")):
            person.get(url)
            person.find_element(By.ID, "operator").send_keys(name)
            wait_for_text(person, "connection", "live")

        # Both see each step waiting; ann approves the first, bo the second, ann refuses the third.
        plan = goals.submit(execute_instruction, graph, FETCH_INSTRUCTION)
        for person in (ann, bo):
            wait_for_text(person, "pending-skill-0", "find a coke")
        screenshot(ann, "1-step-waiting-for-approval")
        click(ann, "approve-0")
        wait_for_text(bo, "pending-skill-0", "pick up the coke")
        wait_for_text(ann, "pending-skill-0", "pick up the coke")
        click(bo, "approve-0")
        wait_for_text(ann, "pending-skill-0", "bring it to you")
        ann.find_element(By.ID, "reason-0").send_keys("the coke is still warm")
        click(ann, "refuse-0")
        response = plan.result(timeout=240)
        assert response.status == GoalStatus.STATUS_ABORTED, response.result.message
        assert executed(response) == [
            ("find a coke", PlanStep.STATUS_SUCCEEDED),
            ("pick up the coke", PlanStep.STATUS_SUCCEEDED),
            ("bring it to you", PlanStep.STATUS_SKIPPED),
        ]
        assert "not approved: refused by ann@127.0.0.1: the coke is still warm" in response.result.message
        for person in (ann, bo):
            wait_for_text(person, "decision-0", "refused by ann@127.0.0.1: the coke is still warm")
            wait_for_text(person, "goal-0", "ended")

        # Read in one script: the page redraws the plan on every update, so elements found in one call
        # may be gone by the next.
        read_plan = (
            "return [...document.querySelectorAll('#steps-0 li.step')]"
            ".map((li) => [li.dataset.status, li.querySelectorAll('table.chart tbody tr').length]);"
        )
        plan_shown: list[list] = []

        def plan_drawn() -> bool:
            plan_shown[:] = ann.execute_script(read_plan)
            return [status for status, _ in plan_shown] == ["succeeded", "succeeded", "skipped"]

        wait_until(plan_drawn, 30, "the plan's statuses on the page")
        assert all(rows >= 2 for _, rows in plan_shown), plan_shown  # each step's candidate chart
        screenshot(bo, "2-third-step-refused")

        # The e-stop while a step waits: that step is refused, the robot stops where it is, later goals
        # end latched until the release.
        load_scene(graph, tmp_path)
        plan = goals.submit(execute_instruction, graph, FETCH_INSTRUCTION)
        wait_for_text(ann, "pending-skill-0", "find a coke")
        click(ann, "approve-0")
        wait_for_text(bo, "pending-skill-0", "pick up the coke")
        click(bo, "estop-0")
        response = plan.result(timeout=240)
        assert response.status == GoalStatus.STATUS_ABORTED, response.result.message
        assert executed(response)[0] == ("find a coke", PlanStep.STATUS_SUCCEEDED)
        assert executed(response)[1][0] == "pick up the coke"
        assert executed(response)[1][1] in (PlanStep.STATUS_SKIPPED, PlanStep.STATUS_CANCELED)
        assert len(executed(response)) == 2, executed(response)
        for person in (ann, bo):
            wait_for_text(person, "estop-state-0", "E-STOP ENGAGED")
        wait_for_text(ann, "robot-state-0", '"holding": null')  # the coke was never picked up
        screenshot(ann, "3-estop-engaged")
        latched = execute_instruction(graph, FETCH_INSTRUCTION)
        assert latched.status == GoalStatus.STATUS_ABORTED and executed(latched) == []
        assert "e-stop latched" in latched.result.message, latched.result.message
        wait_for_text(bo, "goal-0", "e-stop latched")
        click(ann, "release-0")
        for person in (ann, bo):
            wait_for_text(person, "estop-state-0", "e-stop released")
        log = text_of(bo, "log")
        for line in ("ann@127.0.0.1 / approved", "bo@127.0.0.1 / approved", "bo@127.0.0.1 / e-stop true published"):
            assert line in log, log


def test_a_console_killed_mid_plan_leaves_the_next_step_unapproved(tmp_path: Path) -> None:
    graph_context, consoles = confirming_graph(tmp_path, 5.0)
    with graph_context as graph, ThreadPoolExecutor(1) as goals:
        url = console_url(graph)
        plan = goals.submit(execute_instruction, graph, FETCH_INSTRUCTION)

        def waiting() -> bool:
            return api(url, "/api/state")[1]["robots"][0]["pending"] is not None

        wait_until(waiting, 60, "the first step to wait on the console")
        os.killpg(consoles[0].pid, signal.SIGKILL)  # no shutdown: the console dies
        response = plan.result(timeout=120)
        assert response.status == GoalStatus.STATUS_ABORTED
        assert executed(response) == [("find a coke", PlanStep.STATUS_SKIPPED)], response.result.message
        assert "not approved" in response.result.message, response.result.message
        load_scene(graph, tmp_path)
        again = execute_instruction(graph, FETCH_INSTRUCTION)
        # Whether the dead console is still listed (a killed process leaves the graph after the DDS lease)
        # or gone, nobody answers: the step is refused, and nothing moves.
        assert executed(again) == [("find a coke", PlanStep.STATUS_SKIPPED)], again.result.message
        assert "step 1 (find a coke) not approved" in again.result.message, again.result.message


def test_off_loopback_the_console_needs_its_token_in_the_browser_and_for_every_action(tmp_path: Path) -> None:
    graph_context, _ = confirming_graph(tmp_path, 30.0, host="0.0.0.0")
    with graph_context as graph, browser() as stranger, browser() as operator:
        url = console_url(graph)
        token = parse_qs(urlsplit(url).query)["token"][0]
        assert len(token) >= 20
        local = url  # the machine's name, not 0.0.0.0 (test_console_command.py)
        stranger.get(local.split("?")[0])
        wait_for_text(stranger, "notice", "needs its token")
        stranger.get(local.split("?")[0] + "?token=not-it")
        wait_for_text(stranger, "notice", "needs its token")
        assert api(local, "/api/robots/0/estop", {"engaged": True})[0] == 401
        assert api(local, "/api/robots/0/estop", {"engaged": True}, token="not-it")[0] == 401
        operator.get(local)
        wait_for_text(operator, "connection", "live")
        status, answer = api(local, "/api/robots/0/estop", {"engaged": False, "operator": "ann"}, token=token)
        assert status == 200, answer
        wait_for_text(operator, "refused", "missing or wrong console token")
        wait_for_text(operator, "estop-state-0", "e-stop released")
        screenshot(stranger, "4-without-the-token")


# Whether the page shows itself stale and every control on a robot is disabled (read in one script).
READ_STALE = (
    "const controls = [...document.querySelectorAll('#robots button, #robots input, #robots select')];"
    "return [document.body.classList.contains('stale'), controls.length > 0 && controls.every((c) => c.disabled),"
    " controls.some((c) => c.disabled)];"
)


def stale_within(person: Any, seconds: float) -> float:
    """Seconds until the page shows itself stale with every control disabled; fails after ``seconds``."""
    start = time.monotonic()
    wait_until(lambda: person.execute_script(READ_STALE)[:2] == [True, True], seconds, "the page to go stale")
    return time.monotonic() - start


def test_a_page_that_loses_its_console_goes_stale_and_disables_every_action_within_2_s(ros_graph: RosGraph) -> None:
    console = start_console(ros_graph, approval_timeout_s=120.0)
    confirm = ros_graph.service_client(ConfirmPlan, "/llm_planner/confirm")
    confirm.call_async(ConfirmPlan.Request(instruction="bring a coke", steps=[PlanStep(index=0, skill="find a coke")]))
    with browser() as person:
        person.get(console_url(ros_graph))
        wait_for_text(person, "pending-skill-0", "find a coke")
        wait_for_text(person, "connection", "live")
        assert person.execute_script(READ_STALE) == [False, False, False]
        os.killpg(console.pid, signal.SIGSTOP)  # a hung console (or network): the connection stays open, silent
        try:
            stale_within(person, 2.0)
            screenshot(person, "5-console-lost")
        finally:
            os.killpg(console.pid, signal.SIGCONT)
        wait_for_text(person, "connection", "live", timeout=10)
        assert person.execute_script(READ_STALE) == [False, False, False]
        os.killpg(console.pid, signal.SIGKILL)  # a dead console
        stale_within(person, 2.0)
        assert "stale" in text_of(person, "connection")


def test_the_robot_graphs_camera_and_scene_reach_the_page(tmp_path: Path) -> None:
    """The scene and robot state come from the simulator; the camera from any Image on the camera topic."""
    graph_context, _ = confirming_graph(tmp_path, 30.0)
    with graph_context as graph, browser() as person:
        publish_test_frame(graph)
        person.get(console_url(graph))
        wait_for_text(person, "scene-0", "coke_1")
        wait_for_text(person, "robot-state-0", '"at": "table"')

        def shown() -> bool:
            width = person.execute_script("return document.getElementById('camera-0').naturalWidth")
            return width == 64

        wait_until(shown, 30, "the camera frame on the page")


def publish_test_frame(graph: RosGraph) -> None:
    """A 64x48 rgb8 frame on camera/color/image_raw every 100 ms for the rest of the test."""
    from sensor_msgs.msg import Image

    publisher = graph.node.create_publisher(Image, "/camera/color/image_raw", 1)
    frame = Image(height=48, width=64, encoding="rgb8", step=64 * 3, data=bytes(range(256)) * 36)
    graph.node.create_timer(0.1, lambda: publisher.publish(frame))

"""The console's web application without ROS: who may act, how approvals are settled, what every browser
receives. The robot side is a recorder of the calls the page makes (the graph tests run the real node)."""

from __future__ import annotations

import json
import threading
import time

import pytest
from fastapi.testclient import TestClient

from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.operator_console.access import Access, ServedNames
from llm_planner_ros.operator_console.approvals import CLOSED, Answer, ApprovalDesk
from llm_planner_ros.operator_console.board import LOG_LENGTH, ConsoleBoard
from llm_planner_ros.operator_console.web_app import MAX_BODY_BYTES, ControlError, create_app
from llm_planner_ros.planning.decision import CandidateScore, StepRecord


class RecordedControls:
    """What the page asked the robot to do, in order; ``fail`` makes every control fail with that reason."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.fail = ""

    def _do(self, *call: object) -> str:
        if self.fail:
            raise ControlError(self.fail)
        self.calls.append(call)
        return f"did {call[0]}"

    def send_instruction(self, robot: int, text: str, planner: str, plan_only: bool) -> str:
        return self._do("instruction", robot, text, planner, plan_only)

    def cancel(self, robot: int) -> str:
        return self._do("cancel", robot)

    def estop(self, robot: int, engaged: bool) -> str:
        return self._do("estop", robot, engaged)

    def camera_jpeg(self, robot: int) -> bytes | None:
        return None


def step(skill: str) -> StepRecord:
    candidates = (
        CandidateScore(Skill(skill, "pick"), llm=-0.2, affordance=0.9, combined=0.74),
        CandidateScore(Skill("done", "terminate"), llm=-2.0, affordance=1.0, combined=0.14),
    )
    return StepRecord(0, Skill(skill, "pick"), candidates)


def console(token: str = "", timeout_s: float = 10.0, robots: int = 1, allowed_hosts: tuple[str, ...] = ()):
    """The application of a console bound to 127.0.0.1:8080, as a browser on this machine opens it."""
    access = Access(token)
    board = ConsoleBoard([f"/robot{i}" for i in range(robots)] if robots > 1 else [""], access.required)
    desk = ApprovalDesk(board, timeout_s)
    controls = RecordedControls()
    app = create_app(board, desk, controls, access, ServedNames.for_bind("127.0.0.1", allowed_hosts))
    return TestClient(app, base_url="http://127.0.0.1:8080"), board, desk, controls


def ask_in_background(desk: ApprovalDesk, robot: int = 0, skill: str = "pick up the coke") -> dict:
    """The planner's ConfirmPlan call (blocking) in a thread; the dict gets its answer."""
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.update(answer=desk.ask(robot, "bring a coke", [step(skill)])))
    thread.start()
    outcome["thread"] = thread
    return outcome


def pending_id(board: ConsoleBoard, robot: int = 0) -> int:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pending = board.snapshot()["robots"][robot]["pending"]
        if pending is not None:
            return int(pending["id"])
        time.sleep(0.01)
    raise AssertionError("no approval request reached the board")


def test_the_page_and_its_script_are_served() -> None:
    client, *_ = console()
    page = client.get("/")
    assert page.status_code == 200 and "operator console" in page.text
    assert "EventSource" in client.get("/static/console.js").text


def test_an_approval_answers_the_planner_with_the_person_and_shows_the_chart() -> None:
    client, board, desk, _ = console()
    outcome = ask_in_background(desk)
    request_id = pending_id(board)
    pending = board.snapshot()["robots"][0]["pending"]
    (chosen, done) = pending["steps"][0]["candidates"]
    assert chosen["skill"] == "pick up the coke" and chosen["llm"] == pytest.approx(0.8187, abs=1e-4)
    assert (chosen["affordance"], chosen["combined"]) == (0.9, 0.74)
    reply = client.post(f"/api/robots/0/approvals/{request_id}", json={"approved": True, "operator": "ann"})
    assert reply.status_code == 200, reply.text
    outcome["thread"].join(5)
    assert outcome["answer"] == Answer(True, "approved by ann@testclient")
    robot = board.snapshot()["robots"][0]
    assert robot["pending"] is None
    assert robot["decision"]["approved"] and robot["decision"]["skills"] == ["pick up the coke"]
    assert [entry["action"] for entry in board.snapshot()["log"]] == ["approved"]


def test_a_second_answer_to_the_same_step_is_refused_and_changes_nothing() -> None:
    client, board, desk, _ = console()
    outcome = ask_in_background(desk)
    request_id = pending_id(board)
    first = client.post(f"/api/robots/0/approvals/{request_id}", json={"approved": False, "reason": "too hot"})
    second = client.post(f"/api/robots/0/approvals/{request_id}", json={"approved": True})
    outcome["thread"].join(5)
    assert first.status_code == 200 and second.status_code == 409
    assert "no longer pending" in second.json()["detail"]
    assert outcome["answer"] == Answer(False, "refused by operator@testclient: too hot")


def test_an_unanswered_step_is_refused_when_its_time_runs_out_and_the_page_says_why() -> None:
    _, board, desk, _ = console(timeout_s=0.3)
    answer = desk.ask(0, "bring a coke", [step("pick up the coke")])
    assert answer == Answer(False, "no answer on the operator console in 0.3 s")
    snapshot = board.snapshot()
    assert snapshot["robots"][0]["decision"]["reason"] == answer.reason
    assert snapshot["log"][-1]["action"] == "timed out"


def test_the_estop_refuses_the_waiting_step_and_a_closed_console_refuses_everything() -> None:
    client, board, desk, controls = console()
    outcome = ask_in_background(desk)
    pending_id(board)
    assert client.post("/api/robots/0/estop", json={"engaged": True, "operator": "bo"}).status_code == 200
    outcome["thread"].join(5)
    assert outcome["answer"] == Answer(False, "e-stop pressed by bo@testclient")
    assert controls.calls == [("estop", 0, True)]
    later = ask_in_background(desk)
    pending_id(board)
    desk.close()
    later["thread"].join(5)
    assert later["answer"] == Answer(False, CLOSED)
    assert desk.ask(0, "bring a coke", [step("pick up the coke")]) == Answer(False, CLOSED)


def test_with_a_token_every_request_needs_it_and_refusals_are_logged() -> None:
    client, board, _, controls = console(token="s3cret")
    assert client.get("/api/state").status_code == 401
    assert client.post("/api/robots/0/estop", json={"engaged": True}).status_code == 401
    wrong = client.post("/api/robots/0/cancel", json={}, headers={"X-Console-Token": "guess"})
    assert wrong.status_code == 401 and controls.calls == []
    right = client.post("/api/robots/0/cancel", json={"operator": "ann"}, headers={"X-Console-Token": "s3cret"})
    assert right.status_code == 200 and controls.calls == [("cancel", 0)]
    snapshot = client.get("/api/state?token=s3cret").json()
    assert [(entry["action"], entry["detail"]) for entry in snapshot["log"]] == [("cancel", "did cancel")]
    assert [entry["action"] for entry in snapshot["refused"]] == [
        "GET /api/state",
        "POST /api/robots/0/estop",
        "POST /api/robots/0/cancel",
    ]


def test_a_bind_other_machines_reach_gets_a_token_and_loopback_none() -> None:
    assert not Access.for_bind("127.0.0.1", "").required and not Access.for_bind("::1", "").required
    assert not Access.for_bind("localhost", "").required
    for host in ("0.0.0.0", "192.168.1.20", "robot.local"):
        access = Access.for_bind(host, "")
        assert access.required and len(access.token) >= 20
    assert Access.for_bind("127.0.0.1", "mine").token == "mine"


def test_instructions_go_to_the_robot_asked_and_a_failed_control_is_reported() -> None:
    client, board, _, controls = console(robots=2)
    reply = client.post("/api/robots/1/instruction", json={"text": "bring a coke", "planner": "saycan"})
    assert reply.status_code == 200
    assert controls.calls == [("instruction", 1, "bring a coke", "saycan", False)]
    assert client.post("/api/robots/2/cancel", json={}).status_code == 404
    assert client.post("/api/robots/0/instruction", json={"text": ""}).status_code == 422
    controls.fail = "no planner serves /robot0/llm_planner/execute_instruction: is the graph up?"
    failed = client.post("/api/robots/0/cancel", json={})
    assert failed.status_code == 503 and failed.json()["detail"] == controls.fail
    assert board.snapshot()["log"][-1]["action"] == "cancel failed"


def test_the_event_stream_starts_with_the_current_state() -> None:
    client, board, _, _ = console()
    board.change(0, lambda robot: setattr(robot, "estop", True))
    with client.stream("GET", "/api/events") as stream:
        line = next(line for line in stream.iter_lines() if line.startswith("data: "))
    snapshot = json.loads(line.removeprefix("data: "))
    assert snapshot["version"] == 1 and snapshot["robots"][0]["estop"] is True


def test_a_foreign_host_name_is_refused_even_on_a_loopback_console_without_a_token() -> None:
    """DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 sends its own name."""
    client, board, _, controls = console(allowed_hosts=("robot.example",))
    rebound = {"Host": "evil.example:8080"}
    assert client.get("/api/state", headers=rebound).status_code == 403
    assert client.get("/", headers=rebound).status_code == 403
    refused = client.post("/api/robots/0/estop", json={"engaged": False}, headers=rebound)
    assert refused.status_code == 403 and "allowed_hosts" in refused.json()["detail"]
    cross_site = client.post("/api/robots/0/cancel", json={}, headers={"Origin": "http://localhost:3000"})
    assert cross_site.status_code == 403
    for host in ("localhost:8080", "[::1]:8080", "ROBOT.example"):
        assert client.get("/api/state", headers={"Host": host}).status_code == 200, host
    assert controls.calls == [] and board.snapshot()["log"] == []


def test_a_body_over_the_limit_is_refused_whether_declared_or_chunked() -> None:
    """The real server's memory under a large body: test_console_boundary.py."""
    client, _, _, controls = console()
    declared = client.post(
        "/api/robots/0/instruction",
        content=b"x" * 100,
        headers={"Content-Length": str(200_000_000), "Content-Type": "application/json"},
    )
    assert declared.status_code == 413

    def chunked():  # no Content-Length: the body is counted as it arrives
        for _ in range(MAX_BODY_BYTES // 1024 + 2):
            yield b" " * 1024

    streamed = client.post("/api/robots/0/instruction", content=chunked(), headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413 and controls.calls == []
    fits = client.post("/api/robots/0/instruction", json={"text": "bring a coke " * 150})
    assert fits.status_code == 200 and controls.calls == [("instruction", 0, "bring a coke " * 150, "", False)]


def test_a_flood_of_refused_requests_is_rate_limited_and_never_pushes_an_operators_action_out() -> None:
    client, board, desk, _ = console(token="s3cret")
    outcome = ask_in_background(desk)
    request_id = pending_id(board)
    approved = client.post(
        f"/api/robots/0/approvals/{request_id}",
        json={"approved": True, "operator": "ann"},
        headers={"X-Console-Token": "s3cret"},
    )
    assert approved.status_code == 200
    outcome["thread"].join(5)
    for _ in range(2 * LOG_LENGTH):
        assert client.post("/api/robots/0/estop", json={"engaged": False}).status_code == 401
    snapshot = board.snapshot()
    assert [(entry["who"], entry["action"]) for entry in snapshot["log"]] == [("ann@testclient", "approved")]
    assert len(snapshot["refused"]) == 10

"""The operator console's web application (FastAPI): the page, its live state, and the operator's actions.

Reading: ``GET /`` is the page; ``GET /api/state`` the board's snapshot; ``GET /api/events`` a
server-sent-event stream that sends the snapshot at once and again after every change (and a comment
every ``KEEP_ALIVE_S`` so proxies keep it open); ``GET /api/robots/{i}/camera.jpg`` the robot's latest
camera frame. Acting: ``POST /api/robots/{i}/instruction``, ``.../approvals/{id}``, ``.../cancel`` and
``.../estop`` (engaging it also refuses the step waiting for approval). When the console has a token,
every ``/api`` request needs it (header ``X-Console-Token`` or query ``token``; the event stream can only
use the query); without it the answer is 401 and the refusal is logged. Every action is logged on the
board with who (the name typed on the page, and the client's address) and when. The application never
dispatches a skill: the controls it is given send goals to the planner, cancel them, and publish the
e-stop.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Protocol

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import FileResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from llm_planner_ros.operator_console.access import Access
from llm_planner_ros.operator_console.approvals import ApprovalDesk
from llm_planner_ros.operator_console.board import ConsoleBoard

STATIC = Path(__file__).with_name("static")
KEEP_ALIVE_S = 15.0
TOKEN_HEADER = "X-Console-Token"


class RobotControls(Protocol):
    """What the console may do to a robot (the node implements it over ROS). Each returns a line for the
    page and the log; ``ControlError`` when it could not be done."""

    def send_instruction(self, robot: int, text: str, planner: str, plan_only: bool) -> str: ...

    def cancel(self, robot: int) -> str: ...

    def estop(self, robot: int, engaged: bool) -> str: ...

    def camera_jpeg(self, robot: int) -> bytes | None: ...


class ControlError(RuntimeError):
    """A control that could not be carried out (no planner server, ...): the page shows the message."""


class Operator(BaseModel):
    """Every acting request's body: the name the operator typed on the page (logged with the address)."""

    operator: str = Field(default="", max_length=64)


class Instruction(Operator):
    """An instruction for the robot's planner: its method ("" for the configured one), and plan-only."""

    text: str = Field(min_length=1, max_length=2000)
    planner: str = Field(default="", max_length=64)
    plan_only: bool = False


class Approval(Operator):
    """A person's answer to a pending step, with the reason for a refusal."""

    approved: bool
    reason: str = Field(default="", max_length=500)


class EStop(Operator):
    """Engage (true) or release (false) the robot's e-stop."""

    engaged: bool


def create_app(board: ConsoleBoard, desk: ApprovalDesk, controls: RobotControls, access: Access) -> FastAPI:
    """The console's application over ``board``, answering approvals through ``desk`` and acting through
    ``controls``, with ``access`` deciding who may use it."""
    app = FastAPI(title="llm_planner operator console", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def who(request: Request, body: Operator | None) -> str:
        name = (body.operator.strip() if body is not None else "") or "operator"
        host = request.client.host if request.client else "?"
        return f"{name}@{host}"

    def check(request: Request, robot: int | None, action: str, body: Operator | None = None) -> str:
        given = request.headers.get(TOKEN_HEADER) or request.query_params.get("token")
        person = who(request, body)
        if not access.allows(given):
            if action:
                board.log(person, f"refused {action}", robot, "missing or wrong console token")
            raise HTTPException(401, "this console needs its token: open the address it printed at start")
        if robot is not None and not 0 <= robot < board.robot_count:
            raise HTTPException(404, f"no robot {robot}: the console serves robots 0 to {board.robot_count - 1}")
        return person

    def act(person: str, action: str, robot: int, control: Callable[[], str]) -> dict[str, str]:
        try:
            message = control()
        except ControlError as error:
            board.log(person, f"{action} failed", robot, str(error))
            raise HTTPException(503, str(error)) from error
        board.log(person, action, robot, message)
        return {"message": message}

    @app.get("/")
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/state")
    def state(request: Request) -> dict:
        check(request, None, "")
        return board.snapshot()

    @app.get("/api/events")
    async def events(request: Request) -> StreamingResponse:
        check(request, None, "")

        async def stream() -> AsyncIterator[str]:
            version = -1
            while not await request.is_disconnected():
                current = await board.wait_changed(version, KEEP_ALIVE_S)
                if current == version:
                    yield ": keep-alive\n\n"
                    continue
                snapshot = board.snapshot()
                version = snapshot["version"]
                yield f"data: {json.dumps(snapshot)}\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    @app.get("/api/robots/{robot}/camera.jpg")
    def camera(robot: int, request: Request) -> Response:
        check(request, robot, "")
        frame = controls.camera_jpeg(robot)
        if frame is None:
            raise HTTPException(404, "no camera frame has arrived for this robot yet")
        return Response(frame, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.post("/api/robots/{robot}/instruction")
    def instruction(robot: int, body: Instruction, request: Request) -> dict[str, str]:
        person = check(request, robot, "instruction", body)
        mode = " (plan only)" if body.plan_only else ""
        return act(
            person,
            f"instruction{mode}: {body.text!r}",
            robot,
            lambda: controls.send_instruction(robot, body.text, body.planner, body.plan_only),
        )

    @app.post("/api/robots/{robot}/approvals/{request_id}")
    def approval(robot: int, request_id: int, body: Approval, request: Request) -> dict[str, str]:
        action = "approve" if body.approved else "refuse"
        person = check(request, robot, action, body)
        problem = desk.answer(robot, request_id, body.approved, body.reason.strip(), person)
        if problem is not None:
            board.log(person, f"{action} not taken", robot, problem)
            raise HTTPException(409, problem)
        board.log(person, "approved" if body.approved else "refused", robot, body.reason.strip())
        return {"message": "approved" if body.approved else "refused"}

    @app.post("/api/robots/{robot}/cancel")
    def cancel(robot: int, body: Operator, request: Request) -> dict[str, str]:
        person = check(request, robot, "cancel", body)
        return act(person, "cancel", robot, lambda: controls.cancel(robot))

    @app.post("/api/robots/{robot}/estop")
    def estop(robot: int, body: EStop, request: Request) -> dict[str, str]:
        action = "e-stop" if body.engaged else "e-stop release"
        person = check(request, robot, action, body)
        if body.engaged:  # a step waiting for approval must not start once the e-stop is pressed
            desk.refuse_pending(robot, f"e-stop pressed by {person}", person)
        return act(person, action, robot, lambda: controls.estop(robot, body.engaged))

    return app

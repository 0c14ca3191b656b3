"""The operator console's web application (FastAPI): the page, its live state, and the operator's actions.

Reading: ``GET /`` is the page; ``GET /api/state`` the board's snapshot; ``GET /api/events`` a
server-sent-event stream that sends the snapshot at once and again after every change (and a comment
every ``KEEP_ALIVE_S`` so proxies keep it open); ``GET /api/robots/{i}/camera.jpg`` the robot's latest
camera frame. Acting: ``POST /api/robots/{i}/instruction``, ``.../approvals/{id}``, ``.../cancel`` and
``.../estop`` (engaging it also refuses the step waiting for approval).

Every request first passes ``ConsoleGate``, before a byte of its body is read: a Host header (and an
Origin, when sent) the console does not answer to gets 403 (DNS rebinding); when the console has a token,
an ``/api`` request without it (header ``X-Console-Token`` or query ``token``; the event stream can only
use the query) gets 401; a body over ``MAX_BODY_BYTES`` gets 413 (its Content-Length, or counted as a
chunked one arrives). Those refusals are recorded apart from the operators' actions, rate-limited. Every
action is logged on the board with who (the name typed on the page, and the client's address) and when.
The event stream sends an ``alive`` event every ``KEEP_ALIVE_S`` between snapshots, by which the page
knows it is still connected. The application never dispatches a skill: the controls it is given send
goals to the planner, cancel them, and publish the e-stop.
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
from starlette.datastructures import Headers, QueryParams
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from llm_planner_ros.operator_console.access import Access, ServedNames
from llm_planner_ros.operator_console.approvals import ApprovalDesk
from llm_planner_ros.operator_console.board import ConsoleBoard

STATIC = Path(__file__).with_name("static")
KEEP_ALIVE_S = 0.5  # the page shows itself stale after 1.5 s without an event (static/console.js)
TOKEN_HEADER = "X-Console-Token"
MAX_BODY_BYTES = 16 * 1024  # the largest acting request (a 2000-character instruction) is far smaller
TOKEN_NEEDED = "this console needs its token: open the address it printed at start"


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


class ConsoleGate:
    """ASGI middleware that refuses, from the request line and headers alone, what no handler may see:
    a foreign Host or Origin (403), an ``/api`` request without the token (401), a body over
    ``MAX_BODY_BYTES`` (413). A body is read, bounded, only after the rest passed; a refused request's
    connection is closed so its unread body is never received."""

    def __init__(self, app: ASGIApp, board: ConsoleBoard, access: Access, names: ServedNames) -> None:
        self.app, self.board, self.access, self.names = app, board, access, names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self._problem(scope)
        if problem is not None:
            await self._refuse(scope, send, *problem)
            return
        if scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        body = await _bounded_body(receive)
        if body is None:
            await self._refuse(scope, send, 413, f"a request body is limited to {MAX_BODY_BYTES} bytes")
            return
        await self.app(scope, _replay(body), send)

    async def _refuse(self, scope: Scope, send: Send, status: int, detail: str) -> None:
        """Records the refusal (rate-limited, apart from the operators' actions) and answers it."""
        client = scope.get("client")
        self.board.refused(f"?@{client[0] if client else '?'}", f"{scope['method']} {scope['path']}", detail)
        await _refuse(send, status, detail)

    def _problem(self, scope: Scope) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        server = scope.get("server")
        host = headers.get("host")
        if not self.names.allows(host, server[0] if server else None):
            return 403, (
                f"this console does not answer to the host name {host!r} (a page of another site?): open it "
                "at the address it printed, or add the name to the operator_console parameter allowed_hosts"
            )
        origin = headers.get("origin")
        if origin is not None and origin.split("://", 1)[-1].lower() != (host or "").lower():
            return 403, f"requests from pages of {origin!r} are refused: use the console's own page"
        if scope["path"].startswith("/api"):
            given = headers.get(TOKEN_HEADER) or QueryParams(scope["query_string"]).get("token")
            if not self.access.allows(given):
                return 401, f"{TOKEN_NEEDED} (missing or wrong console token)"
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return 413, f"a request body is limited to {MAX_BODY_BYTES} bytes (Content-Length {length})"
        return None


async def _refuse(send: Send, status: int, detail: str) -> None:
    """A JSON refusal (``detail``, as FastAPI's errors) that also closes the connection."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*headers, (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


async def _bounded_body(receive: Receive) -> bytes | None:
    """The request's body, or None as soon as it passes ``MAX_BODY_BYTES`` (a chunked body has no
    Content-Length to check first)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    """A ``receive`` that hands the application the body already read, then waits as a live one would."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def create_app(
    board: ConsoleBoard, desk: ApprovalDesk, controls: RobotControls, access: Access, names: ServedNames
) -> FastAPI:
    """The console's application over ``board``, answering approvals through ``desk`` and acting through
    ``controls``, with ``access`` deciding who may use it and ``names`` under which host names."""
    app = FastAPI(title="llm_planner operator console", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(ConsoleGate, board=board, access=access, names=names)

    def who(request: Request, body: Operator | None) -> str:
        name = (body.operator.strip() if body is not None else "") or "operator"
        host = request.client.host if request.client else "?"
        return f"{name}@{host}"

    def check(request: Request, robot: int | None, body: Operator | None = None) -> str:
        """The person acting (their name and address); 404 for a robot the console does not serve.
        Who may act at all was decided by ConsoleGate."""
        person = who(request, body)
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
    def state() -> dict:
        return board.snapshot()

    @app.get("/api/events")
    async def events(request: Request) -> StreamingResponse:
        async def stream() -> AsyncIterator[str]:
            version = -1
            while not await request.is_disconnected():
                current = await board.wait_changed(version, KEEP_ALIVE_S)
                if current == version:  # an event the page sees (a comment it would not), so it knows it is live
                    yield f"event: alive\ndata: {version}\n\n"
                    continue
                snapshot = board.snapshot()
                version = snapshot["version"]
                yield f"data: {json.dumps(snapshot)}\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    @app.get("/api/robots/{robot}/camera.jpg")
    def camera(robot: int, request: Request) -> Response:
        check(request, robot)
        frame = controls.camera_jpeg(robot)
        if frame is None:
            raise HTTPException(404, "no camera frame has arrived for this robot yet")
        return Response(frame, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.post("/api/robots/{robot}/instruction")
    def instruction(robot: int, body: Instruction, request: Request) -> dict[str, str]:
        person = check(request, robot, body)
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
        person = check(request, robot, body)
        problem = desk.answer(robot, request_id, body.approved, body.reason.strip(), person)
        if problem is not None:
            board.log(person, f"{action} not taken", robot, problem)
            raise HTTPException(409, problem)
        board.log(person, "approved" if body.approved else "refused", robot, body.reason.strip())
        return {"message": "approved" if body.approved else "refused"}

    @app.post("/api/robots/{robot}/cancel")
    def cancel(robot: int, body: Operator, request: Request) -> dict[str, str]:
        person = check(request, robot, body)
        return act(person, "cancel", robot, lambda: controls.cancel(robot))

    @app.post("/api/robots/{robot}/estop")
    def estop(robot: int, body: EStop, request: Request) -> dict[str, str]:
        action = "e-stop" if body.engaged else "e-stop release"
        person = check(request, robot, body)
        if body.engaged:  # a step waiting for approval must not start once the e-stop is pressed
            desk.refuse_pending(robot, f"e-stop pressed by {person}", person)
        return act(person, action, robot, lambda: controls.estop(robot, body.engaged))

    return app

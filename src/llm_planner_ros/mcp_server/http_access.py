"""Who may reach ``llm-planner mcp`` over HTTP: the operator console's rules (operator_console.access).
A request must name the server by a name it answers to (the Host header: a page of another site whose
name was made to resolve here is refused), and, where a token is set (always off loopback), carry it as
``Authorization: Bearer <token>``. A refused request gets 403 or 401 with the reason and the fix, and is
reported to ``on_refused`` (the console's audit trail); it never reaches the MCP session.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from llm_planner_ros.operator_console.access import Access, ServedNames


class AgentAccess:
    """ASGI middleware in front of the SDK's streamable HTTP app."""

    def __init__(self, app: ASGIApp, access: Access, names: ServedNames, on_refused: Callable[[str], None]) -> None:
        self._app = app
        self._access = access
        self._names = names
        self._on_refused = on_refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        server = scope.get("server")
        local = server[0] if server else None
        host = headers.get("host")
        if not self._names.allows(host, local):
            reason = (
                f"forbidden: Host {host!r} is not a name this server answers to; use its address, or add the name "
                "with llm-planner mcp --allowed-host"
            )
            await self._refuse(send, 403, reason)
            return
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if not self._access.allows(token.strip() if scheme.lower() == "bearer" else None):
            reason = "unauthorized: send the server's token as 'Authorization: Bearer <token>' (printed at its start)"
            await self._refuse(send, 401, reason)
            return
        await self._app(scope, receive, send)

    async def _refuse(self, send: Send, status: int, reason: str) -> None:
        self._on_refused(reason)
        body = json.dumps({"error": reason}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

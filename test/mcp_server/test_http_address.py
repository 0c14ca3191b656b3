"""The address ``llm-planner mcp --http`` prints takes connections at once: an agent (or a test) reads it
and connects while the server may still be starting."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

# An ASGI app whose startup takes 2 s, served by the command's own serving function on a free port.
SERVER = """
import anyio
from llm_planner_ros.cli.mcp_command import _serve_http
from llm_planner_ros.operator_console.access import Access

async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        await receive()
        await anyio.sleep(2.0)
        await send({"type": "lifespan.startup.complete"})
        await receive()
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"served"})

anyio.run(_serve_http, app, "127.0.0.1", 0, Access(""))
"""


def test_the_printed_address_accepts_a_connection_made_before_the_server_finished_starting() -> None:
    server = subprocess.Popen([sys.executable, "-c", SERVER], stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        assert "serving http://127.0.0.1:" in line, line
        port = int(line.split("127.0.0.1:", 1)[1].split("/", 1)[0])
        began = time.monotonic()
        # At once, as an agent would: refused (ECONNREFUSED) if the socket did not listen yet.
        with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
            connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := connection.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 200") and b"served" in answer, answer
        # Answered once the startup ended: the connection waited in the queue, it was not served early.
        assert time.monotonic() - began > 1.0
    finally:
        server.kill()
        server.wait(timeout=10)

"""The console node's trust boundary, against the real server: the host names it answers to, what it
reads of a request it refuses, and the audit trail of who did what.

Requests are made as a script (or a hostile page) would make them, over a plain socket or http.client,
so the Host header and the body are exactly what the test says.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from console_browser import console_url, start_console
from ros_harness import RosGraph

pytestmark = [pytest.mark.graph, pytest.mark.timeout(120)]

HUGE_BODY = 200_000_000
CHUNK = b" " * (1 << 20)


def request(url: str, method: str, path: str, host: str | None = None, body: dict | None = None, token: str = ""):
    """(status, JSON answer) of one request to the console at ``url``, with this Host header."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {"Content-Type": "application/json", "Host": host or parts.netloc}
    if token:
        headers["X-Console-Token"] = token
    try:
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read() or b"{}")
    finally:
        connection.close()


def rss_kib(pid: int) -> int:
    """The process's resident memory (VmRSS, KiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS in /proc/{pid}/status")


def post_huge_body(url: str) -> tuple[str, int]:
    """POSTs a declared 200 MB body without the token, sending it for as long as the server takes it;
    (the answer's status line, how many body bytes were sent before the server closed the connection)."""
    parts = urlsplit(url)
    sent = 0
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        head = (
            f"POST /api/robots/0/instruction HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {HUGE_BODY}\r\n\r\n"
        )
        sock.sendall(head.encode())

        def send_body() -> None:
            nonlocal sent
            try:
                while sent < HUGE_BODY:
                    sent += sock.send(CHUNK)
            except OSError:  # the server closed the connection: what it refused is not sent
                pass

        sender = threading.Thread(target=send_body)
        sender.start()
        answer = b""
        while b"\r\n" not in answer:
            data = sock.recv(4096)
            if not data:
                break
            answer += data
        sender.join(30)
        assert not sender.is_alive(), "the body was still being sent 30 s after the answer"
    return answer.split(b"\r\n", 1)[0].decode(), sent


def test_a_200_mb_post_without_the_token_is_refused_before_its_body_is_read(ros_graph: RosGraph) -> None:
    console = start_console(ros_graph, token="s3cret")
    url = console_url(ros_graph)
    assert request(url, "GET", "/api/state", token="s3cret")[0] == 200  # warmed up: the baseline is its memory
    before = rss_kib(console.pid)
    status_line, sent = post_huge_body(url)
    grown_mib = (rss_kib(console.pid) - before) / 1024
    assert status_line == "HTTP/1.1 401 Unauthorized"
    # What the kernel's socket buffers take on loopback, not the 200 MB: the server closed the connection.
    assert sent < 32 * 2**20 and grown_mib < 20, (sent, grown_mib)


def test_a_console_answers_only_to_its_own_and_the_allowed_host_names(ros_graph: RosGraph) -> None:
    start_console(ros_graph, allowed_hosts=["robot.example"])
    url = console_url(ros_graph)
    assert urlsplit(url).hostname == "127.0.0.1"
    rebound = request(url, "POST", "/api/robots/0/estop", host="evil.example:8080", body={"engaged": False})
    assert rebound[0] == 403 and "allowed_hosts" in rebound[1]["detail"]
    assert request(url, "GET", "/api/state", host="robot.example")[0] == 200


def test_every_action_and_the_rate_limited_refusals_reach_the_audit_file_and_the_nodes_log(
    ros_graph: RosGraph, tmp_path: Path
) -> None:
    folder = tmp_path / "audit"
    console = start_console(ros_graph, token="s3cret", audit_folder=str(folder))
    url = console_url(ros_graph)
    release = {"engaged": False, "operator": "ann"}
    assert request(url, "POST", "/api/robots/0/estop", body=release, token="s3cret")[0] == 200
    for _ in range(50):
        assert request(url, "POST", "/api/robots/0/estop", body={"engaged": False})[0] == 401
    log = request(url, "GET", "/api/state", token="s3cret")[1]["log"]
    assert [(entry["who"], entry["action"]) for entry in log] == [("ann@127.0.0.1", "e-stop release")]
    assert console.stop() == 0
    (path,) = folder.glob("console-*.jsonl")
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(entry["kind"], entry["who"], entry["action"]) for entry in entries] == [
        ("console", "console", "started"),
        ("action", "ann@127.0.0.1", "e-stop release"),
        *[("refused request", "?@127.0.0.1", "POST /api/robots/0/estop")] * 10,
        ("refused request", "console", "left out"),
    ]
    assert entries[-1]["detail"] == "40 refused requests were not logged (rate limit)"
    assert "console [/]: ann@127.0.0.1 e-stop release: false published on /llm_planner/stop" in console.log()

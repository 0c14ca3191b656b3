"""The console's address is published only once a browser can connect to it.

The web server runs in its own thread; the node publishes the page's address as soon as it is built.
Here that thread is held back (as on a loaded machine) and a client connects meanwhile: the socket must
already listen, so the connection waits in the backlog instead of being refused (ECONNREFUSED), which
is how `llm-planner console` once failed a CI run.
"""

from __future__ import annotations

import socket
import threading

import pytest
import rclpy
import uvicorn
from ros_harness import allocate_domain_id, wait_until

from llm_planner_ros.nodes.operator_console_node import OperatorConsoleNode


def test_a_client_connects_before_the_server_thread_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    ports: list[int] = []
    original_run = uvicorn.Server.run

    def held_back_run(server: uvicorn.Server, sockets: list[socket.socket]) -> None:
        ports.append(sockets[0].getsockname()[1])
        release.wait(30)
        original_run(server, sockets=sockets)

    monkeypatch.setattr(uvicorn.Server, "run", held_back_run)
    rclpy.init(args=["--ros-args", "-p", "port:=0"], domain_id=allocate_domain_id())
    try:
        node = OperatorConsoleNode()
        try:
            wait_until(lambda: bool(ports), 10, "the server thread")
            with socket.create_connection(("127.0.0.1", ports[0]), timeout=5):
                pass
        finally:
            release.set()
            node.close()
            node.destroy_node()
    finally:
        rclpy.shutdown()

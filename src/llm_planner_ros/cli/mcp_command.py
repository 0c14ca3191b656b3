"""``llm-planner mcp``: an MCP server (docs/mcp.md) that lets agents ask running robots through their
planners, behind the gates a person uses, over stdio (the default: an MCP client starts this command) or
streamable HTTP (``--http HOST:PORT``, with a token off loopback and a Host check).

Over stdio, standard output carries the protocol only: everything this command says goes to standard error.
"""

from __future__ import annotations

import argparse
import socket
import sys
import time

import anyio

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.mcp_server.http_access import AgentAccess
from llm_planner_ros.mcp_server.limits import (
    CALLS_PER_MINUTE,
    MAX_INSTRUCTION_CHARS,
    QUEUE_WAIT_S,
    AgentLimits,
)
from llm_planner_ros.mcp_server.robot_link import RobotLinks
from llm_planner_ros.mcp_server.tools import AgentGateway, build_server
from llm_planner_ros.operator_console.access import Access, ServedNames, browser_host
from llm_planner_ros.operator_console.audit import RefusalLimiter
from llm_planner_ros.options import finite_float

MCP_PATH = "/mcp"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP on this address (port 0: any free port) instead of stdio",
    )
    parser.add_argument("--token", default="", help="bearer token HTTP requests need (default: random off loopback)")
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name clients may reach the HTTP server by (a Host header); repeatable",
    )
    parser.add_argument(
        "--robots",
        default="",
        metavar="NS[,NS...]",
        help="namespaces of the robots to serve, e.g. robot1,robot2 (default: the graph without a namespace)",
    )
    parser.add_argument("--domain", metavar="DIR", help="the graph's domain folder (default: the SayCan kitchen)")
    parser.add_argument(
        "--max-instruction-chars",
        type=int,
        default=MAX_INSTRUCTION_CHARS,
        help=f"longest instruction accepted (default {MAX_INSTRUCTION_CHARS})",
    )
    parser.add_argument(
        "--calls-per-minute",
        type=int,
        default=CALLS_PER_MINUTE,
        help=f"calls each client may make in any minute (default {CALLS_PER_MINUTE})",
    )
    parser.add_argument(
        "--queue",
        action="store_true",
        help="a goal for a busy robot waits for it (up to --queue-wait) instead of being refused",
    )
    parser.add_argument("--queue-wait", type=finite_float, default=QUEUE_WAIT_S, help="seconds a queued goal waits")


def _address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise InputError(f"--http {value!r} is not HOST:PORT (e.g. 127.0.0.1:8765; port 0 for any free port)")
    return host.strip("[]"), int(port)


def run(args: argparse.Namespace) -> int:
    if args.max_instruction_chars < 1 or args.calls_per_minute < 1:
        raise InputError("--max-instruction-chars and --calls-per-minute must be at least 1")
    limits = AgentLimits(args.max_instruction_chars, args.calls_per_minute, args.queue, args.queue_wait)
    kitchen = load_domain(args.domain) if args.domain else load_domain_files()
    namespaces = [f"/{name.strip().strip('/')}" for name in args.robots.split(",") if name.strip()] or [""]
    links = RobotLinks(namespaces, kitchen)
    try:
        gateway = AgentGateway(links.robots, kitchen, limits)
        server = build_server(gateway)
        if args.http is None:
            print(f"llm-planner mcp: serving {', '.join(links.robots)} over stdio", file=sys.stderr)
            server.run("stdio")
            return 0
        host, port = _address(args.http)
        access = Access.for_bind(host, args.token)
        limiter = RefusalLimiter()

        def refused(reason: str) -> None:
            if limiter.admit(time.monotonic()) is not None:
                for link in links.robots.values():
                    link.audit({"who": "mcp (http)", "action": "request", "detail": reason, "kind": "refused request"})

        app = AgentAccess(
            server.streamable_http_app(streamable_http_path=MCP_PATH, host=host),
            access,
            ServedNames.for_bind(host, args.allowed_host),
            refused,
        )
        anyio.run(_serve_http, app, host, port, access)
        return 0
    finally:
        links.close()


async def _serve_http(app: AgentAccess, host: str, port: int, access: Access) -> None:
    import uvicorn  # only the HTTP transport needs it

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    # Listening before the address is printed: a client that reads it and connects at once is queued until
    # uvicorn accepts (a bound socket that does not listen yet refuses the connection).
    sock.listen(config.backlog)
    bound = sock.getsockname()[1]
    token = f" (token: {access.token})" if access.required else ""
    print(f"llm-planner mcp: serving http://{browser_host(host)}:{bound}{MCP_PATH}{token}", file=sys.stderr, flush=True)
    await uvicorn.Server(config).serve(sockets=[sock])

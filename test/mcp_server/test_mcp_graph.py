"""``llm-planner mcp`` against a running symbolic graph, with the MCP SDK's own client over stdio and HTTP.

SayCan plans the coke fetch in planner from a replayed recording (test/support/replayed_planner_graph.py).
The agent reaches the robot only through the planner's action: the planner's gates apply unchanged (a
person approves each step with ``require_confirmation``; the e-stop latches), and every call lands in the
operator console's audit trail and every goal, with its requester, in the recorder's bag.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import yaml
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, Implementation
from replayed_planner_graph import FETCH_INSTRUCTION, confirming_fetch_graph, fetch_graph, load_scene, start_watchers
from ros_harness import NodeProcess, RosGraph, wait_until

from llm_planner_interfaces.srv import ConfirmPlan

pytestmark = pytest.mark.graph

LLM_PLANNER = str(Path(sys.executable).parent / "llm-planner")
TOOLS = {"plan_and_execute", "plan", "status", "cancel", "emergency_stop"}
PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]
TOKEN = "s3cret-token"


def agent(name: str) -> Implementation:
    return Implementation(name=name, version="1.0")


def stdio_client(graph: RosGraph, name: str) -> Client:
    """The SDK's client starting ``llm-planner mcp`` over stdio in the graph's ROS domain."""
    return Client(StdioServerParameters(command=LLM_PLANNER, args=["mcp"], env=graph.env), client_info=agent(name))


def text(result: CallToolResult) -> str:
    return "\n".join(getattr(part, "text", "") for part in result.content)


async def read(client: Client, uri: str) -> str:
    return (await client.read_resource(uri)).contents[0].text  # type: ignore[union-attr]


class Progress:
    """The progress notifications of one call, in order."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.messages.append(message or "")


def audit_entries(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in folder.glob("console-*.jsonl") for line in path.read_text().splitlines()]


def goal_events_in_bag(bag: Path) -> list[dict[str, Any]]:
    info = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    with (bag / info["relative_file_paths"][0]).open("rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        return [
            json.loads(message.data)
            for _s, channel, _m, message in reader.iter_decoded_messages()
            if channel.topic == "/llm_planner/goals"
        ]


@pytest.mark.timeout(420)
def test_an_agent_over_stdio_reads_the_robot_plans_and_fetches_and_is_audited_and_recorded(tmp_path: Path) -> None:
    audit, bag, started = tmp_path / "audit", tmp_path / "bag", []
    with fetch_graph(tmp_path, start_more=lambda graph: started.append(start_watchers(graph, audit, bag))) as graph:
        # Both watchers up before the agent calls: the minute below is for delivery, not for a console that a
        # loaded machine is still starting (a fresh-clone run timed out so).
        graph.ping("plan_recorder", timeout=180.0)
        graph.ping("operator_console", timeout=180.0)

        async def use() -> None:
            async with stdio_client(graph, "test-agent") as client:
                assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
                resources = {str(resource.uri) for resource in (await client.list_resources()).resources}
                assert resources == {"llm-planner://domain", "llm-planner://robot/scene", "llm-planner://robot/plans"}
                domain = json.loads(await read(client, "llm-planner://domain"))
                assert "find a coke" in domain["skills"] and "far counter" in domain["places"]
                assert "coke" in domain["labels"]
                assert "far counter: coke (coke_1)" in await read(client, "llm-planner://robot/scene")

                planned = await client.call_tool("plan", {"instruction": FETCH_INSTRUCTION})
                assert not planned.is_error, text(planned)
                assert [f"{i + 1}. {skill}: succeeded" in text(planned) for i, skill in enumerate(PLAN)] == [True] * 5
                assert "far counter: coke (coke_1)" in await read(client, "llm-planner://robot/scene"), "plan moved it"

                progress = Progress()
                done = await client.call_tool(
                    "plan_and_execute", {"instruction": FETCH_INSTRUCTION}, progress_callback=progress
                )
                assert not done.is_error, text(done)
                assert text(done).startswith("done")
                assert "4. put down the coke: succeeded" in text(done)
                running = [m for m in progress.messages if m.startswith("step 2 (pick up the coke): running")]
                assert running and "candidate skill" in running[0] and "affordance" in running[0], progress.messages
                assert "user: coke (coke_1)" in await read(client, "llm-planner://robot/scene")
                plans = json.loads(await read(client, "llm-planner://robot/plans"))
                assert plans[-1]["requester"] == "mcp:test-agent" and plans[-1]["event"] == "ended", plans
                assert [plan["plan_only"] for plan in plans[-2:]] == [True, False]
                held = await client.call_tool("plan_and_execute", {"instruction": "Never mind."})
                assert not held.is_error and text(held).startswith("nothing_to_do"), text(held)
                assert text(held).endswith("no skill was executed")
                status = text(await client.call_tool("status", {}))
                assert "goal: none running" in status and "user: coke (coke_1)" in status

                def audited() -> bool:
                    calls = {(e["who"], e["action"]) for e in audit_entries(audit)}
                    wanted = {"plan", "plan_and_execute", "plan_and_execute ended", "status"}
                    return {("mcp:test-agent", action) for action in wanted} <= calls

                # The console shows the calls as they are made (here, within a minute on a loaded machine).
                try:
                    await wait_async(audited, "the agent's calls in the console's audit trail", 60.0)
                except TimeoutError:
                    trail = [(e["who"], e["action"]) for e in audit_entries(audit)]
                    raise AssertionError(f"audit trail after 60 s: {trail}\n{graph.logs()}") from None

        anyio.run(use)
        assert started[0].stop() == 0, started[0].log()
    requested = [e for e in goal_events_in_bag(bag) if e["event"] == "started"]
    assert [(e["requester"], e["plan_only"]) for e in requested] == [
        ("mcp:test-agent", True),
        ("mcp:test-agent", False),
        ("mcp:test-agent", False),
    ]


@pytest.mark.timeout(240)
def test_with_require_confirmation_the_agent_waits_for_a_person_and_reads_the_refusal(tmp_path: Path) -> None:
    asked: list[str] = []

    def person(graph: RosGraph) -> None:
        def answer(request: ConfirmPlan.Request, response: ConfirmPlan.Response) -> ConfirmPlan.Response:
            asked.append(request.steps[0].skill)
            response.approved = len(asked) == 1
            response.reason = "approved" if response.approved else "not while I am on the phone"
            return response

        graph.node.create_service(ConfirmPlan, "/llm_planner/confirm", answer)

    with confirming_fetch_graph(tmp_path, 60.0, person) as graph:

        async def use() -> None:
            async with stdio_client(graph, "desk-agent") as client:
                progress = Progress()
                result = await client.call_tool(
                    "plan_and_execute", {"instruction": FETCH_INSTRUCTION}, progress_callback=progress
                )
                assert result.is_error
                assert "step 2 (pick up the coke) not approved: not while I am on the phone" in text(result)
                assert "1. find a coke: succeeded" in text(result)
                waiting = [m for m in progress.messages if "is waiting for approval by a person" in m]
                assert [m.split(")")[0] for m in waiting] == ["step 1 (find a coke", "step 2 (pick up the coke"]

        anyio.run(use)
    assert asked == ["find a coke", "pick up the coke"]


@asynccontextmanager
async def http_client(url: str, name: str, token: str = TOKEN) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0)) as http:
        async with Client(streamable_http_client(url, http_client=http), client_info=agent(name)) as client:
            yield client


def start_http(graph: RosGraph, *options: str) -> tuple[NodeProcess, str]:
    """``llm-planner mcp --http`` on a free loopback port with TOKEN; the process and its URL."""
    argv = [LLM_PLANNER, "mcp", "--http", "127.0.0.1:0", "--token", TOKEN, *options]
    process = graph.start_process(argv, label="mcp")
    wait_until(lambda: "serving http://" in process.log(), 60, "the MCP server's address")
    url = process.log().split("serving ", 1)[1].split(" ", 1)[0].strip()
    return process, url


@pytest.mark.timeout(300)
def test_over_http_bad_requests_are_refused_a_goal_is_canceled_and_the_estop_stops_one_and_latches(
    tmp_path: Path,
) -> None:
    # time_scale 1: "find a coke" takes about 9 s, time for a second agent to find the robot busy.
    with fetch_graph(tmp_path, time_scale=1.0) as graph:
        process, url = start_http(graph, "--max-instruction-chars", "60")
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        with httpx2.Client(timeout=30.0) as http:
            missing = http.post(url, json=ping, headers=accept)
            wrong = http.post(url, json=ping, headers={**accept, "Authorization": "Bearer guess"})
            forged = http.post(
                url, json=ping, headers={**accept, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example:80"}
            )
        assert missing.status_code == 401 and "Authorization: Bearer <token>" in missing.json()["error"]
        assert wrong.status_code == 401
        assert forged.status_code == 403 and "'evil.example:80' is not a name this server answers to" in forged.text

        async def use() -> None:
            async with http_client(url, "first-agent") as first, http_client(url, "second-agent") as second:
                assert {tool.name for tool in (await first.list_tools()).tools} == TOOLS
                long = await first.call_tool("plan", {"instruction": "bring me " + "a coke and " * 10})
                assert long.is_error and "more than this server's limit of 60" in text(long)

                async def fetch_while(act: Callable[[], Awaitable[None]]) -> CallToolResult:
                    """The first agent's fetch, ``act`` done once its first step runs; the fetch's result."""
                    progress, outcome = Progress(), []

                    async def fetch() -> None:
                        call = first.call_tool(
                            "plan_and_execute", {"instruction": FETCH_INSTRUCTION}, progress_callback=progress
                        )
                        outcome.append(await call)

                    async with anyio.create_task_group() as calls:
                        calls.start_soon(fetch)
                        await wait_async(lambda: any("find a coke): running" in m for m in progress.messages), "step 1")
                        await act()
                    return outcome[0]

                async def cancel() -> None:
                    canceled = await second.call_tool("cancel", {})
                    assert not canceled.is_error and text(canceled) == "cancel requested", text(canceled)

                ended = await fetch_while(cancel)
                assert ended.is_error and "tool plan_and_execute: canceled" in text(ended), text(ended)
                await anyio.to_thread.run_sync(load_scene, graph, tmp_path)

                # An agent that gives up on its call (the SDK cancels the request) leaves no goal running.
                async def last_plan() -> dict[str, Any]:
                    return json.loads(await read(second, "llm-planner://robot/plans"))[-1]

                earlier, progress = (await last_plan())["goal_id"], Progress()
                async with anyio.create_task_group() as calls:
                    request = {"instruction": FETCH_INSTRUCTION}
                    calls.start_soon(lambda: first.call_tool("plan_and_execute", request, progress_callback=progress))
                    await wait_async(lambda: any("find a coke): running" in m for m in progress.messages), "step 1")
                    calls.cancel_scope.cancel()
                with anyio.fail_after(60):
                    while (plan := await last_plan())["goal_id"] == earlier or plan["event"] != "ended":
                        await anyio.sleep(0.2)
                assert plan["reason"] == "canceled" and plan["requester"] == "mcp:first-agent", plan
                await anyio.to_thread.run_sync(load_scene, graph, tmp_path)

                async def find_busy_then_stop() -> None:
                    busy = await second.call_tool("plan_and_execute", {"instruction": "Bring me an apple."})
                    assert busy.is_error and "is busy with 'Bring me the coke, please.'" in text(busy), text(busy)
                    assert "(sent by mcp:first-agent)" in text(busy)
                    stopped = await second.call_tool("emergency_stop", {})
                    assert not stopped.is_error and "e-stop engaged on /llm_planner/stop" in text(stopped)

                stopped = await fetch_while(find_busy_then_stop)
                assert stopped.is_error and "tool plan_and_execute: canceled: e-stop" in text(stopped), text(stopped)
                assert "1. find a coke: canceled" in text(stopped)
                assert "e-stop: engaged" in text(await second.call_tool("status", {}))
                latched = await first.call_tool("plan_and_execute", {"instruction": FETCH_INSTRUCTION})
                assert latched.is_error and "e-stop latched" in text(latched), text(latched)

        anyio.run(use)
        assert process.returncode is None, process.log()


async def wait_async(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.05)


@pytest.mark.timeout(120)
def test_namespaced_robots_each_have_their_resources_and_must_be_named(ros_graph: RosGraph) -> None:
    server = StdioServerParameters(command=LLM_PLANNER, args=["mcp", "--robots", "robot1,robot2"], env=ros_graph.env)

    async def use() -> None:
        async with Client(server, client_info=agent("fleet-agent")) as client:
            resources = {str(resource.uri) for resource in (await client.list_resources()).resources}
            assert {"llm-planner://robot/robot1/scene", "llm-planner://robot/robot2/plans"} <= resources
            unnamed = await client.call_tool("status", {})
            assert (
                unnamed.is_error
                and "name the robot (argument robot): this server serves ['/robot1', '/robot2']" in text(unnamed)
            )
            unknown = await client.call_tool("plan", {"instruction": "Bring me a coke.", "robot": "robot9"})
            assert unknown.is_error and "no robot robot9" in text(unknown)
            down = await client.call_tool("plan", {"instruction": "Bring me a coke.", "robot": "robot1"})
            assert down.is_error and "no planner serves /robot1/llm_planner/execute_instruction" in text(down)

    anyio.run(use)

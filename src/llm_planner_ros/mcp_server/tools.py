"""The MCP tools and resources of ``llm-planner mcp`` (docs/mcp.md), on the official MCP Python SDK.

Tools: ``plan_and_execute`` and ``plan`` send the instruction to the robot's planner as one
ExecuteInstruction goal (progress: one notification per step, its candidate table); ``status``;
``cancel`` (this server's goal); ``emergency_stop`` (engage only). Resources: the domain's skills, places
and labels, and per robot its current scene and its last plans. Nothing else of the graph is reachable.

Outcomes: a plan that ends ``done`` is the tool's result; one that ends ``nothing_to_do`` too (nothing was
needed, and nothing was done); every other ending (refused, missing, not approved, canceled, a failure or
an error) and every refusal of this server (limits, a busy robot, an unknown robot) is a tool error whose
text says why. Every call, refused or not, goes to the console's audit trail with the client's name.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.mcp_server.limits import AgentLimits, AgentRefusal, CallRate, GoalSlots
from llm_planner_ros.mcp_server.robot_link import GoalOutcome, RobotLink, RobotUnavailable
from llm_planner_ros.planning.decision import StepRecord, StepStatus
from llm_planner_ros.visualization.score_table import step_text

GOAL_TIMEOUT_S = 900.0
INSTRUCTIONS = (
    "Asks a robot to carry out a spoken-style instruction. The robot's planner grounds each step in the "
    "robot's skills and what it can do now, and applies its own gates: requests that need nothing done, "
    "are unsafe or beyond its skills are held back; a person may have to approve each step. Read the "
    "domain resource for what the robot can do; use plan to see a plan without moving the robot."
)


def client_name(ctx: Context) -> str:
    """The calling client's name from its MCP handshake (``unnamed client`` without one), as the audit
    trail and the goal's ``requester`` show it."""
    params = ctx.session.client_params
    name = params.client_info.name if params is not None and params.client_info is not None else ""
    return f"mcp:{name or 'unnamed client'}"


class AgentGateway:
    """The robots as agents reach them: the limits, then the robot's planner, each call audited."""

    def __init__(self, robots: Mapping[str, RobotLink], kitchen: Domain, limits: AgentLimits) -> None:
        self.robots = dict(robots)
        self.kitchen = kitchen
        self.limits = limits
        self._rate = CallRate(limits.calls_per_minute)
        self._slots = GoalSlots(limits)

    def robot(self, name: str) -> RobotLink:
        """The robot named ``name`` (its namespace; empty: the only one); AgentRefusal naming those served."""
        if not name and len(self.robots) == 1:
            return next(iter(self.robots.values()))
        if not name:
            raise AgentRefusal(f"refused: name the robot (argument robot): this server serves {sorted(self.robots)}")
        key = name if name.startswith("/") else f"/{name}"
        if key not in self.robots:
            raise AgentRefusal(f"refused: no robot {name}: this server serves {sorted(self.robots)}")
        return self.robots[key]

    def admit(self, ctx: Context, action: str, robot: str, detail: str) -> tuple[str, RobotLink]:
        """The client's name and the robot, once the call names a served robot and passes the rate limit;
        audited either way (a call naming no served robot in every robot's trail)."""
        who = client_name(ctx)
        try:
            link = self.robot(robot)
        except AgentRefusal as refusal:
            for each in self.robots.values():
                each.audit({"who": who, "action": action, "detail": str(refusal), "kind": "refused request"})
            raise ToolError(str(refusal)) from refusal
        try:
            self._rate.admit(who)
        except AgentRefusal as refusal:
            raise self.refuse(who, link, action, refusal) from refusal
        link.audit({"who": who, "action": action, "detail": detail, "kind": "agent"})
        return who, link

    def refuse(self, who: str, link: RobotLink, action: str, refusal: Exception) -> ToolError:
        """The tool error of a refused call, audited."""
        link.audit({"who": who, "action": action, "detail": str(refusal), "kind": "refused request"})
        return ToolError(str(refusal))

    async def run_goal(
        self, ctx: Context, action: str, instruction: str, planner: str, robot: str, plan_only: bool
    ) -> str:
        who, link = self.admit(ctx, action, robot, instruction[:200])
        try:
            text = self.limits.check_instruction(instruction)
            running = link.running_goal()
            if running is not None and not self.limits.queue:
                by = f" (sent by {running['requester']})" if running.get("requester") else ""
                raise AgentRefusal(
                    f"refused: robot {link.name} is busy with {running.get('instruction', '')!r}{by}: one goal at "
                    "a time per robot; wait for it to end (status)"
                )
            await asyncio.to_thread(self._slots.take, link.name, repr(text))
        except AgentRefusal as refusal:
            raise self.refuse(who, link, action, refusal) from refusal
        try:
            outcome = await self._follow(ctx, link, text, planner, plan_only, who)
        finally:
            self._slots.release(link.name)
        link.audit({"who": who, "action": f"{action} ended", "detail": outcome.message, "kind": "agent"})
        report = outcome_text(outcome)
        if not outcome.served:
            raise ToolError(report)
        return report

    async def _follow(
        self, ctx: Context, link: RobotLink, text: str, planner: str, plan_only: bool, who: str
    ) -> GoalOutcome:
        """Send the goal from a worker thread and turn each step the planner reports into a progress
        notification; a call the client cancels cancels the goal."""
        loop = asyncio.get_running_loop()
        steps: asyncio.Queue[StepRecord] = asyncio.Queue()

        def on_step(record: StepRecord) -> None:
            loop.call_soon_threadsafe(steps.put_nowait, record)

        sending = asyncio.ensure_future(
            asyncio.to_thread(link.send, text, planner, plan_only, who, on_step, GOAL_TIMEOUT_S)
        )
        reported = 0
        try:
            while True:
                next_step = asyncio.ensure_future(steps.get())
                await asyncio.wait({sending, next_step}, return_when=asyncio.FIRST_COMPLETED)
                if not next_step.done():
                    next_step.cancel()
                    break
                reported += 1
                await ctx.report_progress(reported, None, progress_text(next_step.result(), plan_only))
            while not steps.empty():
                reported += 1
                await ctx.report_progress(reported, None, progress_text(steps.get_nowait(), plan_only))
            return sending.result()
        except RobotUnavailable as unavailable:
            raise ToolError(str(unavailable)) from unavailable
        except asyncio.CancelledError:
            # The client canceled its call: the goal goes too. Shielded, or the cancellation that ended the
            # call would end this await at once (anyio re-raises it at every await of a canceled scope).
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(link.cancel)
            raise


def progress_text(record: StepRecord, plan_only: bool) -> str:
    """A step as the agent reads it: what happens to it now, then its candidate table."""
    if record.status == StepStatus.PLANNED and not plan_only:
        head = (
            f"step {record.index + 1} ({record.skill.text}) is waiting for approval by a person "
            "(the operator console or llm-planner confirm)"
        )
    else:
        head = f"step {record.index + 1} ({record.skill.text}): {record.status.name.lower()}"
    return f"{head}\n{step_text(record)}"


def outcome_text(outcome: GoalOutcome) -> str:
    """The result an agent reads: how the plan ended and each executed step with its outcome."""
    lines = [outcome.message or f"ended with goal status {outcome.status}"]
    for step in outcome.steps:
        note = f" ({step.message})" if step.message else ""
        lines.append(f"{step.index + 1}. {step.skill.text}: {step.status.name.lower()}{note}")
    if not outcome.steps:
        lines.append("no skill was executed")
    return "\n".join(lines)


def domain_description(kitchen: Domain) -> str:
    """The domain as JSON: its places, object labels and skill templates (what the robot can be asked)."""
    config = kitchen.config
    skills = [skill.text for skill in kitchen.library.skills(with_drawer=config.drawer is not None)]
    return json.dumps(
        {"places": list(config.places(with_drawer=True)), "labels": list(config.labels), "skills": skills}, indent=1
    )


def build_server(gateway: AgentGateway) -> MCPServer:
    """The MCP server over ``gateway``: the five tools and the resources, nothing else."""
    server = MCPServer("llm-planner", instructions=INSTRUCTIONS)

    @server.tool()
    async def plan_and_execute(instruction: str, ctx: Context, planner: str = "", robot: str = "") -> str:
        """Plan and carry out an instruction on the robot, step by step (progress: each step's candidate
        table). planner: saycan (default), saycanpay, progprompt, zero_shot or llm_planner; robot: its
        namespace (empty: the only one). Ends with the plan's outcome; a refusal is an error with the reason."""
        return await gateway.run_goal(ctx, "plan_and_execute", instruction, planner, robot, plan_only=False)

    @server.tool()
    async def plan(instruction: str, ctx: Context, planner: str = "", robot: str = "") -> str:
        """Plan an instruction against simulated effects without moving the robot: the steps it would take."""
        return await gateway.run_goal(ctx, "plan", instruction, planner, robot, plan_only=True)

    @server.tool()
    async def status(ctx: Context, robot: str = "") -> str:
        """The robot's running goal (if any), its e-stop and its current scene."""
        _, link = gateway.admit(ctx, "status", robot, "")
        return await asyncio.to_thread(status_text, link)

    @server.tool()
    async def cancel(ctx: Context, robot: str = "") -> str:
        """Cancel the goal this server sent to the robot (the robot stops the running skill)."""
        who, link = gateway.admit(ctx, "cancel", robot, "")
        try:
            answer = await asyncio.to_thread(link.cancel)
        except RobotUnavailable as unavailable:
            raise gateway.refuse(who, link, "cancel", unavailable) from unavailable
        if answer is None:
            raise gateway.refuse(who, link, "cancel", AgentRefusal(f"no goal of this server runs on {link.name}"))
        return answer

    @server.tool()
    async def emergency_stop(ctx: Context, robot: str = "") -> str:
        """Engage the robot's e-stop: the running skill is canceled and later goals refused. Only a person
        releases it (the operator console, or false on the stop topic)."""
        who, link = gateway.admit(ctx, "emergency_stop", robot, "")
        try:
            return await asyncio.to_thread(link.engage_estop)
        except RobotUnavailable as unavailable:
            raise gateway.refuse(who, link, "emergency_stop", unavailable) from unavailable

    @server.resource("llm-planner://domain", name="domain", mime_type="application/json")
    def domain() -> str:
        """The domain's places, object labels and skills: what the robot can be asked to do."""
        return domain_description(gateway.kitchen)

    for link in gateway.robots.values():
        _add_robot_resources(server, link)
    return server


def _add_robot_resources(server: MCPServer, link: RobotLink) -> None:
    base = f"llm-planner://robot{link.name.rstrip('/')}"

    @server.resource(f"{base}/scene", name=f"scene of {link.name}", mime_type="text/plain")
    async def scene() -> str:
        """The robot's current scene: where it is, what it holds, what is where."""
        return await asyncio.to_thread(link.scene)

    @server.resource(f"{base}/plans", name=f"last plans of {link.name}", mime_type="application/json")
    def plans() -> str:
        """The robot's last goals as its planner reported them (from anyone): instruction, who asked,
        how each ended."""
        return json.dumps(link.recent_goals(), indent=1)


def status_text(link: RobotLink) -> str:
    running = link.running_goal()
    estop = {None: "unknown (nothing seen on the stop topic yet)", True: "engaged", False: "released"}
    lines = [
        f"robot {link.name}",
        f"goal: {running.get('instruction')!r} running" if running is not None else "goal: none running",
        f"e-stop: {estop[link.estop_engaged]}",
        "scene:",
        link.scene(),
    ]
    return "\n".join(lines)

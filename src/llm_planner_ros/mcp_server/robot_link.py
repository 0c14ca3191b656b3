"""The ROS side of ``llm-planner mcp``: one private rclpy context and node, and per robot (a namespace) the
planner's ExecuteInstruction action, its e-stop topic, its goal events and its state topics.

Nothing here dispatches a skill, approves a step or releases the e-stop: a goal goes to the planner, which
applies its own gates (request check, hold back, ``allowed_skills``, ``require_confirmation``) unchanged.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import rclpy
from action_msgs.msg import GoalStatus
from rclpy.action.client import ClientGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.context import Context
from rclpy.executors import MultiThreadedExecutor
from std_msgs.msg import Bool, String

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.mcp_server.audit_channel import AuditChannel
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.planning.plan_loop import request_served
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.conversions import record_from_msg
from llm_planner_ros.ros.futures import WaitTimeout, wait_for
from llm_planner_ros.ros.planner_state_topics import planner_state_topics
from llm_planner_ros.ros.topic_state_provider import TopicStateProvider
from llm_planner_ros.ros.topics import (
    AUDIT_TOPIC,
    EVENTS_QOS,
    EXECUTE_INSTRUCTION_ACTION,
    GOALS_TOPIC,
    PLANNER_NODE,
    STOP_TOPIC,
)

SERVER_WAIT_S = 10.0
ANSWER_WAIT_S = 10.0
STATE_WAIT_S = 5.0  # how long a read waits for a first state (the state topics are latched)
RECENT_GOALS = 10
# At exit, how long the audit entries wait for the console to take them (a stdio server lives as long as its
# client's session, which can end before the console's subscription has matched this process).
AUDIT_FLUSH_S = 1.5  # within the 2 s an MCP client grants a stdio server to exit after closing its input


class RobotUnavailable(Exception):
    """The robot's planner (or its e-stop listener) is not reachable; the message says which name."""


@dataclass
class GoalOutcome:
    """How a goal sent by an agent ended: the action's status, the result (``message`` begins with how
    the plan ended: ``done``, ``nothing_to_do``, ``refused``, ``missing``, ...) and the executed steps."""

    status: int
    success: bool
    message: str
    steps: list[StepRecord] = field(default_factory=list)

    @property
    def served(self) -> bool:
        return request_served(self.success, self.message)


def robot_name(namespace: str) -> str:
    """How agents name a robot: its namespace (``/robot1``), ``/`` for the graph without one."""
    return namespace or "/"


class RobotLink:
    """One robot's planner as agents reach it. ``send`` blocks (call it from a worker thread); the other
    methods answer at once from what the subscriptions last received."""

    def __init__(self, node: rclpy.node.Node, namespace: str, kitchen: Domain) -> None:
        self.name = robot_name(namespace)
        self._node = node
        self._namespace = namespace
        self._kitchen = kitchen
        group = ReentrantCallbackGroup()

        def topic(relative: str) -> str:
            return f"{namespace}/{relative}"

        self.action = topic(EXECUTE_INSTRUCTION_ACTION)
        self.stop_topic = topic(STOP_TOPIC)
        self._client = RaceFreeActionClient(node, ExecuteInstruction, self.action, callback_group=group)
        self._stop = node.create_publisher(Bool, self.stop_topic, 10)
        self._audit = AuditChannel(node, topic(AUDIT_TOPIC))
        # The state topics are the planner's (ros.planner_state_topics), asked on the first read: this server
        # can start before the graph.
        self._state: TopicStateProvider | None = None
        self._state_lock = threading.Lock()
        self._lock = threading.Lock()
        self._goals: deque[dict[str, Any]] = deque(maxlen=RECENT_GOALS)
        self._estop: bool | None = None
        self._handle: ClientGoalHandle | None = None
        node.create_subscription(String, topic(GOALS_TOPIC), self._on_goal_event, EVENTS_QOS, callback_group=group)
        node.create_subscription(Bool, self.stop_topic, self._on_stop, 10, callback_group=group)

    # ----- goals -------------------------------------------------------------------------------------------
    def send(
        self,
        instruction: str,
        planner: str,
        plan_only: bool,
        requester: str,
        on_step: Callable[[StepRecord], None],
        timeout_s: float,
    ) -> GoalOutcome:
        """Send one goal and wait for its result; ``on_step`` sees each step as the planner reports it.
        RobotUnavailable when no planner serves the action; a goal still running after ``timeout_s`` is
        canceled and reported as such."""
        if not self._client.wait_for_server(timeout_sec=SERVER_WAIT_S):
            raise RobotUnavailable(f"no planner serves {self.action}: is the graph up (llm-planner up)?")
        goal = ExecuteInstruction.Goal(
            instruction=instruction, planner=planner, plan_only=plan_only, requester=requester
        )
        sent = self._client.send_goal_async(
            goal, feedback_callback=lambda message: on_step(record_from_msg(message.feedback.current))
        )
        try:
            handle = wait_for(sent, ANSWER_WAIT_S, f"{self.action} goal response")
        except WaitTimeout as timeout:
            raise RobotUnavailable(str(timeout)) from timeout
        if not handle.accepted:
            return GoalOutcome(GoalStatus.STATUS_ABORTED, False, "refused: the planner rejected the goal")
        with self._lock:
            self._handle = handle
        try:
            response = wait_for(handle.get_result_async(), timeout_s, f"{self.action} result")
        except WaitTimeout:
            self.cancel()
            message = f"canceled: no result within {timeout_s:.0f} s; the goal was canceled"
            return GoalOutcome(GoalStatus.STATUS_CANCELED, False, message)
        finally:
            with self._lock:
                self._handle = None
        executed = [record_from_msg(step) for step in response.result.executed]
        return GoalOutcome(response.status, response.result.success, response.result.message, executed)

    def cancel(self) -> str | None:
        """Cancel the goal this server sent to the robot; None when none of its goals runs."""
        with self._lock:
            handle = self._handle
        if handle is None:
            return None
        try:
            answer = wait_for(handle.cancel_goal_async(), ANSWER_WAIT_S, f"{self.action} cancel")
        except WaitTimeout as timeout:
            raise RobotUnavailable(str(timeout)) from timeout
        return "cancel requested" if answer.goals_canceling else "the goal had already ended"

    def engage_estop(self) -> str:
        """Publish true on the robot's stop topic once the planner listens on it. Release is not offered:
        it stays with a person (the console, or false on the topic)."""
        deadline = time.monotonic() + SERVER_WAIT_S
        while self._stop.get_subscription_count() == 0:
            if time.monotonic() > deadline:
                raise RobotUnavailable(f"no planner listens on {self.stop_topic}: is the graph up?")
            time.sleep(0.05)
        self._stop.publish(Bool(data=True))
        return (
            f"e-stop engaged on {self.stop_topic}: the running skill is canceled and, where the planner latches "
            "it, later goals are refused until a person releases it (the console, or false on the topic)"
        )

    # ----- what the robot reports --------------------------------------------------------------------------
    def running_goal(self) -> dict[str, Any] | None:
        """The goal the planner reports started and not ended (from anyone), or None."""
        with self._lock:
            last = self._goals[-1] if self._goals else None
        return last if last is not None and last.get("event") == "started" else None

    def recent_goals(self) -> list[dict[str, Any]]:
        """The last RECENT_GOALS goals the planner reported, oldest first: each its start merged with its end."""
        with self._lock:
            return list(self._goals)

    @property
    def estop_engaged(self) -> bool | None:
        """The last value seen on the stop topic (None: none since this server started)."""
        return self._estop

    def scene(self) -> str:
        """The robot's current scene as text, waiting up to STATE_WAIT_S for a first state."""
        with self._state_lock:
            if self._state is None:
                topics = planner_state_topics(self._node, f"{self._namespace}/{PLANNER_NODE}").under(self._namespace)
                if not topics.answered:
                    # Asked again on the next read: the planner may come up after this server.
                    return f"no state yet: the robot's state topics are unknown, {topics.source}"
                self._state = TopicStateProvider(
                    self._node, self._kitchen, topics.scene_topic, topics.robot_state_topic, topics.match_stamps
                )
        world = self._state.wait(STATE_WAIT_S)
        return world.summary() if world is not None else f"no state yet from {self._state.describe()}"

    def audit(self, entry: dict[str, Any]) -> None:
        """One entry of the console's audit trail (who, action, detail, kind)."""
        self._audit.publish(entry)

    def flush_audit(self, deadline: float) -> None:
        """Before this process ends: wait (until the monotonic ``deadline``) for a console to take every
        audit entry."""
        self._audit.flush(deadline)

    def _on_goal_event(self, msg: String) -> None:
        try:
            event = json.loads(msg.data)
        except json.JSONDecodeError:
            return
        with self._lock:
            started = next((g for g in self._goals if g.get("goal_id") == event.get("goal_id")), None)
            if started is None:
                self._goals.append(event)
            else:
                started.update({**event, "stamp": started.get("stamp")})

    def _on_stop(self, msg: Bool) -> None:
        self._estop = bool(msg.data)


class RobotLinks:
    """The private context, node and executor, and a ``RobotLink`` per namespace; ``close()`` ends them."""

    def __init__(self, namespaces: Sequence[str], kitchen: Domain) -> None:
        self._context = Context()
        rclpy.init(context=self._context)
        self._node = rclpy.create_node("llm_planner_mcp", context=self._context)
        self.robots = {robot_name(ns): RobotLink(self._node, ns, kitchen) for ns in namespaces}
        self._executor = MultiThreadedExecutor(num_threads=4, context=self._context)
        self._executor.add_node(self._node)
        self._spin = threading.Thread(target=self._executor.spin, daemon=True)
        self._spin.start()

    def close(self) -> None:
        deadline = time.monotonic() + AUDIT_FLUSH_S
        for link in self.robots.values():
            link.flush_audit(deadline)
        self._executor.shutdown(timeout_sec=5)
        self._spin.join(timeout=5)
        self._node.destroy_node()
        rclpy.shutdown(context=self._context)

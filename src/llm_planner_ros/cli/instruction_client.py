"""Sends one instruction to ``llm_planner/execute_instruction`` (in ``namespace``) and shows the plan as it unfolds.

Used by ``llm-planner demo`` and ``llm-planner run``: each step's candidate table is printed when the
step ends (and shown live while it runs); the final world state comes from the same topics the
affordance servers read.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import rclpy
from action_msgs.msg import GoalStatus
from rclpy.action.client import ClientGoalHandle
from rclpy.context import Context
from rclpy.executors import MultiThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.task import Future
from rich.console import Console
from rich.live import Live
from std_msgs.msg import Bool

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_ros.cli.interrupts import interrupts_deferred
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.decision import StepRecord, StepStatus
from llm_planner_ros.planning.plan_loop import ending_of, request_served
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.conversions import record_from_msg
from llm_planner_ros.ros.futures import WaitTimeout, wait_for
from llm_planner_ros.ros.planner_state_topics import planner_state_topics
from llm_planner_ros.ros.state_provider import Stamp
from llm_planner_ros.ros.topic_state_provider import TopicStateProvider
from llm_planner_ros.ros.topics import EXECUTE_INSTRUCTION_ACTION, LLM_READY_TOPIC
from llm_planner_ros.visualization.score_table import step_table

CANCEL_WAIT_S = 5.0
# The symbolic simulator republishes its state every second, a physics simulator faster.
FINAL_STATE_WAIT_S = 5.0
PLANNER_CANCELS = "the planner cancels the goal itself once this client is gone (client_grace_s)"


@dataclass
class InstructionOutcome:
    """What came back: goal status, the result message, the executed steps, the final world (None if no
    state arrived) and the wall time of the goal."""

    status: int
    success: bool
    message: str
    steps: list[StepRecord] = field(default_factory=list)
    world: World | None = None
    wall_s: float = 0.0

    @property
    def ending(self) -> str:
        return ending_of(self.message)

    @property
    def served(self) -> bool:
        return request_served(self.success, self.message)

    @property
    def status_name(self) -> str:
        names = {
            GoalStatus.STATUS_SUCCEEDED: "succeeded",
            GoalStatus.STATUS_ABORTED: "aborted",
            GoalStatus.STATUS_CANCELED: "canceled",
        }
        return names.get(self.status, f"status {self.status}")


class InstructionClient:
    """A private rclpy context and node, in ``namespace`` (that of the graph it talks to), with the action
    client and the state listeners.

    Lifecycle: construct, ``wait_ready(timeout)`` (False when the planner never appeared),
    ``send(...)`` as often as needed, ``close()``. The final state is read as the planner reads it: from
    the topics, and paired the way, its own parameters say (``ros.planner_state_topics``).
    """

    def __init__(self, kitchen: Domain, console: Console, namespace: str = "") -> None:
        self._console = console
        self._kitchen = kitchen
        self._context = Context()
        rclpy.init(context=self._context)
        self.node = rclpy.create_node("llm_planner_cli", namespace=namespace or None, context=self._context)
        self.action = self.node.resolve_topic_name(EXECUTE_INSTRUCTION_ACTION)
        self._client = RaceFreeActionClient(self.node, ExecuteInstruction, self.action)
        self._state: TopicStateProvider | None = None  # once the planner answered (wait_ready)
        # llm_service latches true on llm/ready once its model is loaded and warmed up.
        self._llm_ready = threading.Event()
        latched = QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
        )
        self.node.create_subscription(Bool, LLM_READY_TOPIC, lambda m: m.data and self._llm_ready.set(), latched)
        self._executor = MultiThreadedExecutor(num_threads=3, context=self._context)
        self._executor.add_node(self.node)
        self._spin = threading.Thread(target=self._executor.spin, daemon=True)
        self._spin.start()

    def wait_ready(self, timeout_s: float) -> bool:
        """True once the planner serves its action; then the state topics are the planner's own."""
        if not self._client.wait_for_server(timeout_sec=timeout_s):
            return False
        if self._state is None:
            topics = planner_state_topics(self.node)
            if not topics.answered:
                self._console.print(f"[yellow]the final state is read from {topics.source}[/yellow]")
            self._state = TopicStateProvider(
                self.node, self._kitchen, topics.scene_topic, topics.robot_state_topic, topics.match_stamps
            )
        return True

    def wait_llm_ready(self, timeout_s: float) -> bool:
        """True once the graph's llm_service reported its model loaded and warmed up (llm/ready)."""
        return self._llm_ready.wait(timeout_s)

    def send(
        self, instruction: str, planner: str = "", plan_only: bool = False, max_steps: int = 0, timeout_s: float = 900.0
    ) -> InstructionOutcome:
        goal = ExecuteInstruction.Goal(
            instruction=instruction, planner=planner, plan_only=plan_only, max_steps=max_steps
        )
        steps: dict[int, StepRecord] = {}
        printed: set[int] = set()
        start = time.monotonic()
        with Live(console=self._console, refresh_per_second=8, transient=True) as live:

            def on_feedback(message: ExecuteInstruction.Impl.FeedbackMessage) -> None:
                record = record_from_msg(message.feedback.current)
                steps[record.index] = record
                if record.status in (StepStatus.PLANNED, StepStatus.RUNNING):
                    live.update(step_table(record))
                elif record.index not in printed:
                    printed.add(record.index)
                    live.console.print(step_table(record))

            sent: Future | None = None
            try:
                # An interrupt inside the send would leave a goal the planner may run and no future to cancel
                # it with: it is raised once the send returned.
                with interrupts_deferred():
                    sent = self._client.send_goal_async(goal, feedback_callback=on_feedback)
                handle = wait_for(sent, 30.0, self.action)
            except KeyboardInterrupt:
                # Ctrl-C before the acceptance came back: the planner may already run the goal.
                if sent is not None:
                    self._cancel_once_accepted(sent)
                raise
            if not handle.accepted:
                return InstructionOutcome(GoalStatus.STATUS_ABORTED, False, "the planner rejected the goal")
            try:
                response = wait_for(handle.get_result_async(), timeout_s, f"{self.action} result")
                arrived = self.node.get_clock().now().seconds_nanoseconds()
            except (KeyboardInterrupt, WaitTimeout):
                self._cancel(handle)
                raise
        executed = [record_from_msg(step) for step in response.result.executed]
        for record in executed:
            if record.index not in printed and record.candidates:
                self._console.print(step_table(record))
        return InstructionOutcome(
            status=response.status,
            success=response.result.success,
            message=response.result.message,
            steps=executed,
            world=self._final_world(arrived),
            wall_s=time.monotonic() - start,
        )

    def _final_world(self, result_arrived: Stamp) -> World | None:
        """The world after the goal. The result can overtake the state message with the last skill's
        effect (another node, another topic): a state published after the result arrived, else (none within
        FINAL_STATE_WAIT_S: a publisher that stopped) the latest."""
        if self._state is None:
            return None
        return self._state.wait_published_after(result_arrived, FINAL_STATE_WAIT_S) or self._state.current()

    def _cancel(self, handle: ClientGoalHandle) -> None:
        """Cancel the goal this client stops waiting for (Ctrl-C, no result in time): left running, it would
        keep the planner busy until it ends or the planner notices the client is gone (client_grace_s)."""
        self._console.print("[yellow]canceling the goal[/yellow]")
        self._request_cancel(handle)

    def _cancel_once_accepted(self, sent: Future) -> None:
        """Cancel a goal whose acceptance had not come back yet: wait for it (CANCEL_WAIT_S), then cancel."""
        self._console.print("[yellow]canceling the goal[/yellow]")
        try:
            handle = wait_for(sent, CANCEL_WAIT_S, f"{self.action} acceptance")
        except WaitTimeout as timeout:
            self._console.print(f"[red]{timeout}[/red]: {PLANNER_CANCELS}")
            return
        if handle.accepted:
            self._request_cancel(handle)

    def _request_cancel(self, handle: ClientGoalHandle) -> None:
        try:
            wait_for(handle.cancel_goal_async(), CANCEL_WAIT_S, f"{self.action} cancel")
        except WaitTimeout as timeout:
            self._console.print(f"[red]{timeout}[/red]: {PLANNER_CANCELS}")

    def close(self) -> None:
        self._executor.shutdown(timeout_sec=5)
        # The spinning thread leaves rclpy before the node and context go: a daemon thread still inside a
        # wait while the interpreter exits can end the process in std::terminate (SIGABRT, once in CI
        # under load) instead of with its status.
        self._spin.join(timeout=5)
        self.node.destroy_node()
        rclpy.shutdown(context=self._context)

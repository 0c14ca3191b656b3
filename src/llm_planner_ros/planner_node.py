"""planner_node: the ``ExecuteInstruction`` action server at ``/llm_planner/execute_instruction``.

A thin adapter: it builds the configured planning method (llm_planner_ros.planning.registry), gives
it a ``RosEnvironment`` (affordance servers, executors, perceived state) or, for ``plan_only`` goals,
a ``SimulatedEnvironment`` over a snapshot of the current state, and runs the shared plan loop with
the safety gates wired to ROS:

- allow-list (``allowed_skills`` patterns): anything else is never dispatched;
- ``require_confirmation``: ``/llm_planner/confirm`` (ConfirmPlan) must approve each step in time;
- e-stop: ``True`` on ``/llm_planner/stop`` (std_msgs/Bool) cancels the running skill and aborts.

One goal at a time. A goal that arrives while another runs is answered at once: with
``on_busy: reject`` it is accepted and immediately aborted with the reason in ``result.message``
(a plain ROS rejection could not say why); with ``on_busy: preempt`` the running goal is canceled
and the new one runs. Every step is published as feedback and on ``/llm_planner/scores``
(PlanStep), and drawn on ``/llm_planner/markers``.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import threading
from collections.abc import Sequence

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node
from std_msgs.msg import Bool
from visualization_msgs.msg import MarkerArray

from affordance_servers.topic_state_provider import TopicStateProvider
from kitchen_sim.kitchen import Kitchen, load_kitchen
from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan

from llm_planner_ros.llm.base import LanguageModel
from llm_planner_ros.llm.factory import LLMConfig, load_embedder, load_language_model
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.planning.plan_loop import EndReason, PlanHooks, PlanResult, run_plan
from llm_planner_ros.planning.registry import PlannerResources, UnknownPlannerError, build_planner, load_planner_options
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.ros.conversions import record_to_msg
from llm_planner_ros.ros.futures import WaitTimeout, wait_for
from llm_planner_ros.ros.llm_client import ServiceLanguageModel
from llm_planner_ros.ros.plan_markers import plan_markers
from llm_planner_ros.ros.ros_environment import RosEnvironment

_PARAMETERS: dict[str, tuple[object, str]] = {
    "planner": ("saycan", "default method when a goal's planner field is empty"),
    "planners_file": ("", "per-method options (empty: config/planners.yaml)"),
    "world_file": ("", "kitchen world facts (empty: config/kitchen_world.yaml)"),
    "skills_file": ("", "skill library (empty: config/kitchen_skills.yaml)"),
    "llm_mode": ("service", "service: call /llm/score and /llm/generate; in_process: load the model here "
                 "from the llm.* parameters (the fields of llm_planner_ros.llm.factory.LLMConfig)"),
    "llm_timeout_s": (120.0, "limit of one LLM call"),
    "max_steps": (30, "default step budget when a goal's max_steps is 0"),
    "max_instruction_chars": (2000, "longer instructions are refused with a reason"),
    "allowed_skills": (["*"], "fnmatch patterns of skill texts that may be dispatched; nothing else ever is"),
    "require_confirmation": (False, "ask /llm_planner/confirm (ConfirmPlan) before every step"),
    "confirm_timeout_s": (30.0, "a confirmation not answered in time counts as refused"),
    "affordance_timeout_s": (10.0, "limit of one affordance batch"),
    "executor_timeout_s": (120.0, "limit of one skill execution"),
    "server_wait_s": (10.0, "how long to wait for a server to appear"),
    "state_timeout_s": (10.0, "how long to wait for a first world state"),
    "on_busy": ("reject", "reject | preempt: what a goal arriving during another one does"),
    "frame_id": ("map", "frame of the RViz markers"),
    "scene_topic": ("/scene/objects", "SceneObjectArray of the perceived (or simulated) objects"),
    "robot_state_topic": ("/sim/robot_state", "robot-state JSON record (kitchen_sim.robot_state)"),
    "match_stamps": (True, "pair scene and robot state by stamp (true for the simulator, false on a robot)"),
}


class PlannerNode(Node):
    """Serves ExecuteInstruction. Outcomes of a goal: SUCCEEDED when the method ended with ``done``;
    CANCELED when the client canceled; ABORTED otherwise, with ``result.message`` saying why
    (step budget, refusal, e-stop, a missing server, a malformed instruction, busy)."""

    def __init__(self) -> None:
        super().__init__("planner")
        for name, (default, description) in _PARAMETERS.items():
            self.declare_parameter(name, default, ParameterDescriptor(description=description))
        for option in dataclasses.fields(LLMConfig):
            self.declare_parameter(f"llm.{option.name}", option.default,
                                   ParameterDescriptor(description=option.metadata["help"]))
        self._kitchen: Kitchen = load_kitchen(self._str("world_file") or None, self._str("skills_file") or None)
        self._planner_options = load_planner_options(self._str("planners_file") or None)
        self._clients_group = ReentrantCallbackGroup()
        self._model: LanguageModel = self._language_model()
        self._state = TopicStateProvider(
            self, self._kitchen, self._str("scene_topic"), self._str("robot_state_topic"),
            bool(self.get_parameter("match_stamps").value), callback_group=self._clients_group,
        )
        self._confirm = self.create_client(ConfirmPlan, "/llm_planner/confirm", callback_group=self._clients_group)
        self._scores = self.create_publisher(PlanStep, "/llm_planner/scores", 10)
        self._markers = self.create_publisher(MarkerArray, "/llm_planner/markers", 10)
        self.create_subscription(Bool, "/llm_planner/stop", self._on_stop, 10, callback_group=MutuallyExclusiveCallbackGroup())
        self._busy = threading.Lock()
        self._estop = threading.Event()
        self._preempt = threading.Event()
        self._server = ActionServer(
            self,
            ExecuteInstruction,
            "/llm_planner/execute_instruction",
            execute_callback=self._execute,
            goal_callback=lambda _goal: GoalResponse.ACCEPT,
            cancel_callback=lambda _handle: CancelResponse.ACCEPT,
            callback_group=ReentrantCallbackGroup(),
        )
        self.get_logger().info(
            f"ready: /llm_planner/execute_instruction (default planner {self._str('planner')}, llm {self._str('llm_mode')})"
        )

    # ----- parameters ----------------------------------------------------------------------------------
    def _str(self, name: str) -> str:
        return str(self.get_parameter(name).value)

    def _float(self, name: str) -> float:
        return float(self.get_parameter(name).value)

    def _language_model(self) -> LanguageModel:
        mode = self._str("llm_mode")
        if mode == "service":
            return ServiceLanguageModel(self, self._clients_group, self._float("llm_timeout_s"), self._float("server_wait_s"))
        if mode == "in_process":
            config = {option.name: self.get_parameter(f"llm.{option.name}").value for option in dataclasses.fields(LLMConfig)}
            return load_language_model(config, report=self.get_logger().info)
        raise ValueError(f"llm_mode must be 'service' or 'in_process', got {mode!r}")

    # ----- goals -----------------------------------------------------------------------------------------
    def _execute(self, handle: ServerGoalHandle) -> ExecuteInstruction.Result:
        if not self._busy.acquire(blocking=False):
            if self._str("on_busy") != "preempt":
                return self._end(handle, PlanResult(EndReason.ERROR, "busy: another instruction is running; "
                                                    "cancel it first (or set on_busy: preempt)"))
            self._preempt.set()
            self._busy.acquire()
        self._preempt.clear()
        self._estop.clear()
        try:
            return self._end(handle, self._plan(handle))
        finally:
            self._busy.release()

    def _plan(self, handle: ServerGoalHandle) -> PlanResult:
        goal: ExecuteInstruction.Goal = handle.request
        instruction = goal.instruction.strip()
        if not instruction:
            return PlanResult(EndReason.ERROR, "the instruction is empty: say what the robot should do")
        limit = int(self.get_parameter("max_instruction_chars").value)
        if len(instruction) > limit:
            return PlanResult(EndReason.ERROR, f"the instruction has {len(instruction)} characters; the limit is {limit} "
                                               "(parameter max_instruction_chars)")
        try:
            planner = build_planner(goal.planner or self._str("planner"), self._resources())
        except (UnknownPlannerError, ValueError, FileNotFoundError) as error:
            return PlanResult(EndReason.ERROR, str(error))

        def canceled() -> str | None:
            if handle.is_cancel_requested:
                return "canceled by the client"
            if self._estop.is_set():
                return "e-stop on /llm_planner/stop"
            if self._preempt.is_set():
                return "preempted by a newer goal"
            return None

        hooks = PlanHooks(
            allowed=self._allowed,
            confirm=(lambda record: self._ask_confirmation(instruction, record))
            if self.get_parameter("require_confirmation").value else None,
            canceled=canceled,
            on_step=lambda record: self._publish_step(handle, record),
        )
        max_steps = int(goal.max_steps) or int(self.get_parameter("max_steps").value)
        ros_env = RosEnvironment(self, self._state, self._clients_group, canceled, self._float("affordance_timeout_s"),
                                 self._float("executor_timeout_s"), self._float("state_timeout_s"))
        try:
            env = SimulatedEnvironment(ros_env.snapshot()) if goal.plan_only else ros_env
        except Exception as error:  # noqa: BLE001 (any state failure ends this goal, never the node)
            return PlanResult(EndReason.ERROR, str(error))
        self.get_logger().info(f"planning {instruction!r} with {planner.name} (plan_only={goal.plan_only}, max {max_steps} steps)")
        try:
            return run_plan(planner, instruction, env, max_steps, hooks)
        except Exception as error:  # noqa: BLE001 (an LLM or backend error ends this goal, never the node)
            self.get_logger().error(f"plan failed: {type(error).__name__}: {error}")
            return PlanResult(EndReason.ERROR, f"{type(error).__name__}: {error}")

    def _resources(self) -> PlannerResources:
        return PlannerResources(
            model=self._model,
            kitchen=self._kitchen,
            embedder_factory=lambda: load_embedder({}),
            options=self._planner_options,
        )

    def _end(self, handle: ServerGoalHandle, result: PlanResult) -> ExecuteInstruction.Result:
        if result.success:
            handle.succeed()
        elif result.reason == EndReason.CANCELED and handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        self.get_logger().info(f"goal ended ({result.reason.value}): {result.message}")
        return ExecuteInstruction.Result(
            success=result.success,
            message=f"{result.reason.value}: {result.message}",
            executed=[record_to_msg(step) for step in result.steps],
        )

    # ----- gates -----------------------------------------------------------------------------------------
    def _allowed(self, skill) -> str | None:  # noqa: ANN001 (kitchen_sim Skill)
        patterns: Sequence[str] = self.get_parameter("allowed_skills").value
        if any(fnmatch.fnmatchcase(skill.text, pattern) for pattern in patterns):
            return None
        return f"{skill.text!r} is not in the allow-list (parameter allowed_skills); it was not dispatched"

    def _ask_confirmation(self, instruction: str, record: StepRecord) -> tuple[bool, str]:
        timeout = self._float("confirm_timeout_s")
        if not self._confirm.wait_for_service(timeout_sec=min(timeout, self._float("server_wait_s"))):
            return False, "no /llm_planner/confirm service to ask (require_confirmation is on)"
        request = ConfirmPlan.Request(instruction=instruction, steps=[record_to_msg(record)])
        try:
            response = wait_for(self._confirm.call_async(request), timeout, "/llm_planner/confirm")
        except WaitTimeout as timeout_error:
            return False, str(timeout_error)
        return bool(response.approved), response.reason or ("approved" if response.approved else "refused")

    def _on_stop(self, msg: Bool) -> None:
        if msg.data:
            self.get_logger().warning("e-stop received on /llm_planner/stop: canceling the running skill")
            self._estop.set()

    # ----- visibility ------------------------------------------------------------------------------------
    def _publish_step(self, handle: ServerGoalHandle, record: StepRecord) -> None:
        msg = record_to_msg(record)
        handle.publish_feedback(ExecuteInstruction.Feedback(step_index=record.index, current=msg,
                                                            state_summary=self._state_summary()))
        self._scores.publish(msg)
        world = self._state.current()
        if world is not None:
            self._markers.publish(plan_markers(record, world, self._str("frame_id"), self.get_clock().now().to_msg()))

    def _state_summary(self) -> str:
        world = self._state.current()
        return world.summary() if world is not None else "no world state received yet"


def main(args: list[str] | None = None) -> None:
    rclpy.init(args=args)
    node = None
    try:
        node = PlannerNode()
        executor = MultiThreadedExecutor(num_threads=6)
        executor.add_node(node)
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    main()

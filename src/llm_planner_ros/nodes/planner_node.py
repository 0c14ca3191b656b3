"""planner: the ``ExecuteInstruction`` action server at ``/llm_planner/execute_instruction``.

A thin adapter: it builds the configured planning method (llm_planner_ros.planning.registry), gives
it a ``RosEnvironment`` (affordance servers, executors, perceived state) or, for ``plan_only`` goals,
a ``SimulatedEnvironment`` over a snapshot of the current state, and runs the shared plan loop with
the safety gates wired to ROS:

- allow-list (``allowed_skills`` patterns): anything else is never dispatched;
- ``require_confirmation``: ``/llm_planner/confirm`` (ConfirmPlan) must approve each step in time;
- e-stop: ``True`` on ``/llm_planner/stop`` (std_msgs/Bool) cancels the running skill and aborts; with
  ``estop_latched`` (default) it holds, and every goal is refused, until ``False`` is published.

One goal at a time. A goal that arrives while another runs is answered at once: with
``on_busy: reject`` it is accepted and immediately aborted with the reason in ``result.message``
(a plain ROS rejection could not say why); with ``on_busy: preempt`` the running goal is canceled
and the newest goal runs (older waiting ones end as preempted). Goals that may not run at all (more
steps than ``max_steps_limit``, a latched e-stop) are likewise accepted and aborted with the reason,
never rejected silently. The action's services keep ``goal_queue_depth`` requests, so a burst of
goals is answered in full. A running goal whose client left the graph (killed: it can no longer
cancel) is canceled after ``client_grace_s`` (goal_control.ClientWatch). Every step is published as
feedback and on ``/llm_planner/scores`` (PlanStep), and drawn on ``/llm_planner/markers``; each goal's
start (its instruction, method, plan_only, step budget) and end (reason, message) are published on
``/llm_planner/goals`` (std_msgs/String, one JSON object each), so a recording holds what was asked.
With ``planner: saycanpay`` and its ``can_service`` / ``pay_service`` options set, the learned Can and
Pay models are asked of those ``ScorePlanActions`` services (``ros.scorer_client``, saycanpay_scorer).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import threading
import time
from collections.abc import Sequence

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import Bool, String
from visualization_msgs.msg import MarkerArray

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan
from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.world import World
from llm_planner_ros.llm.base import LanguageModel, LLMError
from llm_planner_ros.llm.factory import LLMConfig, load_embedder, load_language_model
from llm_planner_ros.nodes.goal_control import ClientWatch, EStop, GoalSlot
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.planning.environment import PlanningEnvironment
from llm_planner_ros.planning.hold_back.classifier import HoldBackModelError
from llm_planner_ros.planning.hold_back.screen import DEFAULT_MODEL, RequestScreen
from llm_planner_ros.planning.instruction_check import MissingObjects, ObjectVocabulary, Verdict, check_instruction
from llm_planner_ros.planning.plan_loop import EndReason, PlanHooks, PlanResult, run_plan
from llm_planner_ros.planning.registry import (
    DEFAULT_PLANNER,
    PLANNERS,
    PlannerCache,
    PlannerResources,
    UnknownPlannerError,
    load_planner_options,
)
from llm_planner_ros.planning.request_loop import DEFAULT_HOLD_BACK_CONFIDENCE
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.ros.conversions import record_to_msg
from llm_planner_ros.ros.futures import WaitTimeout, wait_for
from llm_planner_ros.ros.llm_client import ServiceLanguageModel
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters, field_parameters
from llm_planner_ros.ros.plan_markers import plan_markers
from llm_planner_ros.ros.qos import action_service_qos
from llm_planner_ros.ros.ros_environment import ActionClients, RosEnvironment
from llm_planner_ros.ros.scorer_client import ServiceScorer
from llm_planner_ros.ros.topic_state_provider import TopicStateProvider
from llm_planner_ros.ros.topics import (
    CONFIRM_SERVICE,
    EVENTS_QOS,
    EXECUTE_INSTRUCTION_ACTION,
    GOALS_TOPIC,
    MARKERS_TOPIC,
    ROBOT_STATE_TOPIC,
    SCENE_TOPIC,
    SCORES_TOPIC,
    STOP_TOPIC,
    full_name,
)

_PARAMETERS = {
    "planner": Parameter(
        DEFAULT_PLANNER, "default method when a goal's planner field is empty", choices=tuple(PLANNERS)
    ),
    "planners_file": Parameter("", "per-method options (empty: config/planners.yaml)", read_only=True),
    "world_file": Parameter("", "world facts (empty: the default domain's, config/domains.yaml)", read_only=True),
    "skills_file": Parameter("", "skill library (empty: the default domain's, config/domains.yaml)", read_only=True),
    "llm_mode": Parameter(
        "service",
        "service: call /llm/score and /llm/generate; in_process: load the model here "
        "from the llm.* parameters (the fields of llm_planner_ros.llm.factory.LLMConfig)",
        choices=("service", "in_process"),
        read_only=True,
    ),
    "llm_namespace": Parameter(
        "",
        "namespace of the llm/score and llm/generate services (llm_mode service): empty = this "
        "node's own, / = the root's (one llm_service shared by robots in their own namespaces)",
        read_only=True,
    ),
    "llm_timeout_s": Parameter(120.0, "limit of one LLM call", minimum=0.0),
    "max_steps": Parameter(30, "default step budget when a goal's max_steps is 0", minimum=1),
    "max_steps_limit": Parameter(
        200, "a goal asking for more steps is refused (aborted at once, result.message says why)", minimum=1
    ),
    "max_instruction_chars": Parameter(2000, "longer instructions are refused with a reason", minimum=1),
    "missing_objects": Parameter(
        "refuse",
        "refuse | confirm | warn: an instruction naming an object the scene lacks ends at "
        "once, asks /llm_planner/confirm for a substitute, or is planned with a warning in the result",
        choices=tuple(policy.value for policy in MissingObjects),
    ),
    "hold_back": Parameter(
        True,
        "end a stop or null request nothing_to_do, and one beyond the domain's skills or unsafe refused, "
        "before any skill (planning.hold_back; the model loads with the first goal)",
    ),
    "hold_back_confidence": Parameter(
        DEFAULT_HOLD_BACK_CONFIDENCE,
        "the hold-back model's probability of 'no task' at which a request is held back (higher: fewer "
        "false refusals, more requests planned that needed nothing)",
        minimum=0.01,
        maximum=1.0,
    ),
    "hold_back_model": Parameter(DEFAULT_MODEL, "the hold-back model's weight file", read_only=True),
    "allowed_skills": Parameter(["*"], "fnmatch patterns of skill texts that may be dispatched; nothing else ever is"),
    "require_confirmation": Parameter(False, "ask /llm_planner/confirm (ConfirmPlan) before every step"),
    "confirm_timeout_s": Parameter(30.0, "a confirmation not answered in time counts as refused", minimum=0.0),
    "affordance_timeout_s": Parameter(
        10.0, "limit of one affordance batch (and of one SayCanPay Can or Pay request)", minimum=0.0
    ),
    "executor_timeout_s": Parameter(120.0, "limit of one skill execution", minimum=0.0),
    "server_wait_s": Parameter(10.0, "how long to wait for a server to appear", minimum=0.0),
    "server_lost_s": Parameter(
        3.0,
        "how long a server that left the graph (stopped, restarted) may take to answer or come "
        "back before the plan ends with an error; also bounds reading a lost skill's outcome back",
        minimum=0.0,
    ),
    "state_timeout_s": Parameter(10.0, "how long to wait for a first world state", minimum=0.0),
    "effect_wait_s": Parameter(
        3.0,
        "after a skill reported done, how long the next step waits for the world state (a perceived scene "
        "lags the robot) to show the skill's effects; then it plans on from what the state shows",
        minimum=0.0,
    ),
    "on_busy": Parameter(
        "reject", "reject | preempt: what a goal arriving during another one does", choices=("reject", "preempt")
    ),
    "goal_queue_depth": Parameter(
        100,
        "goal, result and cancel requests the action keeps until taken (read at start; "
        "rclpy's default of 10 loses the rest of a burst of goals)",
        minimum=1,
        read_only=True,
    ),
    "estop_latched": Parameter(
        True,
        "true: a stop on /llm_planner/stop holds, refusing every goal, until false is published; "
        "false: momentary, the next goal runs (read at start)",
        read_only=True,
    ),
    "client_grace_s": Parameter(
        10.0,
        "a running goal whose client left the graph (none of the subscriptions on the action's "
        "feedback topic at its start remain) this long is canceled; 0 = never",
        minimum=0.0,
    ),
    "frame_id": Parameter("map", "frame of the RViz markers"),
    "scene_topic": Parameter(SCENE_TOPIC, "SceneObjectArray of the perceived (or simulated) objects", read_only=True),
    "robot_state_topic": Parameter(
        ROBOT_STATE_TOPIC, "robot-state JSON record (llm_planner_ros.domain.robot_state)", read_only=True
    ),
    "match_stamps": Parameter(
        True, "pair scene and robot state by stamp (true for the simulator, false on a robot)", read_only=True
    ),
    "max_scene_age_s": Parameter(
        0.0,
        "a scene not renewed for this long ends the plan with an error (perception or its camera stopped); 0 = off",
        minimum=0.0,
        read_only=True,
    ),
}

# The planner's own language model (llm_mode in_process) is set by these parameters, one per LLMConfig field.
LLM_PREFIX = "llm."

ACTION = EXECUTE_INSTRUCTION_ACTION
FEEDBACK_TOPIC = f"{ACTION}/_action/feedback"
PREEMPTED = "preempted by a newer goal"
SHUTTING_DOWN = "the planner is shutting down"
# How long close() lets the running goal wind down (its skill canceled, its result sent): under the 5 s
# after which `ros2 launch` follows its SIGINT with SIGTERM.
CLOSE_WAIT_S = 4.0
CLIENT_WATCH_PERIOD_S = 0.5


@dataclasses.dataclass(frozen=True)
class _RunningGoal:
    """The goal holding the slot: its GoalSlot ticket, and the watch on its client (None: not watched)."""

    ticket: int
    watch: ClientWatch | None


# Every parameter the node declares, the llm.* fields of its in-process model included.
DECLARED_PARAMETERS = {**_PARAMETERS, **field_parameters(LLMConfig, prefix=LLM_PREFIX)}


class PlannerNode(Node):
    """Serves ExecuteInstruction. Outcomes of a goal: SUCCEEDED when the method ended with ``done``
    (``result.success`` true) or when the request needed nothing done (``success`` false, message
    ``nothing_to_do: ...``); CANCELED when the client canceled; ABORTED otherwise, with ``result.message``
    saying why (``refused:`` beyond the domain's skills, unsafe, or a person's no; ``missing:`` an object
    the scene lacks; the step budget, e-stop, a missing server, a malformed instruction, busy)."""

    def __init__(self) -> None:
        super().__init__("planner")
        declare_parameters(self, DECLARED_PARAMETERS)
        try:
            self._kitchen: Domain = load_domain_files(self._str("world_file") or None, self._str("skills_file") or None)
            self._planner_options = load_planner_options(self._str("planners_file") or None)
        except (ValueError, OSError) as error:  # ConfigError included
            raise StartupError(
                f"cannot load the configuration (world_file, skills_file, planners_file): {error}"
            ) from error
        self._objects = ObjectVocabulary.of_kitchen(self._kitchen.config, made=self._kitchen.library.created_labels())
        self._clients_group = ReentrantCallbackGroup()
        self._action_clients = ActionClients(self, self._clients_group)
        self._model: LanguageModel = self._language_model()
        self._state = TopicStateProvider(
            self,
            self._kitchen,
            self._str("scene_topic"),
            self._str("robot_state_topic"),
            bool(self.get_parameter("match_stamps").value),
            callback_group=self._clients_group,
            max_scene_age_s=self._float("max_scene_age_s"),
        )
        self._confirm = self.create_client(ConfirmPlan, CONFIRM_SERVICE, callback_group=self._clients_group)
        self._scores = self.create_publisher(PlanStep, SCORES_TOPIC, EVENTS_QOS)
        self._markers = self.create_publisher(MarkerArray, MARKERS_TOPIC, 10)
        self._goal_events = self.create_publisher(String, GOALS_TOPIC, EVENTS_QOS)
        self._goal_events_lock = threading.Lock()
        self._goal_events_sent = 0
        # Built once: a method per goal reloaded the sentence embedder each time (+45-70 MB RSS per goal).
        self._planners = PlannerCache(
            PlannerResources(
                self._model,
                self._kitchen,
                lambda: load_embedder({}),
                self._planner_options,
                scorer_service=self._scorer_client,
            )
        )
        self._screen: tuple[float, RequestScreen] | None = None
        self._slot = GoalSlot()
        self._closing = threading.Event()
        self._goal: _RunningGoal | None = None
        self._estop = EStop(bool(self.get_parameter("estop_latched").value), full_name(self, STOP_TOPIC))
        # Reliable and volatile: a transient_local subscription would not match the volatile publishers
        # (`ros2 topic pub`, rclpy defaults); a stop sent before the planner was up is therefore not seen.
        self.create_subscription(Bool, STOP_TOPIC, self._on_stop, 10, callback_group=MutuallyExclusiveCallbackGroup())
        service_qos = action_service_qos(int(self.get_parameter("goal_queue_depth").value))
        self._server = ActionServer(
            self,
            ExecuteInstruction,
            ACTION,
            execute_callback=self._execute,
            goal_callback=lambda _goal: GoalResponse.ACCEPT,
            cancel_callback=lambda _handle: CancelResponse.ACCEPT,
            callback_group=ReentrantCallbackGroup(),
            goal_service_qos_profile=service_qos,
            result_service_qos_profile=service_qos,
            cancel_service_qos_profile=service_qos,
        )
        self.create_timer(CLIENT_WATCH_PERIOD_S, self._watch_client, callback_group=MutuallyExclusiveCallbackGroup())
        self.get_logger().info(
            f"ready: {full_name(self, ACTION)} (default planner {self._str('planner')}, llm {self._str('llm_mode')})"
        )

    # ----- parameters ----------------------------------------------------------------------------------
    def _str(self, name: str) -> str:
        return str(self.get_parameter(name).value)

    def _float(self, name: str) -> float:
        return float(self.get_parameter(name).value)

    def _language_model(self) -> LanguageModel:
        if self._str("llm_mode") == "service":
            return ServiceLanguageModel(
                self,
                self._clients_group,
                self._float("llm_timeout_s"),
                self._float("server_wait_s"),
                self._float("server_lost_s"),
                self._str("llm_namespace"),
            )
        config = {
            option.name: self.get_parameter(f"{LLM_PREFIX}{option.name}").value
            for option in dataclasses.fields(LLMConfig)
        }
        try:
            return load_language_model(config, report=self.get_logger().info)
        except LLMError as error:
            raise StartupError(f"llm_mode in_process: {error} (set it with the {LLM_PREFIX}* parameters)") from error

    def _scorer_client(self, kind: str, service: str) -> ServiceScorer:
        """SayCanPay's Can or Pay model at ``service`` (planners.yaml saycanpay: can_service, pay_service)."""
        return ServiceScorer(
            self,
            self._clients_group,
            kind,
            service,
            self._float("affordance_timeout_s"),
            self._float("server_wait_s"),
            self._float("server_lost_s"),
        )

    def close(self) -> None:
        """Before the node goes down: the running goal stops at its next check (its skill canceled) and
        ends with its result sent; goals arriving meanwhile end at once. Waits up to CLOSE_WAIT_S."""
        self._closing.set()
        if not self._slot.wait_free(CLOSE_WAIT_S):
            self.get_logger().warning(f"the running goal did not end within {CLOSE_WAIT_S:g} s of the shutdown")

    # ----- goals -----------------------------------------------------------------------------------------
    def _execute(self, handle: ServerGoalHandle) -> ExecuteInstruction.Result:
        goal: ExecuteInstruction.Goal = handle.request
        self._publish_goal_event(
            handle,
            "started",
            instruction=goal.instruction,
            planner=goal.planner or self._str("planner"),
            plan_only=goal.plan_only,
            max_steps=goal.max_steps,
            requester=goal.requester,
        )
        if (refusal := self._refusal(goal)) is not None:
            return self._end(handle, refusal)
        preempt = self._str("on_busy") == "preempt"
        ticket = self._slot.preempt() if preempt else self._slot.try_enter()
        if ticket is None:
            return self._end(
                handle,
                PlanResult(EndReason.CANCELED, PREEMPTED)
                if preempt
                else PlanResult(
                    EndReason.ERROR, "busy: another instruction is running; cancel it first (or set on_busy: preempt)"
                ),
            )
        self._estop.goal_started()
        grace = self._float("client_grace_s")
        self._goal = _RunningGoal(ticket, ClientWatch(grace, time.monotonic()) if grace > 0 else None)
        try:
            return self._end(handle, self._plan(handle))
        finally:
            # Cleared before the slot is free: the next goal sets its own only once it holds the slot.
            self._goal = None
            self._slot.leave(ticket)

    def _refusal(self, goal: ExecuteInstruction.Goal) -> PlanResult | None:
        """Why a goal ends as soon as it arrives, without waiting for the slot: more steps asked than
        ``max_steps_limit`` (a client's -1 wraps to 4294967295), or a latched e-stop; None if it may run."""
        limit = int(self.get_parameter("max_steps_limit").value)
        if goal.max_steps > limit:
            return PlanResult(
                EndReason.ERROR,
                f"max_steps {goal.max_steps} is over the limit of {limit} (parameter "
                f"max_steps_limit): ask for at most {limit}, or 0 for the default",
            )
        if (reason := self._estop.refusal()) is not None:
            # refused, not canceled: no client canceled this goal, and it never started
            return PlanResult(EndReason.REFUSED, reason)
        if self._closing.is_set():
            return PlanResult(EndReason.CANCELED, SHUTTING_DOWN)
        return None

    def _stop_reason(self, handle: ServerGoalHandle) -> str | None:
        """Why the running goal must stop now (polled between steps and while a skill runs), or None."""
        if handle.is_cancel_requested:
            return "canceled by the client"
        if self._closing.is_set():
            return SHUTTING_DOWN
        if (reason := self._estop.reason()) is not None:
            return reason
        goal = self._goal
        if goal is not None and self._slot.superseded(goal.ticket):
            return PREEMPTED
        if goal is not None and goal.watch is not None and goal.watch.gone:
            return (
                f"the client went away: none of its subscriptions on {full_name(self, FEEDBACK_TOPIC)} seen for "
                f"{goal.watch.grace_s:g} s (parameter client_grace_s)"
            )
        return None

    def _watch_client(self) -> None:
        goal = self._goal
        if goal is None or goal.watch is None:
            return
        subscribers = [bytes(info.endpoint_gid) for info in self.get_subscriptions_info_by_topic(FEEDBACK_TOPIC)]
        if goal.watch.update(subscribers, time.monotonic()):
            self.get_logger().warning(
                f"the client of the running goal left the graph {goal.watch.grace_s:g} s ago: canceling the goal"
            )

    def _plan(self, handle: ServerGoalHandle) -> PlanResult:
        goal: ExecuteInstruction.Goal = handle.request
        verdict = self._check_instruction(goal.instruction)
        if verdict.refusal is not None:
            return verdict.refusal
        instruction = verdict.text
        try:
            planner = self._planners.get(goal.planner or self._str("planner"))
        # RuntimeError: a model file a method loads that is missing or of the wrong kind (ScorerLoadError)
        except (UnknownPlannerError, ValueError, FileNotFoundError, RuntimeError) as error:
            return PlanResult(EndReason.ERROR, str(error))

        def canceled() -> str | None:
            return self._stop_reason(handle)

        hooks = PlanHooks(
            allowed=self._allowed,
            confirm=(lambda record: self._ask_confirmation(instruction, record))
            if self.get_parameter("require_confirmation").value
            else None,
            canceled=canceled,
            on_step=lambda record: self._publish_step(handle, record),
        )
        max_steps = int(goal.max_steps) or int(self.get_parameter("max_steps").value)
        ros_env = RosEnvironment(
            self,
            self._state,
            self._action_clients,
            canceled,
            self._float("affordance_timeout_s"),
            self._float("executor_timeout_s"),
            self._float("state_timeout_s"),
            self._float("server_lost_s"),
            self._float("effect_wait_s"),
            self._kitchen.library.affordance_servers(),
        )
        try:
            env = SimulatedEnvironment(ros_env.snapshot()) if goal.plan_only else ros_env
        except Exception as error:
            return PlanResult(EndReason.ERROR, str(error))
        self.get_logger().info(
            f"planning {instruction!r} with {planner.name} (plan_only={goal.plan_only}, max {max_steps} steps)"
        )
        # run_plan never raises: a dependency that fails ends the plan with ERROR and every executed step.
        result = run_plan(planner, instruction, env, max_steps, hooks)
        return verdict.annotate(result, self._final_world(env) if verdict.named else None)

    def _final_world(self, env: PlanningEnvironment) -> World | None:
        """The world at the end of a plan, for the result's object report; None when there is none now
        (the state provider lost its sources: the plan's own result says so)."""
        try:
            return env.snapshot()
        except Exception:
            return None

    def _check_instruction(self, text: str) -> Verdict:
        """The instruction's text, whether to hold back on it, and the objects it names, checked before
        planning (planning.instruction_check)."""
        try:
            hold_back = self._hold_back() if self.get_parameter("hold_back").value else None
        except (HoldBackModelError, ValueError, OSError) as error:
            return Verdict(refusal=PlanResult(EndReason.ERROR, str(error)))
        return check_instruction(
            text,
            self._objects,
            int(self.get_parameter("max_instruction_chars").value),
            self._str("missing_objects"),
            scene=lambda: self._state.wait(self._float("state_timeout_s")),
            confirm=self._ask_confirmation,
            hold_back=hold_back,
        )

    def _hold_back(self) -> RequestScreen:
        """The domain's hold-back screen, built with the first goal that needs it (it shares the methods'
        sentence embedder) and again only when ``hold_back_confidence`` changes."""
        confidence = self._float("hold_back_confidence")
        if self._screen is None or self._screen[0] != confidence:
            screen = RequestScreen.load(
                self._kitchen, self._planners.resources.embedder, confidence, self._str("hold_back_model")
            )
            self._screen = (confidence, screen)
        return self._screen[1]

    def _end(self, handle: ServerGoalHandle, result: PlanResult) -> ExecuteInstruction.Result:
        # nothing_to_do: the goal was served as asked (no error), though no task was carried out (success false).
        if result.success or result.reason == EndReason.NOTHING_TO_DO:
            handle.succeed()
        elif result.reason == EndReason.CANCELED and handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        self.get_logger().info(f"goal ended ({result.reason.value}): {result.message}")
        self._publish_goal_event(handle, "ended", reason=result.reason.value, message=result.message)
        return ExecuteInstruction.Result(
            success=result.success,
            message=f"{result.reason.value}: {result.message}",
            executed=[record_to_msg(step) for step in result.steps],
        )

    def _publish_goal_event(self, handle: ServerGoalHandle, event: str, **fields: object) -> None:
        goal_id = bytes(handle.goal_id.uuid).hex()
        # stamp: the wall-clock time, as the steps' stamps, so a watcher can tell which steps came after it
        # (topics are not ordered with each other: a step can arrive before its goal's start).
        # seq: 1, 2, ... in publishing order (hence the lock), so a recorder counts the events it never got.
        with self._goal_events_lock:
            self._goal_events_sent += 1
            record = {"goal_id": goal_id, "seq": self._goal_events_sent, "event": event, "stamp": time.time(), **fields}
            self._goal_events.publish(String(data=json.dumps(record)))

    # ----- gates -----------------------------------------------------------------------------------------
    def _allowed(self, skill) -> str | None:
        patterns: Sequence[str] = self.get_parameter("allowed_skills").value
        if any(fnmatch.fnmatchcase(skill.text, pattern) for pattern in patterns):
            return None
        return f"{skill.text!r} is not in the allow-list (parameter allowed_skills); it was not dispatched"

    def _ask_confirmation(self, instruction: str, record: StepRecord) -> tuple[bool, str]:
        timeout = self._float("confirm_timeout_s")
        if not self._confirm.wait_for_service(timeout_sec=min(timeout, self._float("server_wait_s"))):
            return (
                False,
                f"no {full_name(self, CONFIRM_SERVICE)} service to ask "
                "(require_confirmation, or missing_objects: confirm, needs one)",
            )
        request = ConfirmPlan.Request(instruction=instruction, steps=[record_to_msg(record)])
        try:
            response = wait_for(self._confirm.call_async(request), timeout, full_name(self, CONFIRM_SERVICE))
        except WaitTimeout as timeout_error:
            return False, str(timeout_error)
        return bool(response.approved), response.reason or ("approved" if response.approved else "refused")

    def _on_stop(self, msg: Bool) -> None:
        if msg.data:
            latched = " (latched: goals are refused until false is published)" if self._estop.latched else ""
            self.get_logger().warning(
                f"e-stop received on {full_name(self, STOP_TOPIC)}: canceling the running skill{latched}"
            )
        elif self._estop.engaged:
            self.get_logger().info(f"e-stop released on {full_name(self, STOP_TOPIC)}")
        self._estop.set(msg.data)

    # ----- visibility ------------------------------------------------------------------------------------
    def _publish_step(self, handle: ServerGoalHandle, record: StepRecord) -> None:
        msg = record_to_msg(record)
        handle.publish_feedback(
            ExecuteInstruction.Feedback(step_index=record.index, current=msg, state_summary=self._state_summary())
        )
        self._scores.publish(msg)
        world = self._state.current()
        if world is not None:
            self._markers.publish(plan_markers(record, world, self._str("frame_id"), self.get_clock().now().to_msg()))

    def _state_summary(self) -> str:
        world = self._state.current()
        return world.summary() if world is not None else "no world state received yet"


def main(args: list[str] | None = None) -> None:
    raise SystemExit(run_node(PlannerNode, threads=6, args=args))


if __name__ == "__main__":
    main()

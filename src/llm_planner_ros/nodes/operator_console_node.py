"""operator_console: a web page to watch, approve and stop one robot or several (``llm-planner console``).

A thin adapter between the robots' ROS graphs and the console's web application
(``llm_planner_ros.operator_console``). For each robot namespace in ``robots`` ("" is the node's own) it

- subscribes to ``llm_planner/goals`` and ``llm_planner/scores`` (the instruction, the plan so far and
  each step's candidate table), ``llm_planner/stop`` (the e-stop), ``scene/objects``, the robot-state
  record (``robot_state_topic``) and the cameras in ``camera_topics`` (perception's image with the
  detections drawn first, the raw head camera when that one is silent), and ``llm_planner/audit`` (each
  call an agent made through ``llm-planner mcp``, kept in the trail under the client's name);
- serves ``llm_planner/confirm`` (ConfirmPlan): the step and its scores wait on the page until a person
  approves or refuses it there, or ``approval_timeout_s`` passes (refused, with that reason);
- sends the page's instructions as ExecuteInstruction goals, cancels the planner's goals through the
  action's ``cancel_goal`` service, and publishes ``True``/``False`` on the stop topic (e-stop, release).

Safety: the console never dispatches a skill; it binds to ``host`` (loopback by default), and on any
other address every request needs the token (``token``, or a random one printed at start). When the
console stops (or dies), its ConfirmPlan service goes with it and a pending request is refused, so the
planner refuses the next step: the robot is left stopped, never running unsupervised. It answers only
to the names it is bound to (and ``allowed_hosts``), so a page of another site cannot reach it by DNS
rebinding. The page's address (one a browser can open: the machine's name on a 0.0.0.0 bind) is logged
and published latched on ``operator_console/url``. Every action, and every refused request
(rate-limited), goes to the node's log and to a JSON-lines file of this run under ``audit_folder``.

Parameters: ``host``, ``port`` (0: any free port), ``token``, ``allowed_hosts``, ``audit_folder``,
``robots``, ``approval_timeout_s``, ``robot_state_topic``, ``camera_topics``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field

import cv2
import uvicorn
from action_msgs.msg import GoalInfo
from action_msgs.srv import CancelGoal
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.client import Client
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import Image
from std_msgs.msg import Bool, String

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_interfaces.msg import PlanStep, SceneObjectArray
from llm_planner_interfaces.srv import ConfirmPlan
from llm_planner_ros.operator_console.access import Access, ServedNames, browser_host
from llm_planner_ros.operator_console.approvals import ApprovalDesk
from llm_planner_ros.operator_console.audit import AuditTrail, audit_path
from llm_planner_ros.operator_console.board import ConsoleBoard, RobotBoard, step_json
from llm_planner_ros.operator_console.web_app import ControlError, create_app
from llm_planner_ros.perception.ros_messages import ImageFormatError, rgb_from_msg
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.bag_recorder import EVENTS_QOS
from llm_planner_ros.ros.conversions import record_from_msg
from llm_planner_ros.ros.futures import WaitTimeout, wait_for
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters
from llm_planner_ros.ros.topics import (
    AUDIT_TOPIC,
    CONFIRM_SERVICE,
    EXECUTE_INSTRUCTION_ACTION,
    GOALS_TOPIC,
    SCENE_TOPIC,
    SCORES_TOPIC,
    STATE_QOS,
    STOP_TOPIC,
)

URL_TOPIC = "operator_console/url"
# How long an instruction or a cancel waits for the planner's action server. The console may discover a
# graph's servers seconds after another node did: at 2 s, a fresh-clone test run under load sent its
# instruction into "no planner serves ..." while the planner was up (docs/reliability.md, row 60).
SERVER_WAIT_S = 10.0
ANSWER_WAIT_S = 10.0  # how long it waits for the server's answer
FRESH_FRAME_S = 2.0  # a camera that sent nothing for this long gives way to the next one in camera_topics

PARAMETERS = {
    "host": Parameter("127.0.0.1", "address the page is served on; any non-loopback address needs the token"),
    "port": Parameter(8080, "TCP port of the page (0: any free port, published on operator_console/url)", 0, 65535),
    "token": Parameter("", "the token every request needs (empty: none on loopback, a random one elsewhere)"),
    "allowed_hosts": Parameter(
        [""], "host names the page may also be opened by (besides the bound address, and loopback's names)"
    ),
    "audit_folder": Parameter(
        "", "folder of the audit files, one JSON-lines file a run (empty: ~/.cache/llm_planner_ros/console)"
    ),
    "robots": Parameter([""], "namespaces of the robots shown ('' is the console's own namespace)"),
    "approval_timeout_s": Parameter(30.0, "a step not answered on the page in time is refused", minimum=1.0),
    "robot_state_topic": Parameter("sim/robot_state", "the robot-state record's topic (robot/state on a robot)"),
    "camera_topics": Parameter(
        ["perception/debug_image", "camera/color/image_raw"],
        "camera images in order of preference (perception's, with its detections drawn, first)",
    ),
}


def _relative(namespace: str, name: str) -> str:
    """``name`` inside ``namespace`` ("" keeps it relative, so the node's own namespace applies)."""
    return f"{namespace.rstrip('/')}/{name}" if namespace else name


@dataclass
class _Robot:
    """The ROS side of one robot: its planner's clients, its stop publisher and its latest camera frames."""

    namespace: str
    goals: RaceFreeActionClient
    cancel: Client
    stop: Publisher
    frames: dict[str, tuple[float, Image]] = field(default_factory=dict)
    jpeg: tuple[int, bytes] | None = None  # (board frame number, encoded), so a frame is encoded once


class OperatorConsoleNode(Node):
    """Serves the console page and ConfirmPlan for each robot; ``close()`` refuses what is pending and
    stops the web server."""

    def __init__(self) -> None:
        super().__init__("operator_console")
        p = declare_parameters(self, PARAMETERS)
        self._camera_topics: list[str] = list(p["camera_topics"])
        self._access = Access.for_bind(p["host"], p["token"])
        self._audit = self._open_audit(p["audit_folder"])
        namespaces = list(dict.fromkeys(p["robots"])) or [""]
        full_namespaces = [self._full_namespace(ns) for ns in namespaces]
        self._board = ConsoleBoard(full_namespaces, self._access.required, audit=self._audit.write)
        self._desk = ApprovalDesk(self._board, float(p["approval_timeout_s"]))
        self._group = ReentrantCallbackGroup()
        state_topic = p["robot_state_topic"]
        self._robots = [self._connect(index, namespace, state_topic) for index, namespace in enumerate(namespaces)]
        listener = self._listen(p["host"], int(p["port"]))
        port = listener.getsockname()[1]
        app = create_app(
            self._board, self._desk, self, self._access, ServedNames.for_bind(p["host"], p["allowed_hosts"])
        )
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [listener]}, daemon=True)
        self._thread.start()
        page = f"http://{browser_host(p['host'])}:{port}/"
        url = page + (f"?token={self._access.token}" if self._access.required else "")
        self.create_publisher(String, URL_TOPIC, STATE_QOS).publish(String(data=url))
        served = ", ".join(self.resolve_service_name(_relative(ns, CONFIRM_SERVICE)) for ns in namespaces)
        self.get_logger().info(f"operator console at {url} (answering {served}; audit file {self._audit.path})")
        started = f"serving {page} on {p['host']}:{port} for {', '.join(full_namespaces)}"
        entry = {"time": time.time(), "kind": "console", "who": "console", "action": "started", "detail": started}
        self._audit.write({**entry, "robot": ""})

    # ----- ROS side of each robot -----------------------------------------------------------------------
    def _connect(self, index: int, namespace: str, robot_state_topic: str) -> _Robot:
        def name(topic: str) -> str:
            return _relative(namespace, topic)

        robot = _Robot(
            namespace,
            RaceFreeActionClient(
                self, ExecuteInstruction, name(EXECUTE_INSTRUCTION_ACTION), callback_group=self._group
            ),
            self.create_client(
                CancelGoal, name(f"{EXECUTE_INSTRUCTION_ACTION}/_action/cancel_goal"), callback_group=self._group
            ),
            self.create_publisher(Bool, name(STOP_TOPIC), 10),
        )
        self.create_subscription(String, name(GOALS_TOPIC), lambda m: self._on_goal(index, m), EVENTS_QOS)
        self.create_subscription(PlanStep, name(SCORES_TOPIC), lambda m: self._on_step(index, m), EVENTS_QOS)
        self.create_subscription(Bool, name(STOP_TOPIC), lambda m: self._on_stop(index, m), 10)
        self.create_subscription(String, name(AUDIT_TOPIC), lambda m: self._on_agent_call(index, m), EVENTS_QOS)
        self.create_subscription(SceneObjectArray, name(SCENE_TOPIC), lambda m: self._on_scene(index, m), STATE_QOS)
        self.create_subscription(String, name(robot_state_topic), lambda m: self._on_state(index, m), STATE_QOS)
        for topic in self._camera_topics:
            self.create_subscription(
                Image, name(topic), lambda m, t=topic: self._on_frame(index, t, m), qos_profile_sensor_data
            )
        self.create_service(
            ConfirmPlan, name(CONFIRM_SERVICE), lambda q, r: self._on_confirm(index, q, r), callback_group=self._group
        )
        return robot

    def _on_goal(self, robot: int, msg: String) -> None:
        try:
            event = json.loads(msg.data)
        except json.JSONDecodeError:
            self.get_logger().warning(f"goal event that is not JSON ignored: {msg.data[:80]!r}")
            return

        def apply(board: RobotBoard) -> None:
            if event.get("event") == "started":
                # Steps stamped after the start belong to this goal even when they arrived before it.
                since = float(event.get("stamp", 0.0))
                board.steps = {index: step for index, step in board.steps.items() if step["stamp"] >= since}
                board.goal, board.decision = event, None
            elif board.goal is not None and board.goal.get("goal_id") == event.get("goal_id"):
                # The goal keeps its start's stamp, which tells its steps from a previous goal's.
                board.goal = {**board.goal, **event, "stamp": board.goal.get("stamp", 0.0)}

        self._board.change(robot, apply)

    def _on_step(self, robot: int, msg: PlanStep) -> None:
        step = step_json(record_from_msg(msg))

        def apply(board: RobotBoard) -> None:
            if board.goal is None or step["stamp"] >= float(board.goal.get("stamp", 0.0)):  # not a late one
                board.steps[step["index"]] = step

        self._board.change(robot, apply)

    def _on_agent_call(self, robot: int, msg: String) -> None:
        """A call an agent made through ``llm-planner mcp``: into the trail under the client's name (refused
        ones rate-limited like the page's refused requests)."""
        try:
            call = json.loads(msg.data)
            who, action, detail = f"{call['who']}", f"{call['action']}", f"{call.get('detail', '')}"
        except (json.JSONDecodeError, KeyError, TypeError):
            self.get_logger().warning(f"audit entry that is not an agent's call ignored: {msg.data[:80]!r}")
            return
        if call.get("kind") == "refused request":
            self._board.refused(who, action, detail)
        else:
            self._board.log(who, action, robot, detail)

    def _on_stop(self, robot: int, msg: Bool) -> None:
        self._board.change(robot, lambda board: setattr(board, "estop", bool(msg.data)))

    def _on_scene(self, robot: int, msg: SceneObjectArray) -> None:
        objects = sorted(
            (
                {"id": o.id, "label": o.label, "location": o.location, "confidence": round(float(o.confidence), 3)}
                for o in msg.objects
            ),
            key=lambda item: (item["location"], item["id"]),
        )
        self._board.change(robot, lambda board: setattr(board, "scene", objects))

    def _on_state(self, robot: int, msg: String) -> None:
        try:
            state = json.loads(msg.data)
        except json.JSONDecodeError:
            state = msg.data
        self._board.change(robot, lambda board: setattr(board, "robot_state", state))

    def _on_frame(self, robot: int, topic: str, msg: Image) -> None:
        self._robots[robot].frames[topic] = (time.monotonic(), msg)
        if topic == self._camera_topic(robot):

            def count(board: RobotBoard) -> None:
                board.camera_frame += 1
                board.camera_topic = self.resolve_topic_name(_relative(self._robots[robot].namespace, topic))

            self._board.change(robot, count)

    def _camera_topic(self, robot: int) -> str | None:
        """The first of camera_topics with a recent frame (else the one with the newest frame)."""
        frames = self._robots[robot].frames
        now = time.monotonic()
        for topic in self._camera_topics:
            if topic in frames and now - frames[topic][0] < FRESH_FRAME_S:
                return topic
        return max(frames, key=lambda t: frames[t][0]) if frames else None

    def _on_confirm(self, robot: int, request: ConfirmPlan.Request, response: ConfirmPlan.Response):
        answer = self._desk.ask(robot, request.instruction, [record_from_msg(step) for step in request.steps])
        response.approved, response.reason = answer.approved, answer.reason
        return response

    # ----- the page's controls (web_app.RobotControls) -------------------------------------------------
    def send_instruction(self, robot: int, text: str, planner: str, plan_only: bool) -> str:
        client = self._robots[robot].goals
        if not client.wait_for_server(timeout_sec=SERVER_WAIT_S):
            raise ControlError(f"no planner serves {self._action_name(robot)}: is the graph up?")
        goal = ExecuteInstruction.Goal(instruction=text, planner=planner, plan_only=plan_only)
        try:
            handle = wait_for(client.send_goal_async(goal), ANSWER_WAIT_S, self._action_name(robot))
        except WaitTimeout as error:
            raise ControlError(str(error)) from error
        if not handle.accepted:
            raise ControlError(f"{self._action_name(robot)} rejected the goal")
        return f"goal sent to {self._action_name(robot)}"

    def cancel(self, robot: int) -> str:
        client = self._robots[robot].cancel
        name = f"{self._action_name(robot)}/_action/cancel_goal"
        if not client.wait_for_service(timeout_sec=SERVER_WAIT_S):
            raise ControlError(f"no planner serves {name}: is the graph up?")
        # A zero goal id and stamp cancels every goal of the server (action_msgs/srv/CancelGoal).
        try:
            answer = wait_for(client.call_async(CancelGoal.Request(goal_info=GoalInfo())), ANSWER_WAIT_S, name)
        except WaitTimeout as error:
            raise ControlError(str(error)) from error
        return f"cancel requested for {len(answer.goals_canceling)} goal(s)"

    def estop(self, robot: int, engaged: bool) -> str:
        self._robots[robot].stop.publish(Bool(data=engaged))
        topic = self.resolve_topic_name(_relative(self._robots[robot].namespace, STOP_TOPIC))
        return f"{'true' if engaged else 'false'} published on {topic}"

    def camera_jpeg(self, robot: int) -> bytes | None:
        topic = self._camera_topic(robot)
        if topic is None:
            return None
        frame = self._board.read(robot, lambda board: board.camera_frame)
        cached = self._robots[robot].jpeg
        if cached is not None and cached[0] == frame:
            return cached[1]
        try:
            rgb = rgb_from_msg(self._robots[robot].frames[topic][1])
        except ImageFormatError as error:
            self.get_logger().warning(f"camera frame on {topic} not shown: {error}", throttle_duration_sec=10.0)
            return None
        ok, encoded = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            return None
        self._robots[robot].jpeg = (frame, encoded.tobytes())
        return encoded.tobytes()

    def _full_namespace(self, namespace: str) -> str:
        """A robot's namespace as the graph names it (a relative one is inside the console's own)."""
        if namespace.startswith("/"):
            return namespace.rstrip("/") or "/"
        own = self.get_namespace().rstrip("/")
        return f"{own}/{namespace}" if namespace else own or "/"

    def _action_name(self, robot: int) -> str:
        return self.resolve_topic_name(_relative(self._robots[robot].namespace, EXECUTE_INSTRUCTION_ACTION))

    # ----- lifetime ---------------------------------------------------------------------------------------
    def _open_audit(self, folder: str) -> AuditTrail:
        """The audit file of this run under ``folder``; StartupError naming the parameter when it cannot be made."""
        path = audit_path(folder)
        logger = self.get_logger()
        try:
            return AuditTrail(path, logger.info, logger.warning)
        except OSError as error:
            raise StartupError(
                f"operator console cannot write its audit file {path} ({error.strerror or error}): set its "
                "parameter audit_folder to a folder it may write"
            ) from error

    def _listen(self, host: str, port: int) -> socket.socket:
        """A socket bound to host:port and already listening."""
        try:
            family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
            listener = socket.socket(family, kind, proto)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(address)
            # Listen here, not in uvicorn's thread: the address is published as soon as this returns,
            # and a client that connects before that thread reaches listen() is refused (ECONNREFUSED);
            # a listening socket queues it in the backlog until the server accepts.
            listener.listen(128)
        except OSError as error:
            raise StartupError(
                f"operator console cannot listen on {host}:{port} ({error.strerror or error}): set its "
                "parameters host and port (port 0: any free port), or start the graph with console:=false"
            ) from error
        return listener

    def close(self) -> None:
        self._desk.close()
        self._server.should_exit = True
        self._thread.join(timeout=5.0)
        self._board.close()
        self._audit.close()


def main() -> None:
    run_node(OperatorConsoleNode, threads=6)

"""Executor nodes: ExecuteSkill action servers that run a robot's skills on a backend.

  manipulator_executor   /executors/manipulator/execute_skill   pick up, put down, drawer skills
  mobile_base_executor   /executors/mobile_base/execute_skill   find, go to, bring it to you
  skill_executor         /executors/<name>/execute_skill        any executor a skills file declares, started
                                                                as <name>_executor (-r __node:=wiper_executor)

A goal is REJECTED (the reason logged) when its skill text is not a skill of the library, when the
skill runs on the other executor, when the message's family/arguments/executor disagree with the
library (empty fields are filled from it), or while another skill runs. Accepted goals report the
backend's progress and phase as feedback; cancel is relayed to the backend, which leaves the robot
consistent. Backends (``skill_executors.backend.SkillBackend``): ``sim`` (sim_world), ``nav2``
(NavigateToPose to the place map's base poses), ``moveit`` (MoveGroup pose goals and a GripperCommand
gripper for pick, put down and the drawer skills), ``action`` (goals of the ROS 2 action the skills file
binds the executor to, skill_executors.action_backend); docs/robot.md describes the robot ones and their
parameters, docs/domains.md the action binding.
"""

from __future__ import annotations

import threading
import time

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.domain.config import ConfigError
from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.skill import EXECUTOR_NODE_SUFFIX, MANIPULATOR, MOBILE_BASE, Skill
from llm_planner_ros.robot_motion.place_map import PlaceMapError, load_place_map
from llm_planner_ros.ros.messages import skill_from_msg
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters
from llm_planner_ros.ros.topics import APPLY_SKILL_ACTION, EXECUTOR_CLOSING, executor_action, full_name
from skill_executors.action_backend import ActionBackend
from skill_executors.action_call import CallLimits
from skill_executors.backend import SkillBackend, Status
from skill_executors.facts_routing import FactsRouting
from skill_executors.goal_template import TemplateError
from skill_executors.robot_parameters import ROBOT_PARAMETERS
from skill_executors.robot_view import RobotView
from skill_executors.sim_backend import SimBackend

BACKENDS = ("sim", "nav2", "moveit", "action")
# How long close() waits for the running skill's goal to end (its motion canceled); below the 5 s
# ros2 launch gives a node between SIGINT and SIGTERM.
CLOSE_WAIT_S = 4.0
# rclpy sends a goal's result after its execute callback returned, on an executor thread: close() leaves
# it this long (the spinner still spins) before the node is destroyed.
RESULT_SEND_S = 0.3

PARAMETERS = {
    "backend": Parameter("sim", f"what runs the skills: {', '.join(BACKENDS)}", choices=BACKENDS),
    "world_file": Parameter("", "world YAML (empty: the default domain's, config/domains.yaml)"),
    "skills_file": Parameter("", "skill templates YAML (empty: the default domain's, config/domains.yaml)"),
    "sim_action": Parameter(APPLY_SKILL_ACTION, "sim backend: sim_world's skill action"),
    "apply_in_sim": Parameter(
        False, "action backend: apply each skill the action did in sim_world too (a device tried in simulation)"
    ),
    "facts_in_sim": Parameter(
        False,
        "nav2/moveit backends: send a skill that changes declared facts only to sim_action (a simulator applies "
        "it); false refuses it",
    ),
    "server_timeout_s": Parameter(
        10.0, "how long to wait for the backend's server before failing a skill", minimum=0.0
    ),
    "silence_timeout_s": Parameter(
        10.0,
        "sim backend: fail a skill when the simulator sends neither feedback nor result for this long (0: off)",
        minimum=0.0,
    ),
    **ROBOT_PARAMETERS,
}


class ExecutorNode(Node):
    """The ``executor`` executor (``manipulator``, ``mobile_base``, or with None the one the node's name
    says: ``wiper_executor`` runs ``wiper``), one skill at a time."""

    def __init__(self, executor: str | None) -> None:
        super().__init__(f"{executor}{EXECUTOR_NODE_SUFFIX}" if executor else "skill_executor")
        if executor is None:
            if not self.get_name().endswith(EXECUTOR_NODE_SUFFIX) or self.get_name() == "skill_executor":
                raise StartupError(
                    f"node name {self.get_name()!r} names no executor: start skill_executor as <executor>"
                    f"{EXECUTOR_NODE_SUFFIX} (--ros-args -r __node:=wiper{EXECUTOR_NODE_SUFFIX})"
                )
            executor = self.get_name().removesuffix(EXECUTOR_NODE_SUFFIX)
        self.executor_name = executor
        p = declare_parameters(self, PARAMETERS)
        try:
            kitchen = load_domain_files(p["world_file"] or None, p["skills_file"] or None)
        except (ConfigError, OSError) as error:
            raise StartupError(f"cannot load the kitchen configuration: {error}") from error
        library = kitchen.library
        if executor not in library.executors and executor not in (MANIPULATOR, MOBILE_BASE):
            raise StartupError(
                f"executor {executor!r} is not declared by {library.source} (executors: "
                f"{', '.join(library.executors)}): add it to the skills file's `executors`"
            )
        self._object_size = kitchen.config.object_size
        # Drawer skills included: whether the current scene has a drawer is the world's concern.
        self._skills = {skill.text: skill for skill in library.skills(with_drawer=True)}
        group = ReentrantCallbackGroup()
        self._backend = self._make_backend(p, group, kitchen)
        self._active: str | None = None
        self._active_lock = threading.Lock()
        self._idle = threading.Condition(self._active_lock)
        self._closing = threading.Event()
        self._server = ActionServer(
            self,
            ExecuteSkill,
            executor_action(executor),
            execute_callback=self._execute,
            goal_callback=self._on_goal,
            cancel_callback=lambda _goal: CancelResponse.ACCEPT,
            callback_group=group,
        )
        served = sorted({s.family for s in self._skills.values() if s.executor == executor})
        self.get_logger().info(
            f"{full_name(self, executor_action(executor))} ready ({p['backend']} backend; families {', '.join(served)})"
        )

    def close(self) -> None:
        """Before the node goes down: the running skill is interrupted as a cancel would (its Nav2, MoveIt
        or simulator goal canceled) and its goal aborted with the reason, so no motion outlives the node.

        Waits up to CLOSE_WAIT_S for that goal to end: rclpy runs an execute callback as a task its executor
        does not count as running work, so without the wait the node could be destroyed while the skill's
        goal was still being sent, and the motion would run on uncanceled."""
        self._closing.set()
        with self._idle:
            if not self._idle.wait_for(lambda: self._active is None, timeout=CLOSE_WAIT_S):
                self.get_logger().warning(f"{self._active!r} did not end within {CLOSE_WAIT_S:g} s of the shutdown")
                return
        time.sleep(RESULT_SEND_S)

    def _make_backend(self, p: dict, group: ReentrantCallbackGroup, kitchen: Domain) -> SkillBackend:
        if p["backend"] == "sim":
            return self._sim_backend(p, group)
        if p["backend"] == "action":
            return self._action_backend(p, group, kitchen)
        try:
            places = load_place_map(p["map_file"] or None, kitchen.config)
        except (PlaceMapError, OSError) as error:
            raise StartupError(f"cannot load the place map: {error}") from error
        view = RobotView(self, places, p, group)
        try:
            if p["backend"] == "nav2":
                from skill_executors.nav2_backend import Nav2Backend

                backend: SkillBackend = Nav2Backend(self, places, view, p, group)
            else:
                from skill_executors.moveit_backend import MoveItBackend

                backend = MoveItBackend(self, places, view, p, group, self._object_size, kitchen)
        except ImportError as error:
            raise StartupError(
                f"backend {p['backend']!r} needs the interface package {error.name}, which is not installed: "
                "run make setup (it builds them into .venv) or install ros-jazzy-nav2-msgs, "
                "ros-jazzy-moveit-msgs and ros-jazzy-control-msgs"
            ) from error
        self.get_logger().info(f"{p['backend']} backend: {view.describe()}, places from {places.source}")
        facts = self._sim_backend(p, group) if p["facts_in_sim"] else None
        return FactsRouting(backend, facts, kitchen.library, self.executor_name)

    def _sim_backend(self, p: dict, group: ReentrantCallbackGroup) -> SimBackend:
        return SimBackend(self, p["sim_action"], group, p["server_timeout_s"], p["silence_timeout_s"])

    def _action_backend(self, p: dict, group: ReentrantCallbackGroup, kitchen: Domain) -> SkillBackend:
        library = kitchen.library
        binding = library.action_bindings.get(self.executor_name)
        if binding is None:
            raise StartupError(
                f"backend action: {library.source} binds executor {self.executor_name!r} to no action; add "
                f"executors.{self.executor_name}.action (type, name, goal, success; docs/domains.md) or choose "
                f"another backend ({', '.join(b for b in BACKENDS if b != 'action')})"
            )
        places = None
        if any(name.startswith("place.") for name in binding.placeholders()):
            try:
                places = load_place_map(p["map_file"] or None, kitchen.config)
            except (PlaceMapError, OSError) as error:
                raise StartupError(f"cannot load the place map for the goal's {{place.*}}: {error}") from error
        limits = CallLimits(p["server_timeout_s"], binding.timeout_s, server_lost_s=p["server_lost_s"])
        skills = [skill for skill in self._skills.values() if skill.executor == self.executor_name]
        then = self._sim_backend(p, group) if p["apply_in_sim"] else None
        try:
            backend = ActionBackend(
                self, self.executor_name, binding, skills, kitchen.config, places, limits, group, then
            )
        except TemplateError as error:
            raise StartupError(f"backend action ({library.source}, executors.{self.executor_name}): {error}") from error
        self.get_logger().info(f"action backend: {binding.type} goals on {binding.name}")
        return backend

    def resolve(self, requested: Skill) -> tuple[Skill | None, str]:
        """The library's skill for a request, or None and the reason it is refused."""
        skill = self._skills.get(requested.text)
        if skill is None:
            return None, f"unknown skill {requested.text!r}: not a skill of the kitchen's skill library"
        if skill.executor != self.executor_name:
            runs_on = skill.executor or "no executor (the planner handles it)"
            return None, f"{skill.text!r} runs on {runs_on}, not on {self.executor_name}"
        for field in ("family", "arguments", "executor"):
            sent, expected = getattr(requested, field), getattr(skill, field)
            if sent and sent != expected:
                return None, f"{skill.text!r} has {field} {expected!r} in the skill library, the goal says {sent!r}"
        return skill, ""

    def _on_goal(self, goal: ExecuteSkill.Goal) -> GoalResponse:
        skill, reason = self.resolve(skill_from_msg(goal.skill))
        with self._active_lock:
            if skill is not None and self._closing.is_set():
                reason = f"{EXECUTOR_CLOSING}{self.get_name()} takes no new goal"
            elif skill is not None and self._active is not None:
                reason = f"busy running {self._active!r}; cancel it or wait"
            elif skill is not None:
                self._active = skill.text
                return GoalResponse.ACCEPT
        self.get_logger().warning(f"rejecting goal {goal.skill.text!r}: {reason}")
        return GoalResponse.REJECT

    def _execute(self, handle: ServerGoalHandle) -> ExecuteSkill.Result:
        skill = self._skills[handle.request.skill.text]
        feedback = ExecuteSkill.Feedback()

        def report(progress: float, phase: str) -> None:
            feedback.progress, feedback.phase = progress, phase
            handle.publish_feedback(feedback)

        try:
            self.get_logger().info(f"executing {skill.text!r}")
            outcome = self._backend.execute(skill, report, lambda: handle.is_cancel_requested or self._closing.is_set())
            message = outcome.message
            if outcome.status is Status.SUCCEEDED:
                handle.succeed()
            elif outcome.status is Status.CANCELED and handle.is_cancel_requested:
                handle.canceled()
            else:
                if self._closing.is_set():
                    message = f"{EXECUTOR_CLOSING}{message}"
                handle.abort()
            self.get_logger().info(f"{skill.text!r} {outcome.status.value}: {message}")
            return ExecuteSkill.Result(success=outcome.success, message=message)
        finally:
            # Only now is the goal's end set: close() may let the node go once it sees no skill running.
            with self._idle:
                self._active = None
                self._idle.notify_all()


def main(args: list[str] | None = None) -> None:
    """``skill_executor``: the executor its node name says (``-r __node:=wiper_executor``)."""
    raise SystemExit(run_node(lambda: ExecutorNode(None), threads=4, args=args))


def manipulator_main(args: list[str] | None = None) -> None:
    raise SystemExit(run_node(lambda: ExecutorNode(MANIPULATOR), threads=4, args=args))


def mobile_base_main(args: list[str] | None = None) -> None:
    raise SystemExit(run_node(lambda: ExecutorNode(MOBILE_BASE), threads=4, args=args))

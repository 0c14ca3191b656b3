"""sim_world: owns the simulated kitchen, publishes its ground truth, and plays out skills.

Publishes (reliable, transient-local depth 1, so late subscribers get the current state; republished
every ``publish_period_s`` and on every change, both messages of one state with the same stamp):
  /scene/objects     llm_planner_interfaces/SceneObjectArray   objects, pose at their place, confidence 1
  /sim/robot_state   std_msgs/String                           JSON record, see
  llm_planner_ros.domain.robot_state
Serves:
  /sim/apply_skill   llm_planner_interfaces/action/ExecuteSkill   the executors' sim backend sends skills
                     here; feedback gives phase and progress; cancel stops the skill with the world unchanged
  /sim/load_episode  llm_planner_interfaces/srv/LoadEpisode       reset to an episode's initial state

A skill's effect is applied at once when its last phase ends (a canceled navigation leaves the robot
at its start, a canceled pick leaves the object where it was). One skill runs at a time; a second
one, or a load while a skill runs, is refused with the reason.
"""

from __future__ import annotations

import threading
from enum import Enum

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.domain.config import ConfigError
from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.execution import Phase, SkillTiming, run_skill
from llm_planner_ros.domain.failures import FailureInjector
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.domain.skill import DRAWER, PICK, PLACE
from llm_planner_ros.domain.world import SkillError, World
from llm_planner_ros.ros.messages import scene_objects_msg, skill_from_msg
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters
from llm_planner_ros.ros.topics import (
    APPLY_SKILL_ACTION,
    LOAD_EPISODE_SERVICE,
    ROBOT_STATE_TOPIC,
    SCENE_TOPIC,
    STATE_QOS,
)

PARAMETERS = {
    "world_file": Parameter("", "world YAML (empty: the default domain's, config/domains.yaml)"),
    "skills_file": Parameter("", "skill templates YAML (empty: the default domain's, config/domains.yaml)"),
    "episode_file": Parameter("", "episode file whose initial state to start from (empty: the world's default scene)"),
    "episode_id": Parameter("", "episode of episode_file (may be empty when the file has one episode)"),
    "time_scale": Parameter(1.0, "wall-clock seconds per simulated second; 0 plays skills out at once", minimum=0.0),
    "navigation_speed_mps": Parameter(0.5, "travel speed of find / go to / bring it to you", minimum=0.001),
    "navigation_setup_s": Parameter(1.0, "path planning time before each navigation", minimum=0.0),
    "pick_s": Parameter(6.0, "duration of a pick (approach, grasp, lift)", minimum=0.0),
    "place_s": Parameter(4.0, "duration of a put down (approach, release, retract)", minimum=0.0),
    "drawer_s": Parameter(5.0, "duration of a drawer skill (reach, actuate, retract)", minimum=0.0),
    "inject_failures": Parameter(False, "fail skills at random with the per-family probabilities of the skills file"),
    "failure_seed": Parameter(0, "seed of injected failures (same seed, episode and attempts: same failures)"),
    "publish_period_s": Parameter(1.0, "period of republishing the state when nothing changes", minimum=0.001),
    "feedback_period_s": Parameter(
        0.1, "wall-clock period of skill feedback (and of checking for cancel)", minimum=0.001
    ),
}


class _Play(Enum):
    COMPLETED = "completed"
    CANCELED = "canceled"
    STOPPED = "stopped"


class SimWorldNode(Node):
    """ROS adapter around a ``World``: every access to the world happens under ``_lock``."""

    def __init__(self) -> None:
        super().__init__("sim_world")
        p = declare_parameters(self, PARAMETERS)
        try:
            self._kitchen = load_domain_files(p["world_file"] or None, p["skills_file"] or None)
        except (ConfigError, OSError) as error:
            raise StartupError(f"cannot load the kitchen configuration: {error}") from error
        self._timing = SkillTiming(
            navigation_speed_mps=p["navigation_speed_mps"],
            navigation_setup_s=p["navigation_setup_s"],
            manipulation_s={PICK: p["pick_s"], PLACE: p["place_s"], DRAWER: p["drawer_s"]},
        )
        self._failures = FailureInjector(
            self._kitchen.library.failure_probability, seed=p["failure_seed"], enabled=p["inject_failures"]
        )
        self._time_scale: float = p["time_scale"]
        self._feedback_period: float = p["feedback_period_s"]
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._busy: str | None = None
        self._revision = 0
        try:
            self._world, self._episode = self._load(p["episode_file"], p["episode_id"])
        except ValueError as error:
            raise StartupError(f"cannot start from episode_file/episode_id: {error}") from error
        self._failures.reset(self._episode)

        self._objects_pub = self.create_publisher(SceneObjectArray, SCENE_TOPIC, STATE_QOS)
        self._robot_pub = self.create_publisher(String, ROBOT_STATE_TOPIC, STATE_QOS)
        group = ReentrantCallbackGroup()
        self._action = ActionServer(
            self,
            ExecuteSkill,
            APPLY_SKILL_ACTION,
            execute_callback=self._execute,
            goal_callback=lambda _goal: GoalResponse.ACCEPT,
            cancel_callback=lambda _goal: CancelResponse.ACCEPT,
            callback_group=group,
        )
        self._load_service = self.create_service(LoadEpisode, LOAD_EPISODE_SERVICE, self._on_load, callback_group=group)
        self._timer = self.create_timer(p["publish_period_s"], self._publish)
        self._publish()
        failures = f"failures on (seed {p['failure_seed']})" if p["inject_failures"] else "failures off"
        self.get_logger().info(
            f"simulating {self._kitchen.config.world} ({failures}), time_scale {self._time_scale}:\n"
            f"{self._world.summary()}"
        )

    def close(self) -> None:
        """Stop a skill being played out (it ends without effect) before the node goes down."""
        self._stopping.set()

    # ----- state publishing ------------------------------------------------------------------------------
    def _publish(self) -> None:
        with self._lock:
            self._publish_locked()

    def _publish_locked(self) -> None:
        stamp = self.get_clock().now().to_msg()
        self._objects_pub.publish(scene_objects_msg(self._world, stamp))
        record = RobotState.of_world(self._world, (stamp.sec, stamp.nanosec), self._revision, self._episode, self._busy)
        self._robot_pub.publish(String(data=record.to_json()))

    # ----- episodes ---------------------------------------------------------------------------------------
    def _load(self, episode_file: str, episode_id: str) -> tuple[World, str]:
        """The world of an episode (or the default scene); ValueError says what is wrong."""
        if not episode_file:
            if episode_id:
                raise ValueError(f"episode_id {episode_id!r} given without episode_file")
            return self._kitchen.world(), ""
        try:
            episodes = load_episodes(episode_file, self._kitchen)
        except OSError as error:
            raise ValueError(f"cannot read episode file: {error}") from error
        episode = episodes.select(episode_id)
        return episode.world(self._kitchen), episode.id

    def _on_load(self, request: LoadEpisode.Request, response: LoadEpisode.Response) -> LoadEpisode.Response:
        with self._lock:
            if self._busy is not None:
                response.success = False
                response.message = f"busy running {self._busy!r}: cancel it or wait for it before loading an episode"
                return response
            try:
                world, episode = self._load(request.episode_file, request.episode_id)
            except ValueError as error:  # EpisodeFileError included
                response.success = False
                response.message = str(error)
                self.get_logger().error(f"load_episode refused: {error}")
                return response
            self._world, self._episode = world, episode
            self._failures.reset(episode)
            self._revision += 1
            self._publish_locked()
        response.success = True
        response.message = f"loaded {episode or 'the default scene'}\n{world.summary()}"
        self.get_logger().info(response.message)
        return response

    # ----- skills -----------------------------------------------------------------------------------------
    def _execute(self, handle: ServerGoalHandle) -> ExecuteSkill.Result:
        skill = skill_from_msg(handle.request.skill)
        with self._lock:
            try:
                if self._busy is not None:
                    raise SkillError(f"the robot is busy running {self._busy!r}")
                rule = self._world.check(skill)
            except SkillError as error:
                self.get_logger().warning(f"refusing {skill.text!r}: {error}")
                handle.abort()
                return ExecuteSkill.Result(success=False, message=str(error))
            self._busy = skill.text
            phases = self._timing.phases(self._world, rule.skill)
            self._publish_locked()
        self.get_logger().info(f"running {skill.text!r}: {', '.join(f'{ph.name} {ph.seconds:.1f}s' for ph in phases)}")
        play = _Play.STOPPED
        try:
            play = self._play(handle, phases)
        finally:
            with self._lock:
                self._busy = None
                outcome = run_skill(self._world, skill, self._failures) if play is _Play.COMPLETED else None
                self._revision += bool(outcome and outcome.success)
                self._publish_locked()
        if outcome is None:
            message = f"{play.value}: {skill.text!r} stopped before it took effect; the world is unchanged"
            if play is _Play.CANCELED:
                handle.canceled()
            else:
                handle.abort()
            self.get_logger().info(message)
            return ExecuteSkill.Result(success=False, message=message)
        if outcome.success:
            handle.succeed()
        else:
            handle.abort()
        self.get_logger().info(outcome.message)
        return ExecuteSkill.Result(success=outcome.success, message=outcome.message)

    def _play(self, handle: ServerGoalHandle, phases: tuple[Phase, ...]) -> _Play:
        """Let the phases' scaled durations pass, with feedback; stop early on cancel or shutdown."""
        total = sum(phase.seconds for phase in phases)
        done = 0.0
        feedback = ExecuteSkill.Feedback()
        for phase in phases:
            elapsed = 0.0
            while True:
                if handle.is_cancel_requested:
                    return _Play.CANCELED
                if self._stopping.is_set():
                    return _Play.STOPPED
                feedback.phase = phase.name
                feedback.progress = float((done + elapsed) / total) if total > 0 else 1.0
                handle.publish_feedback(feedback)
                if elapsed >= phase.seconds:
                    break
                step = phase.seconds - elapsed
                if self._time_scale > 0:
                    step = min(step, self._feedback_period / self._time_scale)
                self._stopping.wait(step * self._time_scale)
                elapsed += step
            done += phase.seconds
        return _Play.COMPLETED


def main(args: list[str] | None = None) -> None:
    raise SystemExit(run_node(SimWorldNode, threads=4, args=args))

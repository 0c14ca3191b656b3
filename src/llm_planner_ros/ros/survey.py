"""The look around before the first instruction on the perceived physics graph (``--sim physics``), and
before each episode of ``bench kitchen --sim physics --scene perceived`` (``evaluation.ros_runner``).

Perception knows only what the head camera has seen, and the robot starts at one place: an instruction
naming an object elsewhere would find it missing from the scene. So before the graph takes goals
perception forgets what it knew (``perception/clear_scene``: after a simulator reset its old objects
are ghosts, which also lend their labels to new objects standing where they stood), the robot visits
every place of the world once with the mobile base executor's ``go to`` skills (the goals the planner
itself sends), waits at each until perception has processed frames taken there, and the simulator is
then reset to the initial state (``sim/load_episode``): the robot back at its start, its visits
forgotten, the objects (which driving past never touched) where perception saw them.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from rclpy.node import Node

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_interfaces.srv import ClearScene, LoadEpisode
from llm_planner_ros.domain.skill import GOTO, Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.futures import WaitTimeout, wait_for
from llm_planner_ros.ros.messages import skill_to_msg
from llm_planner_ros.ros.topics import (
    CLEAR_SCENE_SERVICE,
    LOAD_EPISODE_SERVICE,
    SCENE_TOPIC,
    STATE_QOS,
    executor_action,
)

# Scenes perception must publish after the robot arrives before a place counts as seen: the first may
# come from a frame taken on the way.
FRAMES_PER_PLACE = 2
# At the start place two more: the clear's own empty scene, and a scene from a frame rendered before the
# simulator reset and still in flight, are no frames taken there.
START_EXTRA_FRAMES = 2
SKILL_TIMEOUT_S = 120.0
FRAMES_TIMEOUT_S = 30.0
# The first scene waits for perception to start: it loads torch and the sentence embedder (slow under load).
STARTUP_TIMEOUT_S = 240.0


class SurveyError(RuntimeError):
    """The look around could not finish (an executor or the simulator did not answer); says what to check."""


def route(world: World) -> list[Skill]:
    """The ``go to`` skills of every place with a surface but the robot's own, nearest first from where it
    stands (which may be the drawers: a camera sees nothing in a drawer, so the route leaves it out)."""
    config = world.kitchen.config
    todo = {s.argument: s for s in world.admissible_skills() if s.family == GOTO and s.argument in config.locations}
    here = world.robot_at
    todo.pop(here, None)
    order = []
    while todo:
        start = config.position(here)
        here = min(
            todo, key=lambda place: math.hypot(config.position(place).x - start.x, config.position(place).y - start.y)
        )
        order.append(todo.pop(here))
    return order


class Survey:
    """Drives ``node``'s graph through ``route(world)`` and resets the simulator to ``reload``;
    ``report(line)`` is told each place as it is seen. ``run`` returns the places whose ``go to`` failed
    (they were not seen); SurveyError when a server did not answer."""

    def __init__(self, node: Node, report: Callable[[str], None]) -> None:
        self._node = node
        self._report = report
        self._scenes = 0
        self._objects = 0
        self._changed = threading.Condition()
        node.create_subscription(SceneObjectArray, SCENE_TOPIC, self._on_scene, STATE_QOS)
        self._base = RaceFreeActionClient(node, ExecuteSkill, executor_action("mobile_base"))
        self._base_name = node.resolve_topic_name(executor_action("mobile_base"))
        self._load = node.create_client(LoadEpisode, LOAD_EPISODE_SERVICE)
        self._clear = node.create_client(ClearScene, CLEAR_SCENE_SERVICE)

    def _on_scene(self, msg: SceneObjectArray) -> None:
        with self._changed:
            self._scenes += 1
            self._objects = len(msg.objects)
            self._changed.notify_all()

    def run(self, world: World, reload: LoadEpisode.Request) -> list[str]:
        missed = []
        self._forget_old_objects()
        self._wait_frames(world.robot_at, STARTUP_TIMEOUT_S, START_EXTRA_FRAMES)
        for skill in route(world):
            if not self._go(skill):
                missed.append(str(skill.argument))
                continue
            self._wait_frames(str(skill.argument), FRAMES_TIMEOUT_S)
        if not self._load.wait_for_service(timeout_sec=10.0):
            service = self._node.resolve_service_name(LOAD_EPISODE_SERVICE)
            raise SurveyError(f"no {service} service: is the simulator up?")
        reply = self._wait(self._load.call_async(reload), 60.0, "resetting the simulator after the look around")
        if not reply.success:
            raise SurveyError(f"the simulator refused the reset after the look around: {reply.message}")
        return missed

    def _forget_old_objects(self) -> None:
        if not self._clear.wait_for_service(timeout_sec=STARTUP_TIMEOUT_S):
            service = self._node.resolve_service_name(CLEAR_SCENE_SERVICE)
            raise SurveyError(f"no {service} service: is perception up?")
        reply = self._wait(self._clear.call_async(ClearScene.Request()), 30.0, "clearing perception's scene")
        self._report(f"perception: {reply.message}")

    def _go(self, skill: Skill) -> bool:
        if not self._base.wait_for_server(timeout_sec=10.0):
            raise SurveyError(f"no mobile base executor at {self._base_name}: is the graph up?")
        handle = self._wait(self._base.send_goal_async(ExecuteSkill.Goal(skill=skill_to_msg(skill))), 10.0, skill.text)
        if not handle.accepted:
            return False
        response = self._wait(handle.get_result_async(), SKILL_TIMEOUT_S, skill.text)
        if not response.result.success:
            self._report(f"{skill.text} failed ({response.result.message}): its objects stay unseen")
        return bool(response.result.success)

    def _wait_frames(self, place: str, timeout_s: float, extra: int = 0) -> None:
        deadline = time.monotonic() + timeout_s
        with self._changed:
            target = self._scenes + FRAMES_PER_PLACE + extra
            while self._scenes < target:
                if not self._changed.wait(max(0.0, deadline - time.monotonic())):
                    raise SurveyError(
                        f"perception published no scene for {timeout_s:.0f} s at the {place}: see the "
                        "perception node's log (is the head camera publishing?)"
                    )
            objects = self._objects
        self._report(f"looked at the {place}: {objects} object(s) known")

    @staticmethod
    def _wait(future, timeout_s: float, what: str):
        try:
            return wait_for(future, timeout_s, what)
        except WaitTimeout as error:
            raise SurveyError(str(error)) from error

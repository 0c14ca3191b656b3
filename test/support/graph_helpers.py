"""Helpers of the kitchen graph tests: watching the simulated world and driving its services."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from ros_harness import RosGraph, wait_future, wait_until
from std_msgs.msg import String

from llm_planner_interfaces.action import EvaluateAffordance, ExecuteSkill
from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.ros.messages import skill_to_msg
from llm_planner_ros.ros.topics import LOAD_EPISODE_SERVICE, ROBOT_STATE_TOPIC, SCENE_TOPIC, STATE_QOS


class WorldWatcher:
    """Keeps the latest /scene/objects and /sim/robot_state seen by the test's node."""

    def __init__(self, graph: RosGraph) -> None:
        self._lock = threading.Lock()
        self.objects: dict[str, tuple[str, str]] = {}  # id -> (label, location)
        self.robot: RobotState | None = None
        graph.node.create_subscription(SceneObjectArray, SCENE_TOPIC, self._on_objects, STATE_QOS)
        graph.node.create_subscription(String, ROBOT_STATE_TOPIC, self._on_robot, STATE_QOS)

    def _on_objects(self, msg: SceneObjectArray) -> None:
        with self._lock:
            self.objects = {o.id: (o.label, o.location) for o in msg.objects}

    def _on_robot(self, msg: String) -> None:
        with self._lock:
            self.robot = RobotState.from_json(msg.data)

    def location_of(self, object_id: str) -> str | None:
        with self._lock:
            entry = self.objects.get(object_id)
        return entry[1] if entry else None

    def wait_for(self, predicate: Callable[[WorldWatcher], bool], what: str, timeout: float = 20.0) -> None:
        wait_until(lambda: predicate(self), timeout, what)

    def wait_robot(self, what: str, predicate: Callable[[RobotState], bool], timeout: float = 20.0) -> RobotState:
        wait_until(lambda: self.robot is not None and predicate(self.robot), timeout, what)
        assert self.robot is not None
        return self.robot


def write_episode(path: Path, episode_id: str, initial: dict[str, Any]) -> Path:
    """An episode file with one episode starting from ``initial`` (the goal does not matter here)."""
    path.write_text(
        yaml.safe_dump(
            {
                "world": "saycan_kitchen",
                "episodes": [
                    {
                        "id": episode_id,
                        "family": "test",
                        "instruction": "test",
                        "initial": initial,
                        "goal": {"holding": None},
                    }
                ],
            }
        )
    )
    return path


def load_episode(graph: RosGraph, episode_file: Path | str, episode_id: str = "") -> LoadEpisode.Response:
    client = graph.service_client(LoadEpisode, LOAD_EPISODE_SERVICE)
    return wait_future(client.call_async(LoadEpisode.Request(episode_file=str(episode_file), episode_id=episode_id)))


def evaluate(client: Any, skills: list[Skill]) -> EvaluateAffordance.Result:
    handle = wait_future(client.send_goal_async(EvaluateAffordance.Goal(skills=[skill_to_msg(s) for s in skills])))
    assert handle.accepted
    return wait_future(handle.get_result_async()).result


def execute(client: Any, skill: Skill, feedback: list[tuple[str, float]] | None = None) -> Any | None:
    """Send a skill to an executor and wait: the GetResult response (``.status``, ``.result``), or None
    when the executor rejected the goal. ``feedback`` collects (phase, progress) pairs."""
    on_feedback = None if feedback is None else (lambda m: feedback.append((m.feedback.phase, m.feedback.progress)))
    handle = wait_future(
        client.send_goal_async(ExecuteSkill.Goal(skill=skill_to_msg(skill)), feedback_callback=on_feedback)
    )
    if not handle.accepted:
        return None
    return wait_future(handle.get_result_async(), timeout=60.0)

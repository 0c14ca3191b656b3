"""Where a client of the planner reads the robot's state: the running planner's own parameters.

The planner node declares ``scene_topic``, ``robot_state_topic`` and ``match_stamps`` (read-only). A client
that shows the robot's state (``llm-planner run``, ``llm-planner mcp``) asks the running planner for them
instead of deciding them a second time, so it reads the topics the planner reads, the way the planner
reads them, on every graph: the symbolic simulator (``sim/robot_state``, stamps matched), the perceived
physics graph (perception's own stamps) and a robot (``robot/state``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rclpy.node import Node
from rclpy.parameter import parameter_value_to_python
from rclpy.parameter_client import AsyncParameterClient

from llm_planner_ros.ros.futures import WaitTimeout, wait_for
from llm_planner_ros.ros.topics import PLANNER_NODE, ROBOT_STATE_TOPIC, SCENE_TOPIC

NAMES = ("scene_topic", "robot_state_topic", "match_stamps")


@dataclass(frozen=True)
class StateTopics:
    """The state topics and how to pair them; ``answered``: the planner said so (else the simulator's
    defaults), ``source`` says where they came from and, for the defaults, why."""

    scene_topic: str
    robot_state_topic: str
    match_stamps: bool
    answered: bool
    source: str

    def under(self, namespace: str) -> StateTopics:
        """The topic names as seen from ``namespace`` (the planner's): relative names resolve in it."""

        def resolved(name: str) -> str:
            return name if name.startswith("/") else f"{namespace.rstrip('/')}/{name}"

        return StateTopics(
            resolved(self.scene_topic), resolved(self.robot_state_topic), self.match_stamps, self.answered, self.source
        )


def planner_state_topics(node: Node, planner: str = PLANNER_NODE, timeout_s: float = 5.0) -> StateTopics:
    """The running ``planner``'s state topics (a node name resolved from ``node``'s namespace). A planner that
    does not answer within ``timeout_s`` (not ours, or a name of the user's own) gives the simulator's
    defaults, with ``source`` saying why and how to make it answer."""
    client = AsyncParameterClient(node, planner)
    unanswered = (
        f"the defaults ({SCENE_TOPIC}, {ROBOT_STATE_TOPIC}): the planner node {planner} answered no parameter "
        f"request within {timeout_s:.0f} s (is it named {PLANNER_NODE}?)"
    )
    try:
        if not client.wait_for_services(timeout_s):
            return StateTopics(SCENE_TOPIC, ROBOT_STATE_TOPIC, True, False, unanswered)
        response = wait_for(client.get_parameters(list(NAMES)), timeout_s, f"{planner} parameters")
    except WaitTimeout:
        return StateTopics(SCENE_TOPIC, ROBOT_STATE_TOPIC, True, False, unanswered)
    scene, robot_state, match_stamps = (parameter_value_to_python(value) for value in response.values)
    if not (isinstance(scene, str) and isinstance(robot_state, str) and isinstance(match_stamps, bool)):
        declared = f"the defaults: {planner} does not declare {', '.join(NAMES)}"
        return StateTopics(SCENE_TOPIC, ROBOT_STATE_TOPIC, True, False, declared)
    return StateTopics(scene, robot_state, match_stamps, True, f"the parameters of {planner}")

"""A manipulation skill that fails after moving the arm ends with the arm at the executor's named stow
state (config/physics_graph.yaml `stow_named_target: tucked`), through physics_sim's MoveGroup server
resolving the named state from config/physics_kitchen.yaml's `named_states`.

Regression of drawer-06 on the physics graph: a put in the drawer failed at its retreat, the arm stayed
out over the counter, and every later navigation stopped on it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import execute
from ros_harness import RosGraph, wait_until
from sensor_msgs.msg import JointState
from test_physics_drawer_and_put_down import AT_THE_DRAWER, start

from llm_planner_ros.domain import Domain
from llm_planner_ros.physics_sim.robot import TUCKED

pytestmark = [pytest.mark.graph, pytest.mark.timeout(180)]

ARM = [f"panda_joint{i}" for i in range(1, 8)]


class ArmJoints:
    """The latest arm joint angles of physics_sim's joint_states, and the farthest any joint got
    from the tucked start pose."""

    def __init__(self, graph: RosGraph) -> None:
        self._lock = threading.Lock()
        self.angles: list[float] = []
        self.farthest = 0.0
        graph.node.create_subscription(JointState, "joint_states", self._on_joints, 10)

    def _on_joints(self, msg: JointState) -> None:
        by_name = dict(zip(msg.name, msg.position, strict=True))
        with self._lock:
            self.angles = [by_name[name] for name in ARM]
            away = max(abs(a - t) for a, t in zip(self.angles, TUCKED, strict=True))
            self.farthest = max(self.farthest, away)

    def at(self, pose: tuple[float, ...], tolerance: float) -> bool:
        with self._lock:
            return bool(self.angles) and all(abs(a - t) < tolerance for a, t in zip(self.angles, pose, strict=True))


def test_a_failed_drawer_skill_returns_the_arm_to_the_named_stow_state(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    joints = ArmJoints(ros_graph)
    arm, _ = start(ros_graph, tmp_path, AT_THE_DRAWER)
    wait_until(lambda: joints.at(TUCKED, 0.05), 20.0, "the arm tucked at the start")
    # Closing a closed drawer: the hand goes to where the open drawer's handle would be and closes on air.
    response = execute(arm, kitchen.world(AT_THE_DRAWER).skill("close the drawer"))
    assert response.status == GoalStatus.STATUS_ABORTED, response.result.message
    message = response.result.message
    assert message.startswith("'close the drawer' stopped at 'close on handle'"), message
    assert message.endswith("; the arm went to 'tucked'"), message
    assert joints.farthest > 0.5, "the skill moved the arm out before it failed"
    wait_until(lambda: joints.at(TUCKED, 0.05), 20.0, "the arm back at the named state 'tucked'")

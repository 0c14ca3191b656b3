"""RosEnvironment asks each family's affordance server about the state it plans on: every goal carries
the stamp of that state's robot-state record, so a server a message behind waits for it (the server's side:
test/affordance_servers/test_graph_affordance.py)."""

from __future__ import annotations

from typing import Any

import pytest
from rclpy.action import ActionServer
from rclpy.callback_groups import ReentrantCallbackGroup
from ros_harness import RosGraph, wait_until
from std_msgs.msg import String

from llm_planner_interfaces.action import EvaluateAffordance
from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_ros.domain import Domain
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.ros.messages import scene_objects_msg, stamp_of, time_msg
from llm_planner_ros.ros.ros_environment import ActionClients, RosEnvironment
from llm_planner_ros.ros.topic_state_provider import TopicStateProvider
from llm_planner_ros.ros.topics import ROBOT_STATE_TOPIC, SCENE_TOPIC, STATE_QOS

pytestmark = pytest.mark.graph


@pytest.mark.timeout(60)
def test_affordance_goals_carry_the_stamp_of_the_state_planned_on(ros_graph: RosGraph, kitchen: Domain) -> None:
    node, group = ros_graph.node, ReentrantCallbackGroup()
    stamps: list[tuple[int, int]] = []

    def answer(handle: Any) -> EvaluateAffordance.Result:
        stamps.append(stamp_of(handle.request.state_stamp))
        handle.succeed()
        return EvaluateAffordance.Result(affordances=[0.5] * len(handle.request.skills), success=True)

    # The affordance server's double: it records each goal's stamp (the real server's waiting is tested
    # against the real node).
    ActionServer(node, EvaluateAffordance, "/affordance/pick", answer, callback_group=group)
    scene = node.create_publisher(SceneObjectArray, SCENE_TOPIC, STATE_QOS)
    robot = node.create_publisher(String, ROBOT_STATE_TOPIC, STATE_QOS)
    world = kitchen.world(
        {"robot": {"at": "far counter"}, "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}]}
    )
    state = TopicStateProvider(node, kitchen, SCENE_TOPIC, ROBOT_STATE_TOPIC, match_stamps=True, callback_group=group)
    env = RosEnvironment(
        node,
        state,
        ActionClients(node, group),
        canceled=lambda: None,
        affordance_timeout_s=20.0,
        executor_timeout_s=20.0,
        server_wait_s=20.0,
        server_lost_s=3.0,
        effect_wait_s=3.0,
    )
    scene.publish(scene_objects_msg(world, time_msg((123, 456))))
    robot.publish(String(data=RobotState.of_world(world, (123, 456), 1, "", busy=None).to_json()))
    wait_until(lambda: state.stamp() == (123, 456), what="the published state")

    assert env.affordances([env.snapshot().skill("pick up the coke")]) == [0.5]
    assert stamps == [(123, 456)]

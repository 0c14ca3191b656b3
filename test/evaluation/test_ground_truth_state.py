"""The ROS bench's reader of the physics simulator's ground truth: a world received after a moment of the
bench node's clock is waited for, so an episode is never judged on a record that left the simulator
before the planner's result arrived."""

from __future__ import annotations

import json

from ros_harness import RosGraph, wait_until
from std_msgs.msg import String

from llm_planner_ros.domain import Domain
from llm_planner_ros.evaluation.ground_truth import TRUTH_TOPIC, GroundTruthState
from llm_planner_ros.ros.topics import STATE_QOS


def _record(holding_apple: bool) -> String:
    apple = {"id": "apple_1", "label": "apple", "at": "robot" if holding_apple else "table"}
    truth = {"robot": {"at": "table"}, "objects": [apple], "drawer_open": None, "visited": ["table"]}
    return String(data=json.dumps(truth))


def test_a_record_received_after_a_moment_is_waited_for(ros_graph: RosGraph, kitchen: Domain) -> None:
    truth = GroundTruthState(ros_graph.node, kitchen)
    publisher = ros_graph.node.create_publisher(String, TRUTH_TOPIC, STATE_QOS)
    wait_until(lambda: publisher.get_subscription_count() >= 1, 10.0, "the truth subscription")
    publisher.publish(_record(holding_apple=False))
    first = truth.wait(10.0)
    assert first is not None and first.holding is None

    result_arrived = ros_graph.node.get_clock().now().seconds_nanoseconds()
    assert truth.wait_published_after(result_arrived, 0.3) is None, "a record from before the moment was taken"
    publisher.publish(_record(holding_apple=True))
    after = truth.wait_published_after(result_arrived, 10.0)
    assert after is not None and after.holding is not None and after.holding.id == "apple_1"

"""The graph-test harness keeps serving the test after one of the test's own callbacks raises.

CI once lost a whole module of graph tests to this: a callback of the test's executor raised (an action
client destroyed while its status message was being handled), the executor's spinning thread ended, and
every later service call of the module timed out with nothing in the logs to say why.
"""

from __future__ import annotations

from rcl_interfaces.srv import ListParameters
from ros_harness import RosGraph, publish_until, wait_future, wait_until
from std_msgs.msg import Empty

TOPIC = "/harness_test/raise"


def test_a_raising_callback_is_reported_and_the_executor_keeps_spinning(ros_graph: RosGraph) -> None:
    def explode(_msg: Empty) -> None:
        raise RuntimeError("callback failed on purpose")

    ros_graph.node.create_subscription(Empty, TOPIC, explode, 10)
    publisher = ros_graph.node.create_publisher(Empty, TOPIC, 10)
    wait_until(lambda: publisher.get_subscription_count() >= 1, what="the test's own subscription")
    publish_until(publisher, Empty(), lambda: bool(ros_graph.spin_errors), "the callback's error to be recorded")

    # A round trip through the same executor: the node's own parameter service answers its own client.
    client = ros_graph.node.create_client(ListParameters, f"/{ros_graph.node.get_name()}/list_parameters")
    assert client.wait_for_service(timeout_sec=20)
    response = wait_future(client.call_async(ListParameters.Request()), what="a call after the error")
    assert response is not None
    assert "RuntimeError: callback failed on purpose" in ros_graph.logs()

"""The robot interface packages (built from robot_interfaces/ by ``make setup``, or a real ROS 2
install) are wire-compatible with ROS 2 Jazzy's Nav2, MoveIt 2 and ros2_control: their actions carry
the released RIHS01 type hashes (GripperCommand, whose released hash was not found, its released field
list), the compiled typesupport advertises the same hashes on the wire, and a NavigateToPose goal,
feedback and result make a round trip through Fast DDS."""

from __future__ import annotations

import importlib
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from rclpy.action import ActionServer
from rclpy.callback_groups import ReentrantCallbackGroup
from ros_harness import RosGraph, wait_future
from rosidl_generator_type_description import calculate_type_hash
from type_description_interfaces.msg import FieldType

pytestmark = pytest.mark.timeout(60)

# RIHS01 hashes of the released ROS 2 Jazzy packages (nav2_msgs 1.3.x, moveit_msgs 2.6.0), as a
# Jazzy install reports them; the hash covers type and field names, field types and nesting.
RELEASED_HASHES = {
    "nav2_msgs/action/NavigateToPose": "RIHS01_a56dba8a3234a1215e610180dc703ae25bbf406dded8b54887891c9732857eab",
    "moveit_msgs/action/MoveGroup": "RIHS01_8c41d70908a2d26b564ddac31e9710f697a753bbd2a4d229542f76271daefc0b",
    "moveit_msgs/action/ExecuteTrajectory": "RIHS01_e1ed3386f275fc8cea91cc78701074f892e78e583be2f8063eea5616dd1065fc",
}

DOUBLE, BOOL, NESTED = FieldType.FIELD_TYPE_DOUBLE, FieldType.FIELD_TYPE_BOOLEAN, FieldType.FIELD_TYPE_NESTED_TYPE
GRIPPER_STATE = [("position", DOUBLE, ""), ("effort", DOUBLE, ""), ("stalled", BOOL, ""), ("reached_goal", BOOL, "")]
# control_msgs 5.x (Jazzy) GripperCommand, field for field.
RELEASED_GRIPPER_FIELDS = {
    "control_msgs/action/GripperCommand_Goal": [("command", NESTED, "control_msgs/msg/GripperCommand")],
    "control_msgs/msg/GripperCommand": [("position", DOUBLE, ""), ("max_effort", DOUBLE, "")],
    "control_msgs/action/GripperCommand_Result": GRIPPER_STATE,
    "control_msgs/action/GripperCommand_Feedback": GRIPPER_STATE,
}
ACTIONS = [*RELEASED_HASHES, "control_msgs/action/GripperCommand"]


def action_class(type_name: str) -> Any:
    """The Python action type for ``pkg/action/Name``; fails with the fix when it is not built."""
    package, _, name = type_name.split("/")
    try:
        return getattr(importlib.import_module(f"{package}.action"), name)
    except ImportError as error:
        pytest.fail(f"{type_name} not importable ({error}): run make setup (docs/robot_interfaces.md)")


def type_description(type_name: str) -> dict[str, Any]:
    """The type description JSON of ``pkg/action/Name`` written at build time with its hashes, from the
    install prefix of the Python package that imports (prefix/lib/pythonX.Y/site-packages/pkg)."""
    package, kind, name = type_name.split("/")
    prefix = Path(importlib.import_module(package).__file__).parents[4]
    return json.loads((prefix / "share" / package / kind / f"{name}.json").read_text())


def hashes_of(type_name: str) -> dict[str, str]:
    """Every type's hash in ``type_name``'s description, after checking the top one recomputes."""
    description = type_description(type_name)
    hashes = {entry["type_name"]: entry["hash_string"] for entry in description["type_hashes"]}
    assert calculate_type_hash(description["type_description_msg"]) == hashes[type_name]
    return hashes


@pytest.mark.parametrize("type_name", list(RELEASED_HASHES))
def test_actions_carry_the_released_jazzy_type_hash(type_name: str) -> None:
    action_class(type_name)
    assert hashes_of(type_name)[type_name] == RELEASED_HASHES[type_name]


def test_gripper_command_has_the_released_field_list() -> None:
    action_class("control_msgs/action/GripperCommand")
    description = type_description("control_msgs/action/GripperCommand")["type_description_msg"]
    types = {t["type_name"]: t for t in [description["type_description"], *description["referenced_type_descriptions"]]}
    for type_name, released in RELEASED_GRIPPER_FIELDS.items():
        fields = [(f["name"], f["type"]["type_id"], f["type"]["nested_type_name"]) for f in types[type_name]["fields"]]
        assert fields == released, type_name


@pytest.mark.graph
@pytest.mark.parametrize("type_name", ACTIONS)
def test_the_typesupport_advertises_the_built_hash_on_the_wire(ros_graph: RosGraph, type_name: str) -> None:
    """The C typesupport rclpy loads reports the same hash as the description (a stale or mixed
    build would not), here for the action's feedback topic."""
    action = action_class(type_name)
    topic = f"/{type_name.split('/')[-1].lower()}_hash_probe"
    ros_graph.node.create_publisher(action.Impl.FeedbackMessage, topic, 1)
    (endpoint,) = ros_graph.node.get_publishers_info_by_topic(topic)
    assert endpoint.topic_type == f"{type_name}_FeedbackMessage"
    assert str(endpoint.topic_type_hash) == hashes_of(type_name)[endpoint.topic_type]


@pytest.mark.graph
def test_a_navigate_to_pose_goal_feedback_and_result_round_trip(ros_graph: RosGraph) -> None:
    navigate = action_class("nav2_msgs/action/NavigateToPose")
    feedback_seen = threading.Event()

    def drive(goal_handle: Any) -> Any:
        # Feedback is repeated until the client has one: its subscription may match a moment late.
        feedback = navigate.Feedback(distance_remaining=1.25, number_of_recoveries=2)
        feedback.current_pose.header.frame_id = "map"
        while not feedback_seen.wait(0.05):
            goal_handle.publish_feedback(feedback)
        goal_handle.succeed()
        pose = goal_handle.request.pose
        return navigate.Result(error_code=0, error_msg=f"reached {pose.pose.position.x} in {pose.header.frame_id}")

    ActionServer(ros_graph.node, navigate, "navigate_to_pose", drive, callback_group=ReentrantCallbackGroup())
    client = ros_graph.action_client(navigate, "navigate_to_pose")
    goal = navigate.Goal(behavior_tree="")
    goal.pose.header.frame_id = "map"
    goal.pose.pose.position.x = 2.5
    received: list[Any] = []

    def on_feedback(message: Any) -> None:
        received.append(message.feedback)
        feedback_seen.set()

    goal_handle = wait_future(client.send_goal_async(goal, feedback_callback=on_feedback), what="goal acceptance")
    assert goal_handle.accepted
    response = wait_future(goal_handle.get_result_async(), what="the result")
    assert response.status == GoalStatus.STATUS_SUCCEEDED
    assert response.result.error_code == navigate.Result.NONE
    assert response.result.error_msg == "reached 2.5 in map"
    assert received[0].distance_remaining == pytest.approx(1.25)
    assert received[0].number_of_recoveries == 2 and received[0].current_pose.header.frame_id == "map"


# composition_interfaces (rcl_interfaces 2.0.x, Jazzy), which launch_ros imports: field names and types in order.
RELEASED_COMPOSITION_FIELDS = {
    "LoadNode": (
        [
            ("package_name", "string"),
            ("plugin_name", "string"),
            ("node_name", "string"),
            ("node_namespace", "string"),
            ("log_level", "uint8"),
            ("remap_rules", "sequence<string>"),
            ("parameters", "sequence<rcl_interfaces/Parameter>"),
            ("extra_arguments", "sequence<rcl_interfaces/Parameter>"),
        ],
        [("success", "boolean"), ("error_message", "string"), ("full_node_name", "string"), ("unique_id", "uint64")],
    ),
    "UnloadNode": ([("unique_id", "uint64")], [("success", "boolean"), ("error_message", "string")]),
    "ListNodes": ([], [("full_node_names", "sequence<string>"), ("unique_ids", "sequence<uint64>")]),
}


@pytest.mark.parametrize("name", list(RELEASED_COMPOSITION_FIELDS))
def test_composition_interfaces_have_the_released_field_lists(name: str) -> None:
    service = getattr(importlib.import_module("composition_interfaces.srv"), name)
    request, response = RELEASED_COMPOSITION_FIELDS[name]
    assert list(service.Request.get_fields_and_field_types().items()) == request
    assert list(service.Response.get_fields_and_field_types().items()) == response

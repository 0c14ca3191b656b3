"""Graph tests of physics_sim through the robot interfaces a Nav2/MoveIt bringup offers."""

from __future__ import annotations

import json
import math
import threading
import time
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from control_msgs.action import GripperCommand
from geometry_msgs.msg import Pose, PoseStamped, Quaternion
from moveit_msgs.action import MoveGroup
from moveit_msgs.msg import Constraints, JointConstraint, MoveItErrorCodes, OrientationConstraint, PositionConstraint
from nav2_msgs.action import NavigateToPose
from ros_harness import RosGraph, wait_future, wait_until
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image, JointState
from shape_msgs.msg import SolidPrimitive
from std_msgs.msg import String

from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.perception.geometry import Transform
from llm_planner_ros.physics_sim.robot import TUCKED
from llm_planner_ros.ros.topics import LOAD_EPISODE_SERVICE, ROBOT_STATE_TOPIC, SCENE_TOPIC, STATE_QOS

pytestmark = pytest.mark.graph

GRIPPER = "panda_hand_controller/gripper_cmd"
TOP_DOWN = (1.0, 0.0, 0.0, 0.0)  # the hand pointing down (pi about x), as the moveit backend sends it
# Standing poses of config/physics_kitchen.yaml (and config/robot_map.yaml): 0.6 m before the place.
FAR_COUNTER = (4.5, 1.1, -math.pi / 2)
CLOSE_COUNTER = (1.0, 1.1, -math.pi / 2)
USER = (5.5, 3.4, math.pi / 2)
# Top-down grasps close the fingertips 3.5 cm below an object's top: deeper, the palm would hit it.
GRASP_BELOW_TOP = 0.035
COKE_HALF_HEIGHT = 0.061
FAST = {"real_time_factor": 0.0, "image_width": 64, "image_height": 48, "camera_rate_hz": 2.0}


class Truth:
    """The latest ground truth, robot state and scene the node published."""

    def __init__(self, graph: RosGraph) -> None:
        self._lock = threading.Lock()
        self.data: dict[str, Any] | None = None
        self.robot: RobotState | None = None
        self.scene: dict[str, str] = {}
        self.seen: set[str] = set()
        node = graph.node
        node.create_subscription(String, "sim/ground_truth", self._on_truth, STATE_QOS)
        node.create_subscription(String, ROBOT_STATE_TOPIC, self._on_robot, STATE_QOS)
        node.create_subscription(SceneObjectArray, SCENE_TOPIC, self._on_scene, STATE_QOS)
        for topic, kind in (
            ("/clock", Clock),
            ("joint_states", JointState),
            ("camera/color/image_raw", Image),
            ("camera/depth/image_raw", Image),
            ("camera/color/camera_info", CameraInfo),
            ("wrist_camera/color/image_raw", Image),
            ("camera/pose", PoseStamped),
        ):
            node.create_subscription(kind, topic, lambda msg, t=topic: self._saw(t, msg), 10)
        self.messages: dict[str, Any] = {}

    def _saw(self, topic: str, msg: Any) -> None:
        with self._lock:
            self.seen.add(topic)
            self.messages[topic] = msg

    def _on_truth(self, msg: String) -> None:
        with self._lock:
            self.data = json.loads(msg.data)

    def _on_robot(self, msg: String) -> None:
        with self._lock:
            self.robot = RobotState.from_json(msg.data)

    def _on_scene(self, msg: SceneObjectArray) -> None:
        with self._lock:
            self.scene = {o.id: o.location for o in msg.objects}

    def object(self, object_id: str) -> dict[str, Any]:
        wait_until(lambda: self.data is not None, 30.0, "ground truth")
        with self._lock:
            assert self.data is not None
            return next(o for o in self.data["objects"] if o["id"] == object_id)


def _start(graph: RosGraph, **params: object) -> Truth:
    graph.start_node("physics_sim", params={**FAST, **params})
    truth = Truth(graph)
    wait_until(lambda: truth.data is not None and truth.robot is not None, 60.0, "first ground truth")
    return truth


def _navigate(client: Any, x: float, y: float, yaw: float) -> Any:
    goal = NavigateToPose.Goal(pose=PoseStamped())
    goal.pose.header.frame_id = "map"
    goal.pose.pose.position.x, goal.pose.pose.position.y = x, y
    goal.pose.pose.orientation.z, goal.pose.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    handle = wait_future(client.send_goal_async(goal))
    assert handle.accepted
    return wait_future(handle.get_result_async(), timeout=90.0)


def _move(client: Any, position: tuple[float, float, float], link: str = "panda_grasptarget") -> Any:
    goal = MoveGroup.Goal()
    goal.request.group_name = "panda_arm"
    target = PositionConstraint(link_name=link, weight=1.0)
    target.header.frame_id = "map"
    target.constraint_region.primitives = [SolidPrimitive(type=SolidPrimitive.SPHERE, dimensions=[0.01])]
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = position
    target.constraint_region.primitive_poses = [pose]
    turn = OrientationConstraint(link_name=link, weight=1.0, orientation=Quaternion(x=1.0, y=0.0, z=0.0, w=0.0))
    turn.header.frame_id = "map"
    goal.request.goal_constraints = [Constraints(position_constraints=[target], orientation_constraints=[turn])]
    handle = wait_future(client.send_goal_async(goal))
    assert handle.accepted
    return wait_future(handle.get_result_async(), timeout=90.0)


def _tuck(client: Any) -> Any:
    """A joint goal: the carry pose, arm folded over the base (an executor drives with the arm in)."""
    goal = MoveGroup.Goal()
    goal.request.group_name = "panda_arm"
    joints = [JointConstraint(joint_name=f"panda_joint{i + 1}", position=v, weight=1.0) for i, v in enumerate(TUCKED)]
    goal.request.goal_constraints = [Constraints(joint_constraints=joints)]
    handle = wait_future(client.send_goal_async(goal))
    assert handle.accepted
    return wait_future(handle.get_result_async(), timeout=90.0)


def _grip(client: Any, position: float) -> Any:
    goal = GripperCommand.Goal()
    goal.command.position, goal.command.max_effort = position, 20.0
    handle = wait_future(client.send_goal_async(goal))
    assert handle.accepted
    return wait_future(handle.get_result_async(), timeout=60.0)


def _clients(graph: RosGraph) -> tuple[Any, Any, Any]:
    return (
        graph.action_client(NavigateToPose, "navigate_to_pose", timeout=60.0),
        graph.action_client(MoveGroup, "move_action"),
        graph.action_client(GripperCommand, GRIPPER),
    )


@pytest.mark.timeout(240)
def test_pick_and_place_through_the_robot_actions_moves_the_coke_to_the_user(ros_graph: RosGraph) -> None:
    truth = _start(ros_graph)
    base, arm, gripper = _clients(ros_graph)
    assert truth.robot is not None and truth.robot.at == "close counter" and truth.robot.holding is None
    # At the counter the head camera looks along -y and down: the optical frame the node publishes
    # (z forward, x right, y down) must say so, or perception lifts what it sees to the wrong place.
    wait_until(lambda: "camera/pose" in truth.messages, 20.0, "the head camera's pose")
    q = truth.messages["camera/pose"].pose.orientation
    rotation = Transform.from_pose((0.0, 0.0, 0.0), (q.x, q.y, q.z, q.w)).rotation
    right, down, forward = rotation.T
    assert forward[1] < -0.5 and forward[2] < 0.0 and abs(forward[0]) < 0.05, forward
    assert right[0] < -0.99 and down[2] < 0.0, (right, down)

    result = _navigate(base, *FAR_COUNTER)
    assert result.status == GoalStatus.STATUS_SUCCEEDED, result.result.error_msg
    x, y, z = truth.object("coke_1")["position"]
    grasp = (x, y, z + COKE_HALF_HEIGHT - GRASP_BELOW_TOP)
    assert _grip(gripper, 0.04).status == GoalStatus.STATUS_SUCCEEDED
    for target in ((x, y, grasp[2] + 0.12), grasp):
        result = _move(arm, target)
        assert result.result.error_code.val == MoveItErrorCodes.SUCCESS, result.result.error_code.val
    closed = _grip(gripper, 0.0)
    assert closed.status == GoalStatus.STATUS_SUCCEEDED
    assert closed.result.stalled and not closed.result.reached_goal, "closing on the can stalls the fingers"
    assert 0.02 < closed.result.position < 0.04, closed.result.position
    assert _move(arm, (x, y, grasp[2] + 0.15)).result.error_code.val == MoveItErrorCodes.SUCCESS
    wait_until(lambda: truth.robot is not None and truth.robot.holding == "coke_1", 20.0, "robot state: holding")
    wait_until(lambda: truth.scene.get("coke_1") == "robot", 20.0, "scene/objects: coke in the gripper")

    assert _tuck(arm).result.error_code.val == MoveItErrorCodes.SUCCESS
    result = _navigate(base, *USER)
    assert result.status == GoalStatus.STATUS_SUCCEEDED, result.result.error_msg
    # The user's point on the hand-over table; the can's centre a little above the top.
    spot = (5.5, 4.0, 0.75 + 0.015 + COKE_HALF_HEIGHT + (COKE_HALF_HEIGHT - GRASP_BELOW_TOP))
    for target in ((spot[0], spot[1], spot[2] + 0.12), spot):
        assert _move(arm, target).result.error_code.val == MoveItErrorCodes.SUCCESS
    opened = _grip(gripper, 0.04)
    assert opened.status == GoalStatus.STATUS_SUCCEEDED and opened.result.reached_goal
    assert _move(arm, (spot[0], spot[1], spot[2] + 0.15)).result.error_code.val == MoveItErrorCodes.SUCCESS

    wait_until(lambda: truth.object("coke_1")["at"] == "user", 20.0, "truth: coke at the user")
    wait_until(lambda: truth.scene.get("coke_1") == "user", 20.0, "scene/objects: coke at the user")
    robot = truth.robot
    assert robot is not None and robot.at == "user" and robot.holding is None
    assert robot.visited == ("close counter", "far counter", "user")
    assert truth.object("coke_1")["upright"]
    # The robot-side topics a perception node and the executors read.
    wait_until(lambda: len(truth.seen) == 7, 20.0, f"every robot topic (saw {sorted(truth.seen)})")
    image, info = truth.messages["camera/color/image_raw"], truth.messages["camera/color/camera_info"]
    assert (image.width, image.height, image.encoding) == (64, 48, "rgb8") and len(image.data) == 64 * 48 * 3
    assert truth.messages["camera/depth/image_raw"].encoding == "32FC1" and info.k[2] == 32.0
    assert list(truth.messages["joint_states"].name)[:2] == ["panda_joint1", "panda_joint2"]
    assert truth.messages["/clock"].clock.sec > 10, "simulated time ran (a fetch takes tens of seconds)"


@pytest.mark.timeout(180)
def test_unreachable_pose_fails_with_no_ik_and_a_released_object_drops(ros_graph: RosGraph) -> None:
    truth = _start(ros_graph)
    _, arm, gripper = _clients(ros_graph)
    result = _move(arm, (1.0, -1.5, 1.0))  # 2.6 m in front of the robot
    assert result.status == GoalStatus.STATUS_ABORTED
    assert result.result.error_code.val == MoveItErrorCodes.NO_IK_SOLUTION
    result = _move(arm, (1.0, 0.5, 1.0), link="panda_elbow")
    assert result.result.error_code.val == MoveItErrorCodes.INVALID_LINK_NAME

    x, y, z = truth.object("redbull_1")["position"]
    grasp = (x, y, z + 0.135 / 2 - GRASP_BELOW_TOP)
    assert _move(arm, (x, y, grasp[2] + 0.12)).result.error_code.val == MoveItErrorCodes.SUCCESS
    assert _move(arm, grasp).result.error_code.val == MoveItErrorCodes.SUCCESS
    assert _grip(gripper, 0.0).result.stalled
    lifted = (1.5, y + 0.35, grasp[2] + 0.25)  # lifted, out beside the base (x 0.75 to 1.25), over the floor
    assert _move(arm, lifted).result.error_code.val == MoveItErrorCodes.SUCCESS
    wait_until(lambda: truth.robot is not None and truth.robot.holding == "redbull_1", 20.0, "holding the redbull")
    assert _grip(gripper, 0.04).status == GoalStatus.STATUS_SUCCEEDED
    wait_until(lambda: truth.object("redbull_1")["position"][2] < 0.2, 30.0, "the redbull falls to the floor")
    wait_until(lambda: truth.robot is not None and truth.robot.holding is None, 20.0, "robot state: holding nothing")
    assert truth.object("redbull_1")["at"] is None, "on the floor: no place of the kitchen"
    wait_until(lambda: "redbull_1" not in truth.scene, 20.0, "scene/objects leaves out an object on the floor")


@pytest.mark.timeout(180)
def test_a_blocked_path_aborts_navigation_and_the_robot_stays(ros_graph: RosGraph) -> None:
    # Three walls around the far counter's standing pose (the counter closes the fourth side).
    walls = "4.5,1.8,1.6,0.2; 3.7,1.2,0.2,1.4; 5.3,1.2,0.2,1.4"
    truth = _start(ros_graph, obstacles=walls)
    base, _, _ = _clients(ros_graph)
    start = truth.robot.position if truth.robot else None
    result = _navigate(base, *FAR_COUNTER)
    assert result.status == GoalStatus.STATUS_ABORTED
    assert "blocked" in result.result.error_msg, result.result.error_msg
    result = _navigate(base, 1.0, 0.4, 0.0)  # inside the close counter
    assert result.status == GoalStatus.STATUS_ABORTED and "inside an obstacle" in result.result.error_msg
    assert truth.robot is not None and truth.robot.position == start and truth.robot.at == "close counter"

    # Loading an episode rebuilds the world: sp-02 starts with the sponge in the gripper.
    load = ros_graph.service_client(LoadEpisode, LOAD_EPISODE_SERVICE)
    request = LoadEpisode.Request(episode_file="domains/saycan_kitchen/dev.yaml", episode_id="sp-02")
    response = wait_future(load.call_async(request), timeout=30.0)
    assert response.success, response.message
    wait_until(lambda: truth.robot is not None and truth.robot.episode == "sp-02", 20.0, "robot state of sp-02")
    assert truth.robot.holding == "sponge_1" and truth.object("water_bottle_1")["at"] == "table"
    response = wait_future(load.call_async(LoadEpisode.Request(episode_file="no/such.yaml")), timeout=30.0)
    assert not response.success and "no/such.yaml" in response.message


@pytest.mark.timeout(120)
def test_the_state_a_motion_ended_in_is_published_before_its_action_answers(ros_graph: RosGraph) -> None:
    """With one periodic state publish per 5 s, the robot state at the far counter still arrives with the
    navigation's answer: a planner scoring its next skill must not read where the base was mid-route;
    published only periodically, it would arrive up to 5 s after the answer."""
    truth = _start(ros_graph, state_rate_hz=0.2)
    arrived: list[float] = []

    def on_robot(msg: String) -> None:
        if not arrived and RobotState.from_json(msg.data).at == "far counter":
            arrived.append(time.monotonic())

    ros_graph.node.create_subscription(String, ROBOT_STATE_TOPIC, on_robot, STATE_QOS)
    base, _, _ = _clients(ros_graph)
    assert truth.robot is not None and truth.robot.at == "close counter"
    result = _navigate(base, *FAR_COUNTER)
    answered = time.monotonic()
    assert result.status == GoalStatus.STATUS_SUCCEEDED, result.result.error_msg
    wait_until(lambda: bool(arrived), 10.0, "the state at the far counter")
    # The state leaves before the answer; the margin is for the two messages' delivery on a loaded host.
    assert arrived[0] <= answered + 0.3, f"the state arrived {arrived[0] - answered:.2f} s after the answer"
    wait_until(lambda: truth.robot is not None and truth.robot.at == "far counter", 5.0, "the latest state")
    assert truth.robot.busy is None, truth.robot.busy


@pytest.mark.timeout(240)
def test_an_episodes_blocked_place_gets_a_box_that_navigation_cannot_enter(ros_graph: RosGraph) -> None:
    """block-coke-01 blocks the close counter: the box stands on its standing pose, the far counter stays
    reachable, and loading an episode without ``blocked`` takes the box away."""
    truth = _start(ros_graph)
    base, _, _ = _clients(ros_graph)
    load = ros_graph.service_client(LoadEpisode, LOAD_EPISODE_SERVICE)
    request = LoadEpisode.Request(episode_file="domains/saycan_kitchen/value_reasons.yaml", episode_id="block-coke-01")
    response = wait_future(load.call_async(request), timeout=30.0)
    assert response.success, response.message
    wait_until(lambda: truth.robot is not None and truth.robot.episode == "block-coke-01", 20.0, "block-coke-01")
    result = _navigate(base, *CLOSE_COUNTER)
    assert result.status == GoalStatus.STATUS_ABORTED and "inside an obstacle" in result.result.error_msg
    result = _navigate(base, *FAR_COUNTER)
    assert result.status == GoalStatus.STATUS_SUCCEEDED, result.result.error_msg
    request = LoadEpisode.Request(episode_file="domains/saycan_kitchen/dev.yaml", episode_id="sp-02")
    assert wait_future(load.call_async(request), timeout=30.0).success
    wait_until(lambda: truth.robot is not None and truth.robot.episode == "sp-02", 20.0, "robot state of sp-02")
    result = _navigate(base, *CLOSE_COUNTER)
    assert result.status == GoalStatus.STATUS_SUCCEEDED, result.result.error_msg


@pytest.mark.timeout(240)
def test_an_episodes_lying_can_is_lying_in_the_ground_truth(ros_graph: RosGraph) -> None:
    """topple-coke-01 lays coke_1 on its side at the close counter: the ground truth reports it there and
    not upright, the other coke upright; the next episode stands its objects up again."""
    truth = _start(ros_graph)
    load = ros_graph.service_client(LoadEpisode, LOAD_EPISODE_SERVICE)
    request = LoadEpisode.Request(episode_file="domains/saycan_kitchen/value_reasons.yaml", episode_id="topple-coke-01")
    response = wait_future(load.call_async(request), timeout=30.0)
    assert response.success, response.message
    wait_until(lambda: truth.robot is not None and truth.robot.episode == "topple-coke-01", 20.0, "topple-coke-01")
    lying, upright = truth.object("coke_1"), truth.object("coke_2")
    assert (lying["at"], lying["upright"]) == ("close counter", False)
    assert (upright["at"], upright["upright"]) == ("far counter", True)
    request = LoadEpisode.Request(episode_file="domains/saycan_kitchen/dev.yaml", episode_id="sp-01")
    assert wait_future(load.call_async(request), timeout=30.0).success
    wait_until(lambda: truth.robot is not None and truth.robot.episode == "sp-01", 20.0, "robot state of sp-01")
    assert all(o["upright"] for o in truth.data["objects"] if o["at"] not in (None, "robot"))

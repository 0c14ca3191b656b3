"""Graph tests: affordance_server with the learned backend, as a planner calls it.

The test node stands in for perception and the robot: it publishes /scene/objects and the robot-state
record (equal stamps), and the server must answer from them exactly what the ROS-free model answers on
the same observation, in goal order. A missing or mismatched weight file stops the node at startup.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from geometry_msgs.msg import PoseStamped, Vector3
from graph_helpers import evaluate
from ros_harness import RosGraph, wait_until
from std_msgs.msg import String
from value_function_scenes import drawer_observation, random_weights, table_observation

from llm_planner_interfaces.action import EvaluateAffordance
from llm_planner_interfaces.msg import SceneObject, SceneObjectArray
from llm_planner_ros.domain import Domain, Skill
from llm_planner_ros.domain.config import HELD, Position
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.paths import config_file
from llm_planner_ros.ros.topics import STATE_QOS
from llm_planner_ros.value_functions.learned import LearnedAffordance
from llm_planner_ros.value_functions.observation import Observation

pytestmark = pytest.mark.graph
EXIT_WAIT_S = 30.0
SKILLS = ("pick up the coke", "go to the far counter", "put down the apple", "pick up the apple", "go to the table",
          "find an apple", "done", "bring it to you")  # fmt: skip


def _publish(ros_graph: RosGraph, observation: Observation) -> list[object]:
    """Publish an observation as perception and the robot would (kept alive by the returned publishers)."""
    node = ros_graph.node
    scene_pub = node.create_publisher(SceneObjectArray, "scene/objects", STATE_QOS)
    robot_pub = node.create_publisher(String, "sim/robot_state", STATE_QOS)
    array = SceneObjectArray()
    array.header.stamp.sec, array.header.frame_id = 7, "map"
    for number, o in enumerate(observation.objects, 1):
        pose = PoseStamped(header=array.header)
        pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = o.position
        pose.pose.orientation.w = 1.0
        array.objects.append(
            SceneObject(
                id=f"{o.label}_{number}",
                label=o.label,
                confidence=o.confidence,
                pose=pose,
                size=Vector3(x=o.size[0], y=o.size[1], z=o.size[2]),
                location=o.location,
            )
        )
    held = observation.holding_label
    if held is not None:  # perception reports the held object in the gripper; the observation leaves it out
        pose = PoseStamped(header=array.header)
        pose.pose.orientation.w = 1.0
        array.objects.append(SceneObject(id=f"{held}_held", label=held, confidence=1.0, pose=pose, location=HELD))
    robot = RobotState(
        (7, 0),
        1,
        "",
        observation.robot_at,
        Position(*observation.robot_xy),
        f"{held}_held" if held else None,
        held,
        observation.drawer_open,
        (),
    )
    scene_pub.publish(array)
    robot_pub.publish(String(data=robot.to_json()))
    return [scene_pub, robot_pub]


def _first_answer(ros_graph: RosGraph, action: str, skills: list[Skill]) -> tuple[object, list[float]]:
    """A client of ``action`` and its first successful answer for ``skills`` (the server answers once the
    published scene has reached it)."""
    client = ros_graph.action_client(EvaluateAffordance, action)
    answers: list[float] = []

    def answered() -> bool:
        result = evaluate(client, skills)
        answers[:] = list(result.affordances)
        return result.success

    wait_until(answered, timeout=20.0, what="a learned answer")
    return client, answers


@pytest.mark.timeout(120)
def test_learned_backend_answers_a_batch_in_order_from_the_perceived_scene(
    ros_graph: RosGraph, kitchen: Domain, tmp_path: Path
) -> None:
    weights = random_weights(tmp_path / "vf.npz", kitchen, seed=5)
    ros_graph.start_node(
        "affordance_server",
        param_files=[config_file("affordance_server.yaml")],
        params={"backend": "learned", "value_functions_file": str(weights)},
    )
    # The perceived positions are the observation's, after float32 transport (SceneObject.confidence is float32).
    observation = table_observation()
    keep = _publish(ros_graph, observation)
    world = kitchen.world({"robot": {"at": "table"}, "objects": []})
    skills = [world.skill(text) for text in SKILLS]
    model = LearnedAffordance(weights, kitchen)
    client, answers = _first_answer(ros_graph, "/affordance/pick", skills)
    assert answers == pytest.approx(model.evaluate(skills, observation), abs=1e-5)
    reversed_result = evaluate(client, skills[::-1])
    assert list(reversed_result.affordances) == pytest.approx(answers[::-1], abs=1e-6)
    assert answers[4] == 0.0 and answers[6] == pytest.approx(0.1)  # at the table; "done" from the analytic model
    assert len(set(answers[:4])) == 4  # the random networks tell the skills apart
    assert "with the learned backend" in ros_graph.logs()
    del keep


@pytest.mark.timeout(120)
def test_learned_backend_answers_the_drawer_skills_from_their_model(
    ros_graph: RosGraph, kitchen: Domain, tmp_path: Path
) -> None:
    """Open, close and put-in are one learned family: /affordance/drawer answers them from the drawer
    model (not the analytic fallback), in order, from the perceived drawer state and held object."""
    weights = random_weights(tmp_path / "vf.npz", kitchen, seed=6)
    ros_graph.start_node(
        "affordance_server",
        param_files=[config_file("affordance_server.yaml")],
        params={"backend": "learned", "value_functions_file": str(weights)},
    )
    observation = drawer_observation(holding="coke", drawer_open=True)
    keep = _publish(ros_graph, observation)
    world = kitchen.world({"robot": {"at": "drawers"}, "objects": [], "drawer": {"open": True}})
    skills = [world.skill(t) for t in ("put the coke in the drawer", "open the drawer", "close the drawer",
                                       "put the apple in the drawer")]  # fmt: skip
    model = LearnedAffordance(weights, kitchen)
    client, answers = _first_answer(ros_graph, "/affordance/drawer", skills)
    expected = model.evaluate(skills, observation)
    assert answers == pytest.approx(expected, abs=1e-5)
    assert list(evaluate(client, skills[::-1]).affordances) == pytest.approx(answers[::-1], abs=1e-6)
    # The analytic model would say calibration.drawer_possible or 0; the trees give graded values.
    assert len(set(answers)) == 4 and model.analytic.calibration.drawer_possible not in answers
    del keep


@pytest.mark.graph
@pytest.mark.timeout(90)
@pytest.mark.parametrize("case", ["missing", "mismatched", "unknown backend"])
def test_learned_backend_refuses_to_start_without_usable_weights(
    ros_graph: RosGraph, kitchen: Domain, tmp_path: Path, case: str
) -> None:
    params: dict[str, object] = {"backend": "learned", "value_functions_file": str(tmp_path / "absent.npz")}
    expected = "not found at"
    if case == "mismatched":
        params["value_functions_file"] = str(random_weights(tmp_path / "pick_only.npz", kitchen, families=("pick",)))
        expected = "has no model for ['place', 'goto', 'drawer']"
    elif case == "unknown backend":
        params = {"backend": "oracle"}
        expected = "choose one of ['analytic', 'learned']"
    proc = ros_graph.start_node("affordance_server", params=params)
    wait_until(lambda: proc.returncode is not None, EXIT_WAIT_S, "affordance_server exiting")
    log = proc.log()
    fatal = [line for line in log.splitlines() if "[FATAL]" in line]
    assert proc.returncode == 1, log
    assert "Traceback" not in log, log
    assert len(fatal) == 1 and expected in fatal[0], log
    if case != "unknown backend":
        assert "llm-planner train value-functions" in fatal[0]


@pytest.mark.timeout(60)
def test_the_observation_waits_for_the_scene_of_the_newest_robot_state(ros_graph: RosGraph) -> None:
    """After a navigation the robot state can arrive before the scene of the same revision: a learned
    evaluation then waits for that scene instead of scoring from the place the robot has just left."""
    from concurrent.futures import ThreadPoolExecutor

    from affordance_servers.perceived_observation import ObservationListener

    listener = ObservationListener(ros_graph.node, "scene/objects", "sim/robot_state", match_stamps=True)
    node = ros_graph.node
    scene_pub = node.create_publisher(SceneObjectArray, "scene/objects", STATE_QOS)
    robot_pub = node.create_publisher(String, "sim/robot_state", STATE_QOS)

    def publish_robot(sec: int, at: str, xy: tuple[float, float]) -> None:
        robot_pub.publish(String(data=RobotState((sec, 0), sec, "", at, Position(*xy), None, None, None, ()).to_json()))

    def publish_scene(sec: int) -> None:
        array = SceneObjectArray()
        array.header.stamp.sec, array.header.frame_id = sec, "map"
        scene_pub.publish(array)

    publish_robot(7, "table", (2.5, 2.9))
    publish_scene(7)
    wait_until(lambda: listener.current() is not None, 10.0, "the first observation")
    publish_robot(8, "far counter", (4.5, 1.1))
    wait_until(lambda: listener._robot is not None and listener._robot.stamp == (8, 0), 10.0, "the new robot state")
    stale = listener.current()
    assert stale is not None and stale.robot_at == "table"  # no wait: the last matched pair
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(listener.current, 10.0)
        publish_scene(8)
        fresh = waiting.result(timeout=15.0)
    assert fresh is not None and fresh.robot_at == "far counter" and fresh.robot_xy == (4.5, 1.1)

"""Graph tests: the affordance server over the simulator's state follows SayCan's calibration."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from graph_helpers import WorldWatcher, evaluate, load_episode, write_episode
from ros_harness import RosGraph, wait_future, wait_until
from std_msgs.msg import String

from llm_planner_interfaces.action import EvaluateAffordance
from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_ros.affordance.calibration import Calibration
from llm_planner_ros.domain import Domain, Skill, World
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.paths import config_file
from llm_planner_ros.ros.messages import scene_objects_msg, skill_to_msg, time_msg
from llm_planner_ros.ros.topics import ROBOT_STATE_TOPIC, SCENE_TOPIC, STATE_QOS

pytestmark = pytest.mark.graph

CAL = Calibration()
PICK_HIGH = CAL.pick(CAL.pick_v_reachable)


def _settle(client, skills: list[Skill], expected: list[float], what: str) -> list[float]:
    """Affordances once the server has the loaded state. The state topic and the goal travel
    independently, so a goal sent right after a load may still see the previous state."""
    seen: list[float] = []

    def matches() -> bool:
        result = evaluate(client, skills)
        assert result.success, result.message
        seen[:] = list(result.affordances)
        return seen == pytest.approx(expected)

    try:
        wait_until(matches, timeout=10.0, what=what)
    except TimeoutError:
        pytest.fail(
            f"{what}: affordances {dict(zip((s.text for s in skills), seen, strict=False))}, expected {expected}"
        )
    return seen


@pytest.mark.timeout(120)
def test_affordances_follow_the_calibration_in_chosen_states(
    ros_graph: RosGraph, kitchen: Domain, tmp_path: Path
) -> None:
    ros_graph.start_node("sim_world", params={"time_scale": 0.0})
    ros_graph.start_node("affordance_server", param_files=[config_file("affordance_server.yaml")])
    watcher = WorldWatcher(ros_graph)
    pick_client = ros_graph.action_client(EvaluateAffordance, "/affordance/pick")
    world = kitchen.world({"robot": {"at": "table"}, "objects": []})
    skill = world.skill
    pick_apple, pick_coke, put_coke = skill("pick up the apple"), skill("pick up the coke"), skill("put down the coke")
    goto_table, goto_far, bring = skill("go to the table"), skill("go to the far counter"), skill("bring it to you")
    batch = [pick_apple, pick_coke, put_coke, goto_table, goto_far, bring, skill("done")]

    def distance(a: str, b: str) -> float:
        return kitchen.config.position(a).distance_to(kitchen.config.position(b))

    # Apple here, coke elsewhere, gripper empty, robot at the table.
    response = load_episode(
        ros_graph,
        write_episode(
            tmp_path / "here.yaml",
            "here",
            {
                "robot": {"at": "table", "holding": None},
                "objects": [
                    {"id": "apple_1", "label": "apple", "at": "table"},
                    {"id": "coke_1", "label": "coke", "at": "far counter"},
                ],
            },
        ),
    )
    assert response.success, response.message
    watcher.wait_robot("episode 'here' published", lambda r: r.episode == "here")
    _settle(
        pick_client,
        batch,
        [
            PICK_HIGH,
            0.0,
            0.0,
            0.0,  # already at the table: the effect holds
            CAL.goto(distance("table", "far counter")),
            CAL.goto(distance("table", "user")),
            CAL.terminate,
        ],
        "object here vs elsewhere",
    )

    # Gripper full (holding the coke) at the far counter, apple there too.
    response = load_episode(
        ros_graph,
        write_episode(
            tmp_path / "full.yaml",
            "full",
            {
                "robot": {"at": "far counter", "holding": "coke_1"},
                "objects": [
                    {"id": "apple_1", "label": "apple", "at": "far counter"},
                    {"id": "coke_1", "label": "coke", "at": "robot"},
                ],
            },
        ),
    )
    assert response.success, response.message
    _settle(
        pick_client,
        batch,
        [
            0.0,
            0.0,
            CAL.place_holding,
            CAL.goto(distance("far counter", "table")),
            0.0,
            CAL.goto(distance("far counter", "user")),
            CAL.terminate,
        ],
        "gripper full",
    )
    assert PICK_HIGH > 0.8 and CAL.goto(distance("far counter", "user")) < CAL.goto(distance("far counter", "table"))


@pytest.mark.timeout(60)
def test_goal_fails_with_a_reason_without_state_or_for_a_family_not_hosted(
    ros_graph: RosGraph, kitchen: Domain
) -> None:
    ros_graph.start_node("affordance_server", params={"families": ["pick", "place"], "state_timeout_s": 0.5})
    client = ros_graph.action_client(EvaluateAffordance, "/affordance/pick")
    world = kitchen.world()
    result = evaluate(client, [world.skill("pick up the coke")])
    assert not result.success and "no world state from topics /scene/objects and /sim/robot_state" in result.message
    result = evaluate(client, [world.skill("go to the table")])
    assert not result.success and "send them to /affordance/goto" in result.message


@pytest.mark.timeout(120)
def test_goals_of_every_family_waiting_for_the_first_state_get_it(ros_graph: RosGraph, kitchen: Domain) -> None:
    """A planner sends one goal per family at once, e.g. to a server restarted mid-plan that has no state
    yet. The waiting goals must leave the state subscriptions a thread, so they all end with affordances
    once the simulator publishes, not with "no world state" when their wait runs out (CI caught a server
    with four threads starving its subscriptions this way). The drawer's goal needs a drawer scene."""
    ros_graph.start_node("affordance_server", params={"state_timeout_s": 60.0})
    world = kitchen.world()
    skills = {
        "pick": "pick up the coke",
        "place": "put down the coke",
        "goto": "go to the table",
        "find": "find a coke",
        "terminate": "done",
    }
    handles = []
    for family, text in skills.items():
        client = ros_graph.action_client(EvaluateAffordance, f"/affordance/{family}")
        goal = EvaluateAffordance.Goal(skills=[skill_to_msg(world.skill(text))])
        handles.append(wait_future(client.send_goal_async(goal), what=f"{family} goal response"))
    assert all(handle.accepted for handle in handles)
    ros_graph.start_node("sim_world", params={"time_scale": 0.0})
    for family, handle in zip(skills, handles, strict=True):
        result = wait_future(handle.get_result_async(), timeout=45.0, what=f"{family} result").result
        assert result.success, (family, result.message)
        assert len(result.affordances) == 1 and 0.0 <= result.affordances[0] <= 1.0


@pytest.mark.timeout(90)
def test_a_goal_stamped_with_the_planners_state_is_answered_from_it(ros_graph: RosGraph, kitchen: Domain) -> None:
    """The planner stamps each goal with the robot state it chose on. The server, whose subscription can be
    a message behind, answers from that state or a newer one: never from the state before the last skill's
    effect (CI once saw "pick up the coke" scored 0 right after "find a coke" by a server just restarted)."""
    ros_graph.start_node("affordance_server", params={"state_timeout_s": 30.0})
    scene = ros_graph.node.create_publisher(SceneObjectArray, SCENE_TOPIC, STATE_QOS)
    robot = ros_graph.node.create_publisher(String, ROBOT_STATE_TOPIC, STATE_QOS)
    away = kitchen.world(
        {"robot": {"at": "table"}, "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}]}
    )
    there = away.copy()
    there.apply("go to the far counter")

    def publish(world: World, stamp: tuple[int, int]) -> None:
        scene.publish(scene_objects_msg(world, time_msg(stamp)))
        robot.publish(String(data=RobotState.of_world(world, stamp, stamp[0], "", busy=None).to_json()))

    publish(away, (100, 0))
    client = ros_graph.action_client(EvaluateAffordance, "/affordance/pick")
    pick = [skill_to_msg(away.skill("pick up the coke"))]
    wait_until(lambda: evaluate(client, [away.skill("pick up the coke")]).affordances[0] == 0.0, what="the first state")

    handle = wait_future(client.send_goal_async(EvaluateAffordance.Goal(skills=pick, state_stamp=time_msg((101, 0)))))
    answer = handle.get_result_async()
    time.sleep(1.0)
    assert not answer.done(), "the server answered from a state older than the goal's"
    publish(there, (101, 0))
    result = wait_future(answer, timeout=30.0, what="the stamped goal's result").result
    assert result.success and result.affordances[0] == pytest.approx(PICK_HIGH), result


@pytest.mark.timeout(60)
def test_a_goal_stamped_with_a_state_that_never_comes_fails_naming_it(ros_graph: RosGraph, kitchen: Domain) -> None:
    ros_graph.start_node("sim_world", params={"time_scale": 0.0})
    ros_graph.start_node("affordance_server", params={"state_timeout_s": 0.5})
    client = ros_graph.action_client(EvaluateAffordance, "/affordance/terminate")
    done = [skill_to_msg(kitchen.world().skill("done"))]
    wait_until(lambda: evaluate(client, [kitchen.world().skill("done")]).success, what="a first state")
    far_future = time_msg((2_100_000_000, 0))  # 2036: int32 seconds
    handle = wait_future(client.send_goal_async(EvaluateAffordance.Goal(skills=done, state_stamp=far_future)))
    result = wait_future(handle.get_result_async(), what="the stamped goal's result").result
    assert not result.success
    assert "no world state stamped 2100000000.000000000 (the state the planner chose on)" in result.message
    assert "does this node read the planner's robot-state topic?" in result.message

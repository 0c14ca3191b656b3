"""The moveit backend's drawer skills through ExecuteSkill, against the robot doubles' MoveGroup and
GripperCommand servers (test/support/robot_doubles.py): open and close grasp the handle of the place map's
drawer and pull or push it straight along the drawer in path-constrained segments, a planning failure
mid-pull fails the skill naming the segment and lets go of the handle, a cancel mid-pull stops the arm,
and "put the X in the drawer" sets the held object on the open drawer's bottom."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import WorldWatcher, execute
from robot_graph import records, start_doubles, start_executor
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.domain import Domain
from llm_planner_ros.robot_motion.manipulation import ArmSettings
from llm_planner_ros.robot_motion.object_heights import load_object_heights
from llm_planner_ros.robot_motion.place_map import load_place_map
from llm_planner_ros.ros.messages import skill_to_msg

pytestmark = [pytest.mark.graph, pytest.mark.timeout(120)]

ARM = "manipulator_executor"
CLOSED = {"robot": {"at": "drawers", "holding": None}, "objects": [], "drawer": {"open": False}}
HOLDING_COKE = {
    "robot": {"at": "drawers", "holding": "coke_1"},
    "objects": [{"id": "coke_1", "label": "coke", "at": "robot"}],
    "drawer": {"open": True},
}
OPEN_PHASES = [
    "open gripper",
    "pre-grasp handle",
    "approach handle",
    "close on handle",
    "pull 1/3",
    "pull 2/3",
    "pull 3/3",
    "release handle",
    "retreat",
    "stow",
    "done",
]


def test_open_then_close_grasp_the_handle_and_move_it_straight_along_the_drawer(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, CLOSED)
    arm = start_executor(ros_graph, ARM)
    world = kitchen.world(CLOSED)
    drawer, settings = load_place_map().place("drawers").drawer, ArmSettings()
    feedback: list[tuple[str, float]] = []
    response = execute(arm, world.skill("open the drawer"), feedback)
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    assert [phase for phase, _ in feedback] == OPEN_PHASES

    moves = records(record, "move_group")
    assert [m["phase"] for m in moves] == OPEN_PHASES[1:3] + OPEN_PHASES[4:7] + ["retreat", "stow"]
    # The hand sits grasp_offset in front of the handle (towards the robot, +y here), level with it.
    ux, uy, _ = drawer.direction
    approach = [drawer.handle.x + ux * settings.grasp_offset, drawer.handle.y + uy * settings.grasp_offset]
    assert moves[1]["target"] == pytest.approx([*approach, drawer.handle.z], abs=1e-6)
    assert moves[0]["target"][1] == pytest.approx(approach[1] + 0.1, abs=1e-6)  # handle_approach_distance
    # Three pulls of travel/3 each along the drawer, every one held to a 4 cm-wide box around its segment
    # at the hand's orientation; the pose goals before and after have no path constraint.
    pulls = moves[2:5]
    assert [m["target"][1] for m in pulls] == pytest.approx([approach[1] + 0.1 * i for i in (1, 2, 3)], abs=1e-6)
    assert [m["target"][0] for m in pulls] == pytest.approx([drawer.handle.x] * 3, abs=1e-5)
    for index, pull in enumerate(pulls):
        assert pull["path"]["box"] == pytest.approx([0.1 + 0.04, 0.04, 0.04])
        assert pull["path"]["centre"][1] == pytest.approx(approach[1] + 0.1 * index + 0.05, abs=1e-6)
        assert pull["path"]["orientations"] == 1
    assert all(m["path"] is None for m in moves[:2] + moves[5:])
    assert [g["position"] for g in records(record, "gripper")] == [0.04, 0.0, 0.04]

    # The doubles hold a handle only where it is: closing grasps it at the open drawer's handle, so the
    # pull above opened the drawer in the doubles' world.
    response = execute(arm, kitchen.world({**CLOSED, "drawer": {"open": True}}).skill("close the drawer"))
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    moves = records(record, "move_group")[7:]
    assert [m["phase"] for m in moves][2:5] == ["push 1/3", "push 2/3", "push 3/3"]
    assert moves[1]["target"][1] == pytest.approx(approach[1] + drawer.travel, abs=1e-6)
    assert moves[4]["target"][1] == pytest.approx(approach[1], abs=1e-6)


def test_a_planning_failure_mid_pull_fails_the_skill_and_lets_go_of_the_handle(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, CLOSED, move_group_outcomes="success,success,success,plan_fail")
    arm = start_executor(ros_graph, ARM)
    response = execute(arm, kitchen.world(CLOSED).skill("open the drawer"))
    assert response.status == GoalStatus.STATUS_ABORTED and not response.result.success
    assert response.result.message == (
        "'open the drawer' stopped at 'pull 2/3': MoveIt: no collision-free motion plan was found: the pose "
        "may be unreachable or blocked (PLANNING_FAILED, error code -1); the gripper let go of the handle"
    )
    assert [m["phase"] for m in records(record, "move_group")][-1] == "pull 2/3"
    assert [g["position"] for g in records(record, "gripper")] == [0.04, 0.0, 0.04]


def test_a_cancel_mid_pull_stops_the_arm_holding_the_handle(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, CLOSED, move_group_outcomes="success,success,slow")
    arm = start_executor(ros_graph, ARM)
    feedback: list[str] = []
    goal = ExecuteSkill.Goal(skill=skill_to_msg(kitchen.world(CLOSED).skill("open the drawer")))
    handle = wait_future(arm.send_goal_async(goal, feedback_callback=lambda m: feedback.append(m.feedback.phase)))
    assert handle.accepted
    wait_until(lambda: len(records(record, "move_group")) >= 3, what="the first pull running")
    wait_future(handle.cancel_goal_async(), what="cancel response")
    response = wait_future(handle.get_result_async(), timeout=20.0)
    assert response.status == GoalStatus.STATUS_CANCELED, response.result.message
    assert response.result.message == "'open the drawer' stopped at 'pull 1/3': canceled; the arm stopped where it was"
    assert {"server": "move_group", "canceled": True} in records(record, "move_group")
    # A cancel stops everything where it is (an e-stop): no let-go.
    assert [g["position"] for g in records(record, "gripper")] == [0.04, 0.0]


def test_put_in_the_drawer_sets_the_object_on_the_open_drawers_bottom(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    watcher = WorldWatcher(ros_graph)
    _, record = start_doubles(ros_graph, tmp_path, HOLDING_COKE)
    arm = start_executor(ros_graph, ARM)
    interior, settings = load_place_map().place("drawers").drawer.interior, ArmSettings()
    response = execute(arm, kitchen.world(HOLDING_COKE).skill("put the coke in the drawer"))
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    moves = records(record, "move_group")
    assert [m["phase"] for m in moves] == ["above surface", "lower", "retreat", "stow"]
    # Held from the start, the coke is lowered by the catalogue's height (config/object_heights.yaml).
    coke = load_object_heights().height("coke")
    release_z = interior.z + coke - settings.grasp_depth + settings.place_clearance + settings.grasp_offset
    assert moves[1]["target"] == pytest.approx([interior.x, interior.y, release_z])
    watcher.wait_for(lambda w: w.location_of("coke_1") == "drawer", "the coke in the drawer")


def test_a_second_put_into_a_drawer_perception_cannot_see_into_goes_beside_the_first(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    # drawer-06: a head camera does not see into the drawer, so perception reports nothing there.
    initial = {
        "robot": {"at": "drawers", "holding": "coke_1"},
        "objects": [
            {"id": "coke_1", "label": "coke", "at": "robot"},
            {"id": "pepsi_1", "label": "pepsi", "at": "table"},
        ],
        "drawer": {"open": True},
    }
    _, record = start_doubles(ros_graph, tmp_path, initial, report_drawer=False, report_held=False)
    arm = start_executor(ros_graph, ARM)
    base = start_executor(ros_graph, "mobile_base_executor")
    world = kitchen.world(initial)
    skills = [
        (arm, "put the coke in the drawer"),
        (base, "go to the table"),
        (arm, "pick up the pepsi"),
        (base, "go to the drawers"),
        (arm, "put the pepsi in the drawer"),
    ]
    for client, skill in skills:
        response = execute(client, world.skill(skill))
        assert response.status == GoalStatus.STATUS_SUCCEEDED, (skill, response.result.message)
    first, second = (m["target"] for m in records(record, "move_group") if m["phase"] == "lower")
    interior = load_place_map().place("drawers").drawer.interior
    assert first[:2] == pytest.approx([interior.x, interior.y])
    # Two cans of the kitchen's default size (7 cm across, not reported while held) with a gap between.
    assert math.dist(first[:2], second[:2]) >= 0.07 * math.sqrt(2)

"""The manipulator executor's moveit backend through ExecuteSkill, against real MoveGroup and
GripperCommand servers and a perception double (test/support/robot_doubles.py): pick and put down run
their pose goals and gripper commands in order, MoveIt error codes and an empty grasp end the skill
with a clear message naming the step, and a cancel reaches MoveIt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from graph_helpers import execute
from robot_graph import records, start_doubles, start_executor
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.bringup.graphs import ROBOT_GRAPH
from llm_planner_ros.domain import Domain
from llm_planner_ros.robot_motion.geometry import rotate
from llm_planner_ros.robot_motion.manipulation import ArmSettings
from llm_planner_ros.robot_motion.object_heights import load_object_heights
from llm_planner_ros.robot_motion.place_map import load_place_map
from llm_planner_ros.ros.messages import skill_to_msg

pytestmark = [pytest.mark.graph, pytest.mark.timeout(120)]

ARM = "manipulator_executor"
AT_COKE = {
    "robot": {"at": "far counter", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}
HEIGHT = 0.12  # domains/saycan_kitchen/world.yaml object_size z


def test_pick_and_put_down_run_their_pose_goals_and_gripper_commands(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, AT_COKE)
    arm = start_executor(ros_graph, ARM)
    settings, counter = ArmSettings(), load_place_map().place("far counter").surface
    feedback: list[tuple[str, float]] = []
    response = execute(arm, kitchen.world().skill("pick up the coke"), feedback)
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    assert [phase for phase, _ in feedback] == [
        "open gripper",
        "pre-grasp",
        "approach",
        "close gripper",
        "lift",
        "stow",
        "done",
    ]
    # Since the arm stows after every manipulation skill (so navigation never drives with it out), each
    # skill ends with a joint goal (no pose target) after its pose goals.
    moves = records(record, "move_group")
    assert [m["phase"] for m in moves] == ["pre-grasp", "approach", "lift", "stow"]
    assert {(m["group"], m["link"], m["orientation_link"], m["frame"], m["plan_only"]) for m in moves[:3]} == {
        ("panda_arm", "panda_hand", "panda_hand", "map", False)
    }
    assert moves[3]["target"] is None and moves[3]["group"] == "panda_arm"
    # The can is grasped grasp_depth below its top: at its centre the palm would be inside it.
    grasp_z = counter.z + HEIGHT - settings.grasp_depth + settings.grasp_offset
    assert moves[1]["target"] == pytest.approx([counter.x, counter.y, grasp_z])
    assert moves[0]["target"][2] == pytest.approx(grasp_z + settings.approach_distance)
    assert [g["position"] for g in records(record, "gripper")] == [settings.gripper_open, settings.gripper_closed]

    response = execute(arm, kitchen.world().skill("put down the coke"))
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    moves = records(record, "move_group")[4:]
    assert [m["phase"] for m in moves] == ["above surface", "lower", "retreat", "stow"]
    assert moves[1]["target"] == pytest.approx([counter.x, counter.y, grasp_z + settings.place_clearance])
    assert records(record, "gripper")[-1]["position"] == settings.gripper_open


def _approach_and_lower_heights(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain, **doubles: Any
) -> tuple[float, float]:
    """Pick up the coke at the far counter and put it down again with the doubles' ``doubles``
    parameters (perception that stops reporting what the gripper holds, as perception); the heights
    above the counter's surface of the approach and lower goals, less ``grasp_offset``."""
    _, record = start_doubles(ros_graph, tmp_path, AT_COKE, report_held=False, **doubles)
    arm = start_executor(ros_graph, ARM)
    settings, counter = ArmSettings(), load_place_map().place("far counter").surface
    for skill in ("pick up the coke", "put down the coke"):
        response = execute(arm, kitchen.world().skill(skill))
        assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    approach, lower = (m["target"] for m in records(record, "move_group") if m["phase"] in ("approach", "lower"))
    return approach[2] - counter.z - settings.grasp_offset, lower[2] - counter.z - settings.grasp_offset


def test_put_down_lowers_by_the_height_the_grasp_was_made_for_when_the_held_object_is_not_reported(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    settings = ArmSettings()
    approach, lower = _approach_and_lower_heights(ros_graph, tmp_path, kitchen, object_height=0.2)  # a bottle
    assert approach == pytest.approx(settings.grasp_height(0.2))
    # With the kitchen's default height (12 cm) the bottle's bottom would go 8 cm into the counter.
    assert lower == pytest.approx(settings.grasp_height(0.2) + settings.place_clearance)


def test_an_object_reported_without_its_bottom_is_grasped_and_put_down_as_standing_on_the_surface(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    # The camera missed the lowest 3 cm of the 12 cm can: reported 9 cm tall, its centre 1.5 cm high.
    settings = ArmSettings()
    approach, lower = _approach_and_lower_heights(ros_graph, tmp_path, kitchen, unseen_bottom=0.03)
    assert approach == pytest.approx(settings.grasp_height(HEIGHT))
    # Made for the 9 cm reported, the put down would lower the can 3 cm into the counter.
    assert lower == pytest.approx(settings.grasp_height(HEIGHT) + settings.place_clearance)


def test_a_flat_object_is_grasped_with_the_fingers_clear_of_the_surface(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    # An energy bar perceived 1.8 cm tall: at its centre the fingertips would reach into the counter.
    settings = ArmSettings()
    approach, lower = _approach_and_lower_heights(ros_graph, tmp_path, kitchen, object_height=0.018)
    assert approach - settings.finger_reach == pytest.approx(settings.surface_clearance)
    assert lower == pytest.approx(approach + settings.place_clearance)


def test_an_object_held_from_the_start_is_put_down_by_its_catalogue_height(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    held = {
        "robot": {"at": "far counter", "holding": "water_bottle_1"},
        "objects": [{"id": "water_bottle_1", "label": "water bottle", "at": "robot"}],
    }
    _, record = start_doubles(ros_graph, tmp_path, held, report_held=False)
    arm = start_executor(ros_graph, ARM)
    settings, counter = ArmSettings(), load_place_map().place("far counter").surface
    response = execute(arm, kitchen.world().skill("put down the water bottle"))
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    (lower,) = (m["target"] for m in records(record, "move_group") if m["phase"] == "lower")
    # Held as the arm grasps, grasp_depth below its top, the 20 cm bottle hangs 17 cm below the fingertips;
    # the default height (12 cm: 9 cm) would drive it 8 cm into the counter.
    bottle = load_object_heights().height("water bottle")
    assert bottle == pytest.approx(0.2)
    expected = settings.grasp_height(bottle) + settings.place_clearance
    assert lower[2] - counter.z - settings.grasp_offset == pytest.approx(expected)


@pytest.mark.parametrize("case", ["missing", "malformed"])
def test_an_unusable_object_height_catalogue_stops_the_executor_with_the_fix(
    ros_graph: RosGraph, tmp_path: Path, case: str
) -> None:
    catalogue = tmp_path / "heights.yaml"
    if case == "malformed":
        catalogue.write_text("heights: {coke: -0.1, tea: tall}\n")
    spec = next(spec for spec in ROBOT_GRAPH if spec.executable == ARM)
    params = {"object_heights_file": str(catalogue)}
    proc = ros_graph.start_node(ARM, params=params, param_files=spec.param_paths(), name=spec.name)
    wait_until(lambda: proc.returncode is not None, 60, "the manipulator executor exiting")
    log = proc.log()
    fatal = [line for line in log.splitlines() if "[FATAL]" in line]
    assert proc.returncode == 1 and "Traceback" not in log, log
    expected = ["object_heights_file parameter"] if case == "missing" else ["heights.coke", "heights.tea"]
    # A catalogue's problems follow the fatal line, one per line.
    assert len(fatal) == 1 and all(text in log[log.index("[FATAL]") :] for text in expected), log


def _closing_axis(orientation: list[float]) -> tuple[float, float]:
    """The horizontal axis the fingers of a hand with this orientation close along (its y axis)."""
    x, y, _ = rotate((orientation[0], orientation[1], orientation[2], orientation[3]), (0.0, 1.0, 0.0))
    return round(abs(x), 3), round(abs(y), 3)


def test_the_fingers_close_across_the_base_and_a_put_down_opens_them_along_it(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    # At the far counter the base faces -y: the fingers close along x, across the camera's view.
    _, record = start_doubles(ros_graph, tmp_path, AT_COKE)
    arm = start_executor(ros_graph, ARM)
    base = start_executor(ros_graph, "mobile_base_executor")
    world = kitchen.world()
    skills = (arm, "pick up the coke"), (arm, "put down the coke"), (arm, "pick up the coke")
    for client, skill in (*skills, (base, "go to the trash can"), (arm, "put down the coke")):
        response = execute(client, world.skill(skill))
        assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    moves = [(m["phase"], _closing_axis(m["orientation"])) for m in records(record, "move_group") if m["orientation"]]
    picking, putting = {"pre-grasp", "approach", "lift"}, {"above surface", "lower", "retreat"}
    assert {axis for phase, axis in moves if phase in picking} == {(1.0, 0.0)}
    # Put down opens them along the heading, clear of the objects set down beside the spot: along y at
    # the counter, along x at the trash can (the base faces -x).
    assert [axis for phase, axis in moves if phase in putting] == [(0.0, 1.0)] * 3 + [(1.0, 0.0)] * 3


def test_without_turn_grasp_the_grasp_orientation_is_sent_as_given(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, AT_COKE)
    arm = start_executor(ros_graph, ARM, turn_grasp=False)
    response = execute(arm, kitchen.world().skill("pick up the coke"))
    assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
    sent = [m["orientation"] for m in records(record, "move_group") if m["orientation"]]
    assert sent and all(o == pytest.approx(list(ArmSettings().grasp_orientation)) for o in sent)


def test_a_planning_failure_fails_the_pick_at_its_step(ros_graph: RosGraph, tmp_path: Path, kitchen: Domain) -> None:
    start_doubles(ros_graph, tmp_path, AT_COKE, move_group_outcomes="success,plan_fail")
    arm = start_executor(ros_graph, ARM)
    response = execute(arm, kitchen.world().skill("pick up the coke"))
    assert response.status == GoalStatus.STATUS_ABORTED and not response.result.success
    assert response.result.message == (
        "'pick up the coke' stopped at 'approach': MoveIt: no collision-free motion plan was found: the pose "
        "may be unreachable or blocked (PLANNING_FAILED, error code -1)"
    )


def test_an_execution_abort_midway_fails_with_control_failed(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    start_doubles(ros_graph, tmp_path, AT_COKE, move_group_outcomes="abort")
    arm = start_executor(ros_graph, ARM)
    response = execute(arm, kitchen.world().skill("pick up the coke"))
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "stopped at 'pre-grasp'" in response.result.message
    assert "CONTROL_FAILED, error code -4" in response.result.message


def test_a_grasp_that_closes_on_nothing_fails_the_pick(ros_graph: RosGraph, tmp_path: Path, kitchen: Domain) -> None:
    start_doubles(ros_graph, tmp_path, AT_COKE, gripper_outcomes="success,empty")
    arm = start_executor(ros_graph, ARM)
    response = execute(arm, kitchen.world().skill("pick up the coke"))
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "stopped at 'close gripper'" in response.result.message
    assert "nothing was grasped" in response.result.message


def test_a_cancel_of_the_skill_cancels_the_arm_motion(ros_graph: RosGraph, tmp_path: Path, kitchen: Domain) -> None:
    _, record = start_doubles(ros_graph, tmp_path, AT_COKE, move_group_outcomes="slow")
    # With a stow state set: a cancel may be the e-stop, so the arm must not then move to it.
    arm = start_executor(ros_graph, ARM, stow_named_target="ready")
    feedback: list[str] = []
    goal = ExecuteSkill.Goal(skill=skill_to_msg(kitchen.world().skill("pick up the coke")))
    handle = wait_future(arm.send_goal_async(goal, feedback_callback=lambda m: feedback.append(m.feedback.phase)))
    assert handle.accepted
    wait_until(lambda: "pre-grasp" in feedback and records(record, "move_group"), what="the arm moving")
    wait_future(handle.cancel_goal_async(), what="cancel response")
    response = wait_future(handle.get_result_async(), timeout=20.0)
    assert response.status == GoalStatus.STATUS_CANCELED, response.result.message
    assert (
        response.result.message == "'pick up the coke' stopped at 'pre-grasp': canceled; the arm stopped where it was"
    )
    assert {"server": "move_group", "canceled": True} in records(record, "move_group")
    assert "ready" not in [m.get("phase") for m in records(record, "move_group")]


def test_without_perception_or_away_from_the_drawer_nothing_moves(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    kitchen_with_drawer = {"robot": {"at": "table", "holding": None}, "objects": [], "drawer": {"open": False}}
    arm = start_executor(ros_graph, ARM, server_timeout_s=1.0)
    world = kitchen.world(kitchen_with_drawer)
    response = execute(arm, world.skill("pick up the coke"))
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "nothing on /scene/objects after 1 s" in response.result.message

    _, record = start_doubles(ros_graph, tmp_path, kitchen_with_drawer)
    # The executor reads the doubles' scene once its subscription has matched them, which a loaded
    # machine can delay past the executor's 1 s wait: ask again until the answer is about the drawer.
    outcome: list = []

    def answered_about_the_drawer() -> bool:
        outcome[:] = [execute(arm, world.skill("open the drawer"))]
        return "nothing on /scene/objects" not in outcome[0].result.message

    wait_until(answered_about_the_drawer, 30.0, "the executor to read the doubles' scene")
    response = outcome[0]
    assert response.status == GoalStatus.STATUS_ABORTED
    assert "the table has no drawer in the place map" in response.result.message
    assert records(record, "move_group") == []


def test_a_failed_skill_sends_the_arm_to_the_named_stow_state(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, AT_COKE, move_group_outcomes="success,plan_fail,success")
    arm = start_executor(ros_graph, ARM, stow_named_target="ready")
    response = execute(arm, kitchen.world().skill("pick up the coke"))
    assert response.status == GoalStatus.STATUS_ABORTED
    # The original failure stays first; the stow's outcome is added.
    assert response.result.message.startswith("'pick up the coke' stopped at 'approach': MoveIt: no collision-free")
    assert response.result.message.endswith("; the arm went to 'ready'")
    moves = records(record, "move_group")
    assert [m["phase"] for m in moves] == ["pre-grasp", "approach", "ready"]
    # A named-state goal: the constraints carry only the name (an SRDF group state), no pose target.
    assert moves[2]["target"] is None and moves[2]["group"] == "panda_arm"


def test_a_failed_stow_is_reported_without_hiding_the_failure(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, AT_COKE, move_group_outcomes="plan_fail")
    arm = start_executor(ros_graph, ARM, stow_named_target="ready")
    response = execute(arm, kitchen.world().skill("pick up the coke"))
    assert response.status == GoalStatus.STATUS_ABORTED
    message = response.result.message
    assert message.startswith("'pick up the coke' stopped at 'pre-grasp': MoveIt: no collision-free")
    assert "; going to 'ready' failed too (MoveIt: no collision-free" in message
    assert message.endswith("the arm is where it stopped")
    assert [m["phase"] for m in records(record, "move_group")] == ["pre-grasp", "ready"]


def test_without_a_named_stow_target_a_failure_leaves_the_arm(
    ros_graph: RosGraph, tmp_path: Path, kitchen: Domain
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, AT_COKE, move_group_outcomes="success,plan_fail")
    arm = start_executor(ros_graph, ARM)
    response = execute(arm, kitchen.world().skill("pick up the coke"))
    assert response.status == GoalStatus.STATUS_ABORTED
    assert [m["phase"] for m in records(record, "move_group")] == ["pre-grasp", "approach"]

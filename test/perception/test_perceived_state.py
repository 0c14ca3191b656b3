"""A perceived scene and the gripper: the planner's world holds what the robot-state record says is held
(``state_provider.with_held``), a pick or put down seen by perception under another id is no scene change
(``scene_change.compare``), and the tracker lets a picked-up object go (``Tracker.drop_nearest``,
``may_start``) and names a put-down one as the robot did (``Tracker.rename``). In-process, no ROS graph."""

from __future__ import annotations

import numpy as np
from world_builders import MakeWorld

from llm_planner_ros.domain.config import Position
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.domain.scene import ObjectInstance
from llm_planner_ros.perception.tracking import Observation, Tracker, TrackerConfig
from llm_planner_ros.planning.scene_change import ScenePlanCheck, compare
from llm_planner_ros.ros.state_provider import StateAssembler


def robot(at: str, holding: str | None = None, label: str | None = None) -> RobotState:
    return RobotState((7, 0), 3, "", at, Position(4.5, -0.1), holding, label, None, (at,))


def test_the_robot_state_says_what_is_held_in_a_perceived_scene(kitchen: Domain) -> None:
    assembler = StateAssembler(kitchen, match_stamps=False)
    # Perception has not dropped the picked coke's track yet, under its own id and under the record's.
    for track in ("coke_3", "coke_1"):
        assembler.on_objects((1, 0), [ObjectInstance(track, "coke", "far counter")])
        assembler.on_robot_state(robot("far counter", "coke_1", "coke"))
        world = assembler.world
        assert assembler.error is None and world is not None
        assert world.holding is not None and (world.holding.id, world.holding.label) == ("coke_1", "coke")
        expected = {"coke_1": "robot", **({"coke_3": "far counter"} if track == "coke_3" else {})}
        assert {o.id: o.at for o in world.objects} == expected
    # Put down: perception still reports it in the hand; the record says the hand is empty.
    assembler.on_objects(
        (2, 0), [ObjectInstance("coke_1", "coke", "robot"), ObjectInstance("apple_1", "apple", "table")]
    )
    assembler.on_robot_state(robot("user"))
    assert assembler.world is not None and assembler.world.holding is None
    assert [(o.id, o.at) for o in assembler.world.objects] == [("apple_1", "table")]

    stamped = StateAssembler(kitchen, match_stamps=True)  # the simulator's truth is consistent as it is
    stamped.on_objects((7, 0), [ObjectInstance("coke_1", "coke", "far counter")])
    stamped.on_robot_state(robot("far counter", "coke_1", "coke"))
    assert stamped.world is None and "coke_1" in (stamped.error or "")


def test_a_pick_and_put_down_seen_under_other_ids_are_no_scene_change(make_world: MakeWorld) -> None:
    before = make_world("far counter", coke_3="far counter", apple_1="table")
    picked = make_world("far counter", holding="coke_1", coke_1="robot", apple_1="table")
    put_down = make_world("user", coke_4="user", apple_1="table")
    assert not compare(before, picked) and not compare(picked, put_down)

    # Perception lags the gripper: the record's held coke shows first, the track leaves a look later.
    check = ScenePlanCheck("bring me a coke")
    plan = ["bring it to you", "put down the coke", "done"]
    lagging = make_world("far counter", holding="coke_1", coke_1="robot", coke_3="far counter", apple_1="table")
    check.check(before, plan)
    assert check.check(lagging, plan) is None
    assert check.check(picked, plan) is None
    released = make_world("user", apple_1="table")
    assert check.check(released, ["done"]) is None
    assert check.check(put_down, ["done"]) is None

    # Someone else taking the other coke while the robot holds one is still a change.
    two = make_world("far counter", holding="coke_1", coke_1="robot", coke_2="table")
    gone = make_world("far counter", holding="coke_1", coke_1="robot")
    assert compare(two, gone).describe() == "coke_2 (coke) gone"


def test_the_tracker_drops_a_picked_up_object_and_starts_none_for_the_held_label() -> None:
    tracker = Tracker(TrackerConfig())
    coke = Observation("coke", 0.9, np.array([4.5, 0.5, 0.96]), np.array([0.07, 0.07, 0.12]), "far counter")
    other = Observation("coke", 0.9, np.array([4.9, 0.5, 0.96]), np.array([0.07, 0.07, 0.12]), "far counter")
    tracker.update([coke, other], 1.0)
    assert tracker.drop_nearest("coke", (4.5, -0.1), 0.5) is None  # none within reach
    dropped = tracker.drop_nearest("coke", (4.5, -0.1), 1.2)
    assert dropped is not None and dropped.id == "coke_1"
    assert [t.id for t in tracker.tracks()] == ["coke_2"]

    lifted = Observation("coke", 0.8, np.array([4.4, 0.1, 1.2]), np.array([0.07, 0.07, 0.12]), "far counter")
    apple = Observation("apple", 0.8, np.array([4.2, 0.4, 0.95]), np.array([0.08, 0.08, 0.08]), "far counter")
    tracker.update([lifted, other, apple], 2.0, may_start=lambda obs: obs.label != "coke")
    assert sorted(t.id for t in tracker.tracks()) == ["apple_1", "coke_2"]  # the other coke still matched

    # Put down, the object takes back the id the robot knew it by, unless a track already has that id.
    assert not tracker.rename("apple_1", "coke_2") and not tracker.rename("lime_1", "coke_1")
    assert tracker.rename("apple_1", "apple_7") and sorted(t.id for t in tracker.tracks()) == ["apple_7", "coke_2"]

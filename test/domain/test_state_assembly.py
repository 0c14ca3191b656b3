"""The robot-state record and assembling a world from it and the scene objects."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from llm_planner_ros.domain import Domain, ObjectInstance, World
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.ros.state_provider import StateAssembler

MakeWorld = Callable[..., World]


def _record(world: World, stamp: tuple[int, int], revision: int = 1) -> RobotState:
    return RobotState.of_world(world, stamp, revision, episode="ep", busy=None)


def _assembled_before_and_after_a_pick(kitchen: Domain, make_world: MakeWorld) -> tuple[StateAssembler, World]:
    """An assembler holding the table scene stamped (1, 0), and the world after "pick up the apple" there."""
    before = make_world("table", apple_1="table")
    after = before.copy()
    after.apply("pick up the apple")
    assembler = StateAssembler(kitchen, match_stamps=True)
    assembler.on_objects((1, 0), before.objects)
    assembler.on_robot_state(_record(before, (1, 0)))
    return assembler, after


def test_robot_state_round_trips_through_json(make_world: MakeWorld) -> None:
    world = make_world("drawers", drawer=True, holding="coke_1", coke_1="robot")
    state = RobotState.of_world(world, (12, 5), 3, "ep-1", busy="pick up the coke")
    assert RobotState.from_json(state.to_json()) == state
    assert state.holding_label == "coke" and state.drawer_open is True


def test_malformed_robot_state_names_the_problem() -> None:
    with pytest.raises(ValueError, match="malformed robot state record .*'revision'"):
        RobotState.from_json('{"stamp": {"sec": 1, "nanosec": 0}}')


def test_assembler_builds_only_from_matching_stamps(kitchen: Domain, make_world: MakeWorld) -> None:
    before = make_world("table", apple_1="table")
    after = before.copy()
    after.apply("pick up the apple")
    assembler = StateAssembler(kitchen, match_stamps=True)
    assembler.on_objects((1, 0), before.objects)
    assert assembler.world is None
    assembler.on_robot_state(_record(before, (1, 0)))
    assert assembler.world is not None and assembler.world.holding is None
    # The skill's objects arrive first: the half-applied pair must not be used.
    assembler.on_objects((2, 0), after.objects)
    assert assembler.world.holding is None and assembler.world.to_initial() == before.to_initial()
    assembler.on_robot_state(_record(after, (2, 0), revision=2))
    assert assembler.world.to_initial() == after.to_initial()


def test_assembler_without_stamp_matching_drops_unknown_labels(kitchen: Domain, make_world: MakeWorld) -> None:
    world = make_world("table", apple_1="table")
    assembler = StateAssembler(kitchen, match_stamps=False)
    assembler.on_robot_state(_record(world, (5, 0)))
    assembler.on_objects((9, 9), [*world.objects, ObjectInstance("mug_1", "mug", "table")])
    assert assembler.world is not None
    assert [o.id for o in assembler.world.objects] == ["apple_1"]
    assert assembler.ignored_labels == {"mug"}


def test_assembler_without_stamp_matching_leaves_out_objects_at_no_place(
    kitchen: Domain, make_world: MakeWorld
) -> None:
    world = make_world("table", apple_1="table")
    assembler = StateAssembler(kitchen, match_stamps=False)
    assembler.on_robot_state(_record(world, (5, 0)))
    assembler.on_objects((9, 9), [*world.objects, ObjectInstance("coke_3", "coke", "")])
    assert assembler.error is None and assembler.world is not None
    assert [o.id for o in assembler.world.objects] == ["apple_1"]
    assert assembler.unplaced_labels == {"coke"}
    # With matched stamps (a simulator's truth) an object at no place is an error, not a perception gap.
    strict = StateAssembler(kitchen, match_stamps=True)
    strict.on_robot_state(_record(world, (5, 0)))
    strict.on_objects((5, 0), [*world.objects, ObjectInstance("coke_3", "coke", "")])
    assert strict.world is None and strict.error is not None and "objects[1].at" in strict.error


def test_assembler_keeps_the_last_world_on_an_inconsistent_pair(kitchen: Domain, make_world: MakeWorld) -> None:
    world = make_world("table", apple_1="table")
    assembler = StateAssembler(kitchen, match_stamps=True)
    assembler.on_robot_state(_record(world, (1, 0)))
    assembler.on_objects((1, 0), world.objects)
    good = assembler.world
    assert good is not None
    assembler.on_objects((1, 0), [ObjectInstance("apple_1", "apple", "robot")])  # held, but holding is null
    assert assembler.world is good
    assert assembler.error is not None and "robot.holding" in assembler.error


def test_without_stamps_the_robot_state_says_what_is_held(kitchen: Domain, make_world: MakeWorld) -> None:
    """Perception lags the gripper: an object it still shows in the gripper when the record says nothing
    is held is not in the gripper (and is left out until perception sees it again)."""
    world = make_world("table", apple_1="table")
    assembler = StateAssembler(kitchen, match_stamps=False)
    assembler.on_robot_state(_record(world, (1, 0)))
    assembler.on_objects((2, 0), [ObjectInstance("apple_1", "apple", "robot")])  # holding is null
    assert assembler.world is not None and assembler.error is None
    assert assembler.world.holding is None and not assembler.world.objects


def test_a_world_stamped_after_a_moment_is_waited_for(kitchen: Domain, make_world: MakeWorld) -> None:
    """The ROS bench judges an episode on a state published after the planner's result arrived: a state
    stamped before it (possibly without the last skill's effect) is not taken; a later one ends the wait."""
    assembler, after = _assembled_before_and_after_a_pick(kitchen, make_world)
    assert assembler.wait_published_after((1, 0), 0.0) is not None
    assert assembler.wait_published_after((1, 1), 0.05) is None

    def publish_later() -> None:
        time.sleep(0.2)
        assembler.on_objects((2, 0), after.objects)
        assembler.on_robot_state(_record(after, (2, 0), revision=2))

    publisher = threading.Thread(target=publish_later)
    publisher.start()
    world = assembler.wait_published_after((1, 5), 10.0)
    publisher.join()
    assert world is not None and world.holding is not None


def test_a_world_stamped_in_another_clock_is_ordered_by_its_arrival(kitchen: Domain, make_world: MakeWorld) -> None:
    """A physics simulator stamps its states in simulated time (seconds since its start) while the reader
    runs on wall time: such a state counts as published after a moment when it was received after it."""
    before = make_world("table", apple_1="table")
    after = before.copy()
    after.apply("pick up the apple")
    assembler = StateAssembler(kitchen, match_stamps=True)
    moment = (1_795_000_000, 0)
    assembler.on_objects((12, 0), before.objects, received=(1_794_999_999, 0))
    assembler.on_robot_state(_record(before, (12, 0)), received=(1_794_999_999, 0))
    assert assembler.wait_published_after(moment, 0.05) is None, "a state received before the moment was taken"
    assembler.on_objects((13, 0), after.objects, received=(1_795_000_000, 5))
    assembler.on_robot_state(_record(after, (13, 0), revision=2), received=(1_795_000_000, 5))
    world = assembler.wait_published_after(moment, 0.05)
    assert world is not None and world.holding is not None


def test_a_world_stamped_like_another_readers_is_waited_for(kitchen: Domain, make_world: MakeWorld) -> None:
    """An affordance server asked about the state a planner chose on (its stamp) answers from that state
    or a newer one, never from the one before the last skill's effect reached it."""
    assembler, after = _assembled_before_and_after_a_pick(kitchen, make_world)
    assert assembler.stamp == (1, 0)
    assert assembler.wait_stamped((2, 0), 0.05) is None, "a state older than the planner's was taken"
    assembler.on_objects((2, 0), after.objects)
    assert assembler.wait_stamped((2, 0), 0.05) is None, "a half-applied pair was taken"
    assembler.on_robot_state(_record(after, (2, 0), revision=2))
    world = assembler.wait_stamped((2, 0), 0.05)
    assert world is not None and world.holding is not None and assembler.stamp == (2, 0)
    assert assembler.wait_stamped((1, 0), 0.0) is world, "an older stamp is answered from the newest state"

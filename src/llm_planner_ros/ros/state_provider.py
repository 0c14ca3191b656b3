"""Where an affordance server gets the current state from: a small interface and its ROS-free parts.

``StateProvider.current()`` returns the latest consistent ``World``. Implementations: ``FixedStateProvider``
(a world held in-process: tests, in-process benchmarks) and ``llm_planner_ros.ros.topic_state_provider``
(/scene/objects plus a robot-state topic: the simulator now, perception and the robot later), which
feeds a ``StateAssembler``.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.domain.scene import ObjectInstance, SceneError, scene_from_initial
from llm_planner_ros.domain.world import World

Stamp = tuple[int, int]
# A stamp this close to the reader's clock is taken to be of that clock (wall time against a simulator's
# time, which starts at 0, differ by decades).
CLOCK_AGREEMENT_S = 3600.0


def _seconds(stamp: Stamp) -> float:
    return stamp[0] + stamp[1] * 1e-9


class StateProvider(ABC):
    """Source of the world state that affordances are computed from."""

    @abstractmethod
    def current(self) -> World | None:
        """The latest consistent state, or None while none has arrived."""

    @abstractmethod
    def describe(self) -> str:
        """Where the state comes from, for error messages ("topics /scene/objects and /sim/robot_state")."""

    def wait(self, timeout_s: float) -> World | None:
        """``current()``, waiting up to ``timeout_s`` for a first state (providers that receive it
        asynchronously override this)."""
        return self.current()

    def problem(self) -> str | None:
        """Why the current state must not be planned on (its source went silent), or None."""
        return None

    def stamp(self) -> Stamp | None:
        """The stamp of the robot-state record ``current()`` was built from; None for a state without one
        (held in-process)."""
        return None

    def wait_stamped(self, stamp: Stamp, timeout_s: float) -> World | None:
        """The world once built from a robot-state record stamped ``stamp`` or later, waiting up to
        ``timeout_s`` (None then); a provider without stamps returns ``wait(timeout_s)``."""
        return self.wait(timeout_s)


class FixedStateProvider(StateProvider):
    """A world owned by the caller; ``current()`` returns it as it is at the time of the call."""

    def __init__(self, world: World) -> None:
        self.world = world

    def current(self) -> World | None:
        return self.world

    def describe(self) -> str:
        return "an in-process world"


class StateAssembler:
    """Builds a ``World`` from the latest scene objects and robot state, thread-safely.

    With ``match_stamps`` (the simulator stamps both messages of one world revision alike) a world is
    built only from a pair with equal stamps, so a skill's effect is never seen half-applied (the
    robot moved but its objects not yet). Without it (perception and a robot publishing at their own
    rates) each message rebuilds the world from the latest of the other, and the robot-state record says
    what is held (``with_held``: perception lags the gripper), and perceived objects at no place (location
    "": seen on the way, farther than perception's place radius from every place) are left out, their labels named in
    ``unplaced_labels``: the planner's world holds objects at places only. Objects with labels the kitchen does
    not know are left out (they have no skills). ``error`` keeps the last reason a pair
    could not be assembled.
    """

    def __init__(self, kitchen: Domain, match_stamps: bool = True) -> None:
        self.kitchen = kitchen
        self.match_stamps = match_stamps
        self.error: str | None = None
        self.ignored_labels: set[str] = set()
        self.unplaced_labels: set[str] = set()
        self._objects: tuple[Stamp, Sequence[ObjectInstance]] | None = None
        self._robot: RobotState | None = None
        self._world: World | None = None
        self._world_stamp: Stamp | None = None
        self._world_received: Stamp | None = None
        self._lock = threading.Lock()
        self._assembled = threading.Condition(self._lock)
        self._ready = threading.Event()

    def on_objects(self, stamp: Stamp, objects: Sequence[ObjectInstance], received: Stamp | None = None) -> None:
        """New scene objects, stamped ``stamp``, ``received`` at that moment of the reader's clock."""
        with self._lock:
            self._objects = (stamp, tuple(objects))
            self._assemble(received)

    def on_robot_state(self, state: RobotState, received: Stamp | None = None) -> None:
        """A new robot-state record, ``received`` at that moment of the reader's clock."""
        with self._lock:
            self._robot = state
            self._assemble(received)

    @property
    def world(self) -> World | None:
        return self._world

    def wait(self, timeout_s: float) -> World | None:
        self._ready.wait(timeout_s)
        return self._world

    @property
    def stamp(self) -> Stamp | None:
        """The stamp of the robot-state record ``world`` was built from."""
        return self._world_stamp

    def wait_stamped(self, stamp: Stamp, timeout_s: float) -> World | None:
        """The world once built from a robot-state record stamped ``stamp`` or later (the same publisher's
        clock: another reader of the topic planned on it); None after ``timeout_s``."""
        with self._assembled:
            reached = self._assembled.wait_for(
                lambda: self._world_stamp is not None and self._world_stamp >= stamp, timeout_s
            )
            return self._world if reached else None

    def wait_published_after(self, moment: Stamp, timeout_s: float) -> World | None:
        """The world once it is built from a robot state published at ``moment`` or later, e.g. after a
        result arrived at that moment of the reader's clock (None after ``timeout_s``). A state whose stamp
        is within ``CLOCK_AGREEMENT_S`` of the moment follows the reader's clock (the symbolic simulator, a
        robot) and is ordered by its stamp; one stamped in another clock (a physics simulator's time) by
        when it was received (``received`` of ``on_robot_state`` / ``on_objects``)."""

        def published_after() -> bool:
            if self._world_stamp is None:
                return False
            if abs(_seconds(self._world_stamp) - _seconds(moment)) <= CLOCK_AGREEMENT_S:
                return self._world_stamp >= moment
            return self._world_received is not None and self._world_received >= moment

        with self._assembled:
            return self._world if self._assembled.wait_for(published_after, timeout_s) else None

    def _assemble(self, received: Stamp | None) -> None:
        if self._objects is None or self._robot is None:
            return
        stamp, objects = self._objects
        if self.match_stamps and stamp != self._robot.stamp:
            return
        known = [obj for obj in objects if obj.label in self.kitchen.config.articles]
        self.ignored_labels.update(obj.label for obj in objects if obj.label not in self.kitchen.config.articles)
        if not self.match_stamps:
            self.unplaced_labels.update(obj.label for obj in known if not obj.at)
            known = with_held([obj for obj in known if obj.at], self._robot)
        initial: dict[str, Any] = {
            "robot": {"at": self._robot.at, "holding": self._robot.holding},
            "objects": [{"id": obj.id, "label": obj.label, "at": obj.at} for obj in known],
        }
        if self._robot.drawer_open is not None:
            initial["drawer"] = {"open": self._robot.drawer_open}
        if self.kitchen.config.facts:
            initial["facts"] = list(self._robot.facts)
        try:
            scene = scene_from_initial(initial, self.kitchen.config, f"state of revision {self._robot.revision}")
        except SceneError as error:
            self.error = str(error)
            return
        self._world = World(self.kitchen, scene, self._robot.visited)
        self._world_stamp = self._robot.stamp
        self._world_received = received
        self.error = None
        self._ready.set()
        self._assembled.notify_all()


def with_held(objects: Sequence[ObjectInstance], robot: RobotState) -> list[ObjectInstance]:
    """A perceived scene made consistent with the robot-state record, which knows what the gripper holds:
    the held object (the record's id and label) at ``robot``, nothing else there, and no object of that
    id elsewhere (its track from before the pick, which perception has not dropped yet)."""
    placed = [obj for obj in objects if obj.at != HELD and obj.id != robot.holding]
    if robot.holding is None:
        return placed
    label = robot.holding_label or next((obj.label for obj in objects if obj.id == robot.holding), None)
    if label is None:
        return list(objects)  # nothing says what is held: scene_from_initial reports the mismatch
    return [*placed, ObjectInstance(robot.holding, label, HELD)]

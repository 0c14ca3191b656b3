"""The physics simulator's ground truth (sim/ground_truth) as kitchen worlds, for judging benchmark episodes.

physics_sim publishes ``llm_planner_ros.physics_sim.truth.Truth.to_json()`` on its truth topic; no planner-side
node
reads it. The kitchen benchmark judges physics episodes on it (final world, the world of every step), so
an episode is scored on what physically happened, never on what perception reported. Objects with no
place (on the floor) are left out of the world, as ``Truth.world`` does.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from rclpy.node import Node
from std_msgs.msg import String

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.scene import ObjectInstance, Scene
from llm_planner_ros.domain.world import World
from llm_planner_ros.ros.state_provider import Stamp
from llm_planner_ros.ros.topics import STATE_QOS

TRUTH_TOPIC = "sim/ground_truth"


def world_from_truth(data: dict[str, Any], kitchen: Domain) -> World:
    """The kitchen world of one ground-truth record (the JSON of ``Truth.to_json``)."""
    objects = tuple(ObjectInstance(o["id"], o["label"], o["at"]) for o in data["objects"] if o["at"] is not None)
    facts = data.get("facts")  # None: the world declares no facts
    scene = Scene(data["robot"]["at"], objects, data["drawer_open"], facts=None if facts is None else frozenset(facts))
    return World(kitchen, scene, data["visited"])


class GroundTruthState:
    """Subscribes to the ground truth on ``node``; ``current()`` is the latest world (None before the
    first record), ``wait`` blocks up to ``timeout_s`` for a first one, ``wait_published_after`` for one
    received at or after a moment of ``node``'s clock."""

    def __init__(self, node: Node, kitchen: Domain) -> None:
        self._node = node
        self._kitchen = kitchen
        self._world: World | None = None
        self._received: Stamp | None = None
        self._arrived = threading.Condition()
        node.create_subscription(String, TRUTH_TOPIC, self._on_truth, STATE_QOS)

    def current(self) -> World | None:
        return self._world

    def wait(self, timeout_s: float) -> World | None:
        with self._arrived:
            self._arrived.wait_for(lambda: self._world is not None, timeout_s)
            return self._world

    def wait_published_after(self, moment: Stamp, timeout_s: float) -> World | None:
        """The world of a record received at or after ``moment`` (this node's clock); None after
        ``timeout_s``. The records carry simulated time, which this node's clock need not follow, so the
        moment of arrival is what orders a record after, say, a planner's result."""
        with self._arrived:
            fresh = self._arrived.wait_for(lambda: self._received is not None and self._received >= moment, timeout_s)
            return self._world if fresh else None

    def _on_truth(self, msg: String) -> None:
        world = world_from_truth(json.loads(msg.data), self._kitchen)
        with self._arrived:
            self._world, self._received = world, self._node.get_clock().now().seconds_nanoseconds()
            self._arrived.notify_all()

"""Which of a graph's nodes already run in this ROS domain, before another copy of the graph starts.

ROS 2 lets two nodes share a name. Two copies of the planner graph in one domain do not fail: each
executor and affordance goal reaches both copies' servers, both simulators (or both robots' drivers)
run every skill, and each copy's steps fail "the robot is busy". ``running_nodes`` lets a launcher
refuse before it starts anything.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

import rclpy
from rclpy.context import Context

# How long discovery gets to report the nodes already in the domain. Each node of a running graph is its
# own DDS participant, and the probe hears of each one only after the participants have announced
# themselves and exchanged their graph records: over 25 probes of a running sim graph (with and without both
# cores busy) the first node showed after 0.16-0.94 s, or after 2.0-2.5 s when an announcement was missed.
# 6 s covers the slow case more than twice; a graph that is found ends the wait at once.
DISCOVERY_S = 6.0


def running_nodes(names: Iterable[str], namespace: str, discovery_s: float = DISCOVERY_S) -> list[str]:
    """The fully qualified names of ``names`` in ``namespace`` (normalised: "" or "/robot1") that some
    process of this ROS domain runs now, waiting up to ``discovery_s`` to hear of them."""
    prefix = namespace.rstrip("/") or ""
    wanted = {f"{prefix}/{name}" for name in names}
    context = Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node(f"llm_planner_probe_{os.getpid()}", context=context)
        try:
            deadline = time.monotonic() + discovery_s
            found: set[str] = set()
            while True:
                present = {f"{ns.rstrip('/')}/{name}" for name, ns in node.get_node_names_and_namespaces()}
                found = wanted & present
                if found or time.monotonic() >= deadline:
                    return sorted(found)
                time.sleep(0.1)
        finally:
            node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)

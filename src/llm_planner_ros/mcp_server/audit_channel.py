"""The MCP server's side of the operator console's audit trail (``llm_planner/audit``).

An agent's first call usually comes within a second of ``llm-planner mcp`` starting, before DDS discovery
has matched its publisher with the console's subscription. The topic is transient-local, so the console
would still get such an entry from the publisher's history as a late joiner, but Fast DDS loses late-joiner
samples now and then (eProsima/Fast-DDS#3822, open), and an audit trail must not. So an entry is published
only once a subscription has matched, and held until then: after the match it travels the ordinary
reliable path. Transient-local stays for a console that starts after the server.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from typing import Any

import rclpy.node
from rclpy.duration import Duration
from rclpy.event_handler import PublisherEventCallbacks, QoSPublisherMatchedInfo
from std_msgs.msg import String

from llm_planner_ros.ros.topics import EVENTS_DEPTH, EVENTS_QOS


class AuditChannel:
    """Publishes audit entries on ``topic`` once a subscription has matched; until then it holds them (at
    most EVENTS_DEPTH, the oldest dropped first, as the topic's own history would)."""

    def __init__(self, node: rclpy.node.Node, topic: str) -> None:
        self._held: deque[str] = deque(maxlen=EVENTS_DEPTH)
        self._lock = threading.Lock()
        self._used = False
        self._publisher = node.create_publisher(
            String, topic, EVENTS_QOS, event_callbacks=PublisherEventCallbacks(matched=self._on_matched)
        )

    def publish(self, entry: dict[str, Any]) -> None:
        """Send ``entry`` (stamped with the time of the call) now, or as soon as a console listens."""
        with self._lock:
            self._used = True
            self._held.append(json.dumps({"time": time.time(), **entry}))
        self._deliver()

    def held(self) -> int:
        """How many entries wait for a subscription."""
        with self._lock:
            return len(self._held)

    def flush(self, deadline: float) -> None:
        """Before this process ends: until the monotonic ``deadline``, wait for a subscription to take the
        held entries and to acknowledge every entry; the entries die with the publisher."""
        if not self._used:
            return
        while self.held() and time.monotonic() < deadline:
            self._deliver()
            time.sleep(0.05)
        self._publisher.wait_for_all_acked(Duration(seconds=max(0.0, deadline - time.monotonic())))

    def _on_matched(self, info: QoSPublisherMatchedInfo) -> None:
        if info.current_count > 0:
            self._deliver()

    def _deliver(self) -> None:
        # Under the lock: entries from two threads keep the order they were made in.
        with self._lock:
            if self._publisher.get_subscription_count() == 0:
                return
            while self._held:
                self._publisher.publish(String(data=self._held.popleft()))

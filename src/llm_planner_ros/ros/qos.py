"""Service QoS for actions that take bursts of goals.

rclpy's default service QoS keeps the last 10 requests and answers: when one client sends more goals
at once than that (50 back to back), the middleware overwrites the oldest before anyone took them,
and those goals are never answered, not even "busy". An action's goal, result and cancel services
need a history as deep as the largest burst, on the server (requests waiting to be taken, answers
waiting to be acknowledged) and on the client (requests not yet acknowledged, answers not yet taken).
"""

from __future__ import annotations

import copy

from rclpy.qos import QoSProfile, qos_profile_services_default

# Room for a burst of 100 goals; planner's `goal_queue_depth` parameter sets its own side.
ACTION_SERVICE_DEPTH = 100


def action_service_qos(depth: int = ACTION_SERVICE_DEPTH) -> QoSProfile:
    """Rclpy's default service QoS (reliable, volatile, keep last) keeping the last ``depth`` messages."""
    if depth < 1:
        raise ValueError(f"a service queue depth must be at least 1, got {depth}")
    profile = copy.copy(qos_profile_services_default)
    profile.depth = depth
    return profile

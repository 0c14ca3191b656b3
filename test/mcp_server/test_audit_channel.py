"""The MCP server's audit entries reach a console that starts after them, in order (mcp_server.audit_channel):
held while no subscription has matched, published once one has."""

from __future__ import annotations

import json

import pytest
from ros_harness import RosGraph, wait_until
from std_msgs.msg import String

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.mcp_server.robot_link import RobotLinks
from llm_planner_ros.ros.topics import AUDIT_TOPIC, EVENTS_QOS

pytestmark = pytest.mark.graph


@pytest.mark.timeout(120)
def test_entries_made_before_a_console_listens_reach_it_in_order(
    ros_graph: RosGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROS_DOMAIN_ID", str(ros_graph.domain_id))
    links = RobotLinks([""], load_domain_files())
    try:
        link = links.robots["/"]
        link.audit({"who": "mcp:early", "action": "plan", "detail": "", "kind": "agent"})
        link.audit({"who": "mcp:early", "action": "status", "detail": "", "kind": "agent"})
        assert link._audit.held() == 2, "published with no console listening"
        received: list[str] = []
        ros_graph.node.create_subscription(
            String, f"/{AUDIT_TOPIC}", lambda m: received.append(json.loads(m.data)["action"]), EVENTS_QOS
        )
        wait_until(lambda: received == ["plan", "status"], 60, "the held entries at the console")
        link.audit({"who": "mcp:early", "action": "plan ended", "detail": "done", "kind": "agent"})
        wait_until(lambda: received == ["plan", "status", "plan ended"], 60, "the next entry at the console")
        assert link._audit.held() == 0
    finally:
        links.close()

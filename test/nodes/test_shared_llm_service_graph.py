"""Two robots in their own namespaces share one llm_service (graph test, tiny model).

Each robot is a sim_world and a planner under /robot1 or /robot2 whose ``llm_namespace`` is
``/``: both plan (plan_only goals sent at the same time) with the one model service at the root, whose
``llm/ready`` latch turns true only after its warm-up step. No robot has a model service of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import RosGraph, wait_future, wait_until
from std_msgs.msg import Bool

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_ros.paths import config_file
from llm_planner_ros.processes import ros_argv

pytestmark = pytest.mark.graph
ROBOTS = ("/robot1", "/robot2")
STEPS = 3


@pytest.mark.timeout(300)
def test_namespaced_robots_plan_with_one_shared_model_service(ros_graph: RosGraph, tiny_model_dir: Path) -> None:
    ready: list[bool] = []
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    ros_graph.node.create_subscription(Bool, "/llm/ready", lambda message: ready.append(message.data), latched)
    service = ros_graph.start_node(
        "llm_service",
        params={"model": str(tiny_model_dir), "context_window": 4096, "max_batch": 4},
        param_files=[config_file("llm_service.yaml")],
        name="llm_service",
    )
    for robot in ROBOTS:
        label = robot.strip("/")
        sim = ros_argv("sim_world", "sim_world", [config_file("sim_world.yaml")], namespace=robot)
        ros_graph.start_process(sim, label=f"{label}-sim")
        planner = ros_argv("planner", "planner", [config_file("planner.yaml")], {"llm_namespace": "/"}, namespace=robot)
        ros_graph.start_process(planner, label=f"{label}-planner")

    wait_until(lambda: True in ready, timeout=120, what="llm_service to report ready on /llm/ready")
    assert ready[0] is False or ready == [True]  # false while loading (if seen), then true
    # The tiny model runs no kitchen adapter: its SayCan prompt retrieves examples per request, so the
    # warm-up initialises the model with one scoring call instead of caching a prompt.
    assert "warm-up: one scoring call" in service.log(), service.log()

    clients = [
        ros_graph.action_client(ExecuteInstruction, f"{robot}/llm_planner/execute_instruction") for robot in ROBOTS
    ]
    goal = ExecuteInstruction.Goal(instruction="bring me a coke", plan_only=True, max_steps=STEPS)
    handles = [wait_future(client.send_goal_async(goal), what="goal response") for client in clients]
    results = [wait_future(handle.get_result_async(), timeout=120, what="plan result") for handle in handles]

    for robot, response in zip(ROBOTS, results, strict=True):
        message = response.result.message
        assert not message.startswith("error"), f"{robot}: {message}\n{ros_graph.logs()}"
        assert response.result.executed, f"{robot} planned no step: {message}"
        for step in response.result.executed:
            assert step.candidates, f"{robot}: a step without its candidate table"
    services = {name for name, _ in ros_graph.node.get_service_names_and_types()}
    assert "/llm/score" in services
    assert not [name for name in services if name.endswith("/llm/score") and name != "/llm/score"], services

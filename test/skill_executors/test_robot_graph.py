"""The robot graph (llm_planner_ros.bringup.graphs.ROBOT_GRAPH with config/robot_graph.yaml: planner, affordance
server, executors on their nav2 and moveit backends) plans and executes an instruction against real
Nav2, MoveIt and gripper servers and a perception / robot-state publisher (test/support/robot_doubles.py).

SayCan plans with its model replayed from a recording made offline (test/support/replayed_planner_graph.py); a
person's approval (require_confirmation, as on a robot) comes from this test's ConfirmPlan service.
MoveIt fails the first pick's approach with PLANNING_FAILED: the step fails with that reason and the
planner re-plans from the unchanged state (same prompt, so the same recorded answer), picks again and
finishes; the coke ends at the user in the doubles' world. With the coke in the closed drawer, the plan
opens the drawer (the moveit backend's drawer skill) first. ``llm-planner up --robot`` brings up the same
graph for ``llm-planner run``.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
import yaml
from action_msgs.msg import GoalStatus
from graph_helpers import WorldWatcher
from language_model_doubles import PreferringModel
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import Implementation
from replayed_planner_graph import execute_instruction, record_plan, wait_for_affordance_state
from robot_graph import INITIAL, INSTRUCTION, PLAN, records, start_doubles
from ros_harness import RosGraph, wait_until

from llm_planner_interfaces.msg import PlanStep
from llm_planner_interfaces.srv import ConfirmPlan
from llm_planner_ros.bringup.graphs import ROBOT_GRAPH
from llm_planner_ros.processes import entry_point

pytestmark = [pytest.mark.graph, pytest.mark.timeout(240)]

DRAWER_INSTRUCTION = "Bring me the coke from the drawer."
DRAWER_INITIAL = {
    "robot": {"at": "drawers", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "drawer"}],
    "drawer": {"open": False},
}
DRAWER_PLAN = ["open the drawer", "pick up the coke", "bring it to you", "put down the coke", "done"]


def mcp_scene(graph: RosGraph) -> str:
    """The robot's scene as an agent reads it through ``llm-planner mcp`` (the SDK's client over stdio)."""
    server = StdioServerParameters(command=entry_point("llm-planner"), args=["mcp"], env=graph.env)

    async def read() -> str:
        async with Client(server, client_info=Implementation(name="robot-graph-test", version="1.0")) as client:
            return (await client.read_resource("llm-planner://robot/scene")).contents[0].text  # type: ignore[union-attr]

    return anyio.run(read)


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "saycan.jsonl"
    return record_plan(path, "saycan", PreferringModel(PLAN), INSTRUCTION, INITIAL)


@pytest.fixture(scope="module")
def drawer_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "saycan_drawer.jsonl"
    return record_plan(path, "saycan", PreferringModel(DRAWER_PLAN), DRAWER_INSTRUCTION, DRAWER_INITIAL)


def test_the_robot_graph_executes_an_instruction_and_replans_after_a_failed_pick(
    ros_graph: RosGraph, tmp_path: Path, recording: Path
) -> None:
    _, record = start_doubles(ros_graph, tmp_path, INITIAL, move_group_outcomes="success,plan_fail,success")
    watcher = WorldWatcher(ros_graph)
    approvals = start_robot_graph(ros_graph, recording)

    response = execute_instruction(ros_graph, INSTRUCTION)
    steps = [(step.skill, step.status) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, steps)
    ok, failed = PlanStep.STATUS_SUCCEEDED, PlanStep.STATUS_FAILED
    assert steps == [
        ("find a coke", ok),
        ("pick up the coke", failed),
        ("pick up the coke", ok),
        ("bring it to you", ok),
        ("put down the coke", ok),
        ("done", ok),
    ]
    failure = response.result.executed[1].message
    assert "stopped at 'approach'" in failure and "PLANNING_FAILED" in failure, failure
    assert approvals[:3] == ["find a coke", "pick up the coke", "pick up the coke"]
    assert [goal["outcome"] for goal in records(record, "nav2")] == ["success", "success"]
    watcher.wait_for(lambda w: w.location_of("coke_1") == "user", "the coke put down at the user", 10.0)


def test_the_robot_graph_opens_the_drawer_for_an_instruction_that_needs_it(
    ros_graph: RosGraph, tmp_path: Path, drawer_recording: Path
) -> None:
    """The coke is in the closed drawer: the arm opens it by its handle (the moveit backend's drawer
    skill), picks the coke out of it and the robot brings it to the user."""
    _, record = start_doubles(ros_graph, tmp_path, DRAWER_INITIAL)
    watcher = WorldWatcher(ros_graph)
    start_robot_graph(ros_graph, drawer_recording)
    response = execute_instruction(ros_graph, DRAWER_INSTRUCTION)
    steps = [(step.skill, step.status) for step in response.result.executed]
    assert response.status == GoalStatus.STATUS_SUCCEEDED, (response.result.message, steps)
    assert [skill for skill, _ in steps] == DRAWER_PLAN
    assert {status for _, status in steps} == {PlanStep.STATUS_SUCCEEDED}
    phases = [m["phase"] for m in records(record, "move_group")]
    assert phases[:6] == ["pre-grasp handle", "approach handle", "pull 1/3", "pull 2/3", "pull 3/3", "retreat"]
    watcher.wait_for(lambda w: w.location_of("coke_1") == "user", "the coke from the drawer at the user", 10.0)


def start_robot_graph(ros_graph: RosGraph, recording: Path) -> list[str]:
    """The robot graph with SayCan replaying ``recording`` in-process, every step approved by this test's
    ConfirmPlan service; returns the approved skills (filled as the planner asks)."""
    approvals: list[str] = []

    def approve(request: ConfirmPlan.Request, response: ConfirmPlan.Response) -> ConfirmPlan.Response:
        approvals.append(request.steps[0].skill)
        response.approved = True
        return response

    ros_graph.node.create_service(ConfirmPlan, "/llm_planner/confirm", approve)
    replay = {"llm_mode": "in_process", "llm.backend": "replay", "llm.recording": str(recording), "planner": "saycan"}
    for spec in ROBOT_GRAPH:
        if spec.executable == "llm_service":
            continue  # the planner replays the recording in-process
        params = replay if spec.executable == "planner" else {}
        ros_graph.start_node(spec.executable, params=params, param_files=spec.param_paths(), name=spec.name)
    ros_graph.ping("planner")
    wait_for_affordance_state(ros_graph)
    return approvals


def test_llm_planner_up_robot_runs_the_robot_graph_for_llm_planner_run(
    ros_graph: RosGraph, tmp_path: Path, recording: Path
) -> None:
    start_doubles(ros_graph, tmp_path, INITIAL)
    # A person would approve each step (require_confirmation in robot_graph.yaml); here the params file says no.
    params = tmp_path / "mine.yaml"
    params.write_text(yaml.safe_dump({"planner": {"ros__parameters": {"require_confirmation": False}}}))
    log_dir = tmp_path / "up"
    up = ros_graph.start_process(
        [
            entry_point("llm-planner"),
            "up",
            "--robot",
            "--params-file",
            str(params),
            "--llm",
            "backend=replay",
            "--llm",
            f"recording={recording}",
            "--log-dir",
            str(log_dir),
        ],
        label="llm-planner-up",
    )
    wait_until(lambda: "graph up" in up.log(), timeout=120, what="`llm-planner up --robot` to report the graph up")
    expected = {spec.name for spec in ROBOT_GRAPH}
    listed = ros_graph.wait_for_nodes({(name, "/") for name in expected}, 30, f"nodes {sorted(expected)}")
    assert "sim_world" not in {name for name, _ in listed}
    wait_for_affordance_state(ros_graph)
    run = ros_graph.start_process([entry_point("llm-planner"), "run", INSTRUCTION], label="llm-planner-run")
    wait_until(lambda: run.returncode is not None, 180, "`llm-planner run` to finish")
    logs = "\n".join(f"--- {path.name}\n{path.read_text()}" for path in sorted(log_dir.glob("*.log")))
    assert run.returncode == 0, f"{run.log()}\n{logs}"
    # The final state is read as the planner reads it (its robot_state_topic robot/state, stamps unmatched).
    assert "user: coke (coke_1)" in run.log() and "(no state received)" not in run.log(), run.log()
    assert "user: coke (coke_1)" in mcp_scene(ros_graph), "the MCP scene resource reads the robot graph's state"
    for executor in ("manipulator_executor", "mobile_base_executor"):
        assert "backend: objects from /scene/objects" in (log_dir / f"{executor}.log").read_text()
    assert [goal["outcome"] for goal in records(tmp_path / "doubles.jsonl", "gripper")] == ["success"] * 3

"""`llm-planner up --namespace robot1 --params-file ...` brings the whole sim graph up under /robot1.

The model is replayed (llm_service's replay backend, recorded offline) and the goals are plan_only,
so the test needs no language model and no skill execution; it checks that every node and name moved into
the namespace, that nothing answers at the root's /llm_planner/execute_instruction, that the user's
parameter file reached the namespaced planner, and that goals sent there (by the test, and by
`llm-planner run --namespace robot1`) succeed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from action_msgs.msg import GoalStatus
from graph_helpers import write_episode
from language_model_doubles import ProgramModel
from rcl_interfaces.srv import GetParameters
from rclpy.action import get_action_names_and_types
from replayed_planner_graph import record_plan
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.processes import entry_point

pytestmark = pytest.mark.graph

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}
PROGRAM = """
    find('coke')
    pick_up('coke')
    bring_it_to_you()
    put_down('coke')
"""
MAX_STEPS = 7  # the packaged planner.yaml says 30


def _logs(log_dir: Path) -> str:
    return "\n".join(
        f"----- {path.name} -----\n{path.read_text(errors='replace')}" for path in sorted(log_dir.glob("*.log"))
    )


def test_the_sim_graph_runs_under_a_namespace_with_a_user_params_file(ros_graph: RosGraph, tmp_path: Path) -> None:
    recording = record_plan(tmp_path / "progprompt.jsonl", "progprompt", ProgramModel(PROGRAM), INSTRUCTION, INITIAL)
    episodes = write_episode(tmp_path / "episodes.yaml", "coke", INITIAL)
    params = tmp_path / "mine.yaml"
    params.write_text(
        yaml.safe_dump({"planner": {"ros__parameters": {"max_steps": MAX_STEPS, "planner": "progprompt"}}})
    )
    log_dir = tmp_path / "up"
    up = ros_graph.start_process(
        [
            entry_point("llm-planner"),
            "up",
            "--namespace",
            "robot1",
            "--params-file",
            str(params),
            "--llm",
            "backend=replay",
            "--llm",
            f"recording={recording}",
            "--episode",
            str(episodes),
            "--id",
            "coke",
            "--time-scale",
            "0.05",
            "--log-dir",
            str(log_dir),
        ],
        label="llm-planner-up",
    )
    try:
        client = ros_graph.action_client(ExecuteInstruction, "/robot1/llm_planner/execute_instruction", timeout=120)
        wait_until(lambda: "graph up" in up.log(), timeout=60, what="`llm-planner up` to report the graph up")

        # "graph up" means the nodes run; this test's client may still be discovering them.
        expected = {(spec.name, "/robot1") for spec in SIM_GRAPH}
        nodes = ros_graph.wait_for_nodes(expected, 30, "every node of the graph to be discovered under /robot1")
        assert not {spec.name for spec in SIM_GRAPH} & {name for name, namespace in nodes if namespace == "/"}
        served = {
            "/robot1/llm_planner/execute_instruction",
            "/robot1/affordance/pick",
            "/robot1/sim/apply_skill",
            "/robot1/executors/manipulator/execute_skill",
        }
        wait_until(
            lambda: served <= {name for name, _ in get_action_names_and_types(ros_graph.node)},
            timeout=30,
            what="the graph's actions to be discovered under /robot1",
        )
        actions = {name for name, _ in get_action_names_and_types(ros_graph.node)}
        assert not [name for name in actions if not name.startswith("/robot1/")], actions

        get = ros_graph.service_client(GetParameters, "/robot1/planner/get_parameters")
        reply = wait_future(get.call_async(GetParameters.Request(names=["max_steps", "planner"])))
        assert [reply.values[0].integer_value, reply.values[1].string_value] == [MAX_STEPS, "progprompt"]

        goal = ExecuteInstruction.Goal(instruction=INSTRUCTION, plan_only=True)
        handle = wait_future(client.send_goal_async(goal), what="goal response")
        response = wait_future(handle.get_result_async(), timeout=60, what="planner result")
        assert response.status == GoalStatus.STATUS_SUCCEEDED and response.result.success, response.result.message
        assert [step.skill for step in response.result.executed][:2] == ["find a coke", "pick up the coke"]

        run = subprocess.run(
            [entry_point("llm-planner"), "run", "--namespace", "robot1", "--plan-only", INSTRUCTION],
            env=ros_graph.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        assert "succeeded" in run.stdout
    except BaseException:
        print(f"\n===== `llm-planner up` node logs =====\n{_logs(log_dir)}")
        raise
    assert up.stop(timeout=30) == 0, up.log()

"""Every node entry point starts the same way (``run_node``) and takes its parameters by one rule
(``llm_planner_ros.ros.parameters``): started as a user starts it (the console script with
``--ros-args -p name:=value``), a bad value ends the process with status 1 and one fatal line naming
the parameter and the fix, never a traceback; an integer given for a float parameter starts the node.
A shutdown that hangs prints every thread's stack before ``ros2 launch`` escalates to SIGTERM.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from importlib.metadata import distribution
from pathlib import Path
from typing import Any

import pytest
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters
from ros_harness import RosGraph, allocate_domain_id, wait_future, wait_until

from llm_planner_ros.ros.node_startup import StartupError
from llm_planner_ros.ros.parameters import Parameter, accept

EXIT_WAIT_S = 30.0
CLI = "llm-planner"

# Entry point -> (parameter, a value it refuses). The LLM service's value is checked before any model loads.
BAD_VALUES: dict[str, tuple[str, Any]] = {
    "planner": ("on_busy", "wait"),
    "llm_service": ("backend", "gpt"),
    "sim_world": ("time_scale", -1.0),
    "physics_sim": ("real_time_factor", -1.0),
    "affordance_server": ("state_timeout_s", "soon"),
    "saycanpay_scorer": ("kind", "say"),
    "manipulator_executor": ("silence_timeout_s", True),
    "mobile_base_executor": ("server_timeout_s", [1.0, 2.0]),
    "skill_executor": ("backend", "teleport"),
    "perception": ("rate_hz", -1.0),
    "plan_recorder": ("robot_state_topic", 3),
    "operator_console": ("port", 70000),
}
# skill_executor runs the executor its node name says; the kitchen declares manipulator.
NODE_NAMES = {"skill_executor": "manipulator_executor"}

# Entry point -> (node name, float parameters given as integers).
INT_FOR_FLOAT: dict[str, tuple[str, dict[str, int]]] = {
    # llm.timeout_s: the planner refused `60` where the LLM service took it (issue: one typing rule).
    "planner": ("planner", {"llm_timeout_s": 60, "llm.timeout_s": 60}),
    "llm_service": ("llm_service", {"timeout_s": 60, "backoff_s": 1}),
    "sim_world": ("sim_world", {"time_scale": 0, "pick_s": 6}),
    "physics_sim": ("physics_sim", {"real_time_factor": 0, "camera_rate_hz": 2}),
    "affordance_server": ("affordance_server", {"state_timeout_s": 5, "pick_v_max": 1}),
    "saycanpay_scorer": ("saycanpay_scorer", {}),  # no float parameter: started with defaults only
    "manipulator_executor": ("manipulator_executor", {"server_timeout_s": 10}),
    "mobile_base_executor": ("mobile_base_executor", {"silence_timeout_s": 10}),
    "skill_executor": ("manipulator_executor", {"server_timeout_s": 10}),
    "perception": ("perception", {"rate_hz": 5, "stale_after_s": 2}),
    "plan_recorder": ("plan_recorder", {}),  # no float parameter: started with its bag folder only
    "operator_console": ("operator_console", {"approval_timeout_s": 20}),
}


def node_entry_points() -> set[str]:
    """The project's console scripts, except the CLI: every one of them is a node."""
    scripts = {ep.name for ep in distribution("llm_planner_ros").entry_points if ep.group == "console_scripts"}
    return scripts - {CLI}


def test_every_node_entry_point_has_a_case() -> None:
    assert node_entry_points() == set(BAD_VALUES) == set(INT_FOR_FLOAT)


@pytest.mark.graph
@pytest.mark.timeout(60)
@pytest.mark.parametrize("entry", sorted(BAD_VALUES))
def test_bad_parameter_is_one_fatal_line_and_exit_status_1(ros_graph: RosGraph, entry: str) -> None:
    name, value = BAD_VALUES[entry]
    proc = ros_graph.start_node(entry, params={name: value}, name=NODE_NAMES.get(entry))
    wait_until(lambda: proc.returncode is not None, EXIT_WAIT_S, f"{entry} exiting")
    log = proc.log()
    fatal = [line for line in log.splitlines() if "[FATAL]" in line]
    assert proc.returncode == 1, log
    assert "Traceback" not in log, log
    assert len(fatal) == 1, log
    assert f"parameter {name} is " in fatal[0] and f"-p {name}:=" in fatal[0], fatal[0]


@pytest.mark.graph
@pytest.mark.timeout(150)
@pytest.mark.parametrize("entry", sorted(INT_FOR_FLOAT))
def test_int_for_a_float_parameter_starts_the_node(ros_graph: RosGraph, entry: str, tmp_path: Path) -> None:
    node, given = INT_FOR_FLOAT[entry]
    params: dict[str, Any] = dict(given)
    if entry == "llm_service":
        recording = tmp_path / "empty.jsonl"
        recording.write_text("")
        params |= {"backend": "replay", "recording": str(recording)}  # no real model in this test
    if entry == "plan_recorder":
        params |= {"bag_folder": str(tmp_path / "bag")}  # not the user's bag folder
    if entry == "operator_console":
        params |= {"port": 0}  # not the user's console port
    proc = ros_graph.start_node(entry, params=params, name=NODE_NAMES.get(entry))
    # Nodes that load a model before their first spin (perception: torch and the sentence embedder)
    # can take a minute to answer on a loaded machine.
    ros_graph.ping(node, timeout=2 * EXIT_WAIT_S)
    client = ros_graph.node.create_client(GetParameters, f"/{node}/get_parameters")
    assert client.wait_for_service(timeout_sec=EXIT_WAIT_S)
    response = wait_future(client.call_async(GetParameters.Request(names=list(given))), EXIT_WAIT_S, "get_parameters")
    assert [(v.type, v.double_value) for v in response.values] == [
        (ParameterType.PARAMETER_DOUBLE, float(value)) for value in given.values()
    ]
    assert proc.returncode is None and "[FATAL]" not in proc.log(), proc.log()


@pytest.mark.graph
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (None, "node name 'skill_executor' names no executor: start skill_executor as <executor>_executor"),
        ("wiper_executor", "executor 'wiper' is not declared by"),
    ],
)
def test_a_skill_executor_named_for_no_declared_executor_exits_with_the_fix(
    ros_graph: RosGraph, name: str | None, expected: str
) -> None:
    proc = ros_graph.start_node("skill_executor", name=name)
    wait_until(lambda: proc.returncode is not None, EXIT_WAIT_S, "skill_executor exiting")
    fatal = [line for line in proc.log().splitlines() if "[FATAL]" in line]
    assert proc.returncode == 1 and len(fatal) == 1 and expected in fatal[0], proc.log()


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        (Parameter(60.0, "t"), 60, 60.0),
        (Parameter([0.5], "t"), [1, 2], [1.0, 2.0]),
        (Parameter(3, "t", minimum=1), 3, 3),
        (Parameter("reject", "t", choices=("reject", "preempt")), "preempt", "preempt"),
    ],
)
def test_accepted_values(spec: Parameter, value: Any, expected: Any) -> None:
    converted = accept("p", spec, value)
    assert converted == expected and type(converted) is type(expected)


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        (Parameter(60.0, "t"), True, "expected a float, not a boolean"),
        (Parameter(3, "t"), 3.0, "expected an integer, not a float"),
        (Parameter(["*"], "t"), "*", "expected a list of strings, not a string"),
        (Parameter(3, "t", minimum=1), 0, "expected an integer of at least 1"),
        (Parameter(0.5, "t", minimum=0.0, maximum=1.0), 2, "expected a float from 0 to 1"),
        (Parameter("reject", "t", choices=("reject", "preempt")), "wait", "expected one of reject, preempt"),
    ],
)
def test_refused_values_name_the_parameter_the_value_and_the_fix(spec: Parameter, value: Any, expected: str) -> None:
    with pytest.raises(StartupError) as error:
        accept("p", spec, value)
    assert f"parameter p is {value!r}, {expected}" in str(error.value)
    assert "-p p:=" in str(error.value)


SLOW_TO_CLOSE = textwrap.dedent(
    """
    import time
    from rclpy.node import Node
    from llm_planner_ros.ros.node_startup import run_node

    class SlowToClose(Node):
        def __init__(self):
            super().__init__("slow_to_close")
            self._started = self.create_timer(0.05, self._announce)

        def _announce(self):
            self._started.cancel()
            print("spinning", flush=True)

        def close(self):
            time.sleep(5.0)

    raise SystemExit(run_node(SlowToClose))
    """
)


@pytest.mark.graph
@pytest.mark.timeout(60)
def test_a_shutdown_still_running_after_4_s_prints_where_every_thread_is() -> None:
    env = os.environ | {"ROS_DOMAIN_ID": str(allocate_domain_id())}
    node = subprocess.Popen(
        [sys.executable, "-c", SLOW_TO_CLOSE], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert node.stdout is not None
    assert node.stdout.readline().strip() == "spinning", node.communicate(timeout=30)
    node.send_signal(signal.SIGINT)
    _, stderr = node.communicate(timeout=30)
    assert node.returncode == 0, stderr
    assert "Timeout (0:00:04)!" in stderr, stderr
    assert "in close" in stderr and "in _spin" in stderr, stderr


@pytest.mark.graph
@pytest.mark.timeout(60)
def test_a_console_whose_port_is_taken_exits_with_the_fix(ros_graph: RosGraph) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = ros_graph.start_node("operator_console", params={"port": port})
        wait_until(lambda: proc.returncode is not None, EXIT_WAIT_S, "operator_console exiting")
    fatal = [line for line in proc.log().splitlines() if "[FATAL]" in line]
    assert proc.returncode == 1 and len(fatal) == 1, proc.log()
    assert f"cannot listen on 127.0.0.1:{port}" in fatal[0] and "port 0: any free port" in fatal[0], fatal[0]

"""The ``ros2`` command of a sourced colcon workspace, run in a test's ROS domain as a user types it."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import yaml
from colcon_ws import Workspace
from ros_harness import RosGraph

from llm_planner_ros.processes import NodeProcess, stat_fields

GOAL_SUCCEEDED = "Goal finished with status: SUCCEEDED"
# How long a ros2 command's own node spins before its verb runs. Without the daemon, ros2cli spins for all of
# it, every call (3 s cost 24 s of the `ros2 param` test); discovery is left to NODE_WAIT_S, which polls the
# graph until the named node appears, and to the verb's own wait for the node's parameter services.
DISCOVERY_S = 0.2
# How long `ros2 param` then waits for the named node to appear in its graph view (its default, 1 s, lost a
# node of a 9-node launch under a browser test's load: the verb printed "Node not found" on stderr).
NODE_WAIT_S = 15


def params_file(folder: Path, parameters: dict[str, dict[str, Any]]) -> Path:
    """A user's ROS parameter file ``folder/params.yaml``: node name (any key form rcl reads) -> parameters."""
    path = folder / "params.yaml"
    path.write_text(yaml.safe_dump({node: {"ros__parameters": values} for node, values in parameters.items()}))
    return path


class Ros2:
    """``run(...)``: a ``ros2`` verb to its end; ``start(...)``: one that keeps running (``ros2 launch``,
    ``ros2 run``, ``ros2 topic echo``), as a process of the graph (its log shown when the test fails)."""

    def __init__(self, graph: RosGraph, workspace: Workspace) -> None:
        self.graph = graph
        graph.env.update({key: value for key, value in workspace.env.items() if key != "ROS_DOMAIN_ID"})
        self.executable = workspace.tool("ros2")

    def run(self, *arguments: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.executable, *arguments], env=self.graph.env, capture_output=True, text=True, timeout=timeout
        )

    def param(self, verb: str, *arguments: str) -> subprocess.CompletedProcess[str]:
        """``ros2 param <verb>`` without the ros2 daemon (which would outlive the test) and with time for
        discovery: a fresh command's node needs up to a few seconds to see the others here, and the verb
        returns as soon as the node is seen. Asserts the verb ran (its stderr in the message)."""
        done = self.run(
            "param", verb, "--no-daemon", "--spin-time", str(DISCOVERY_S), "--timeout", str(NODE_WAIT_S), *arguments
        )
        assert "Node not found" not in done.stderr, f"ros2 param {verb} {' '.join(arguments)}: {done.stderr}"
        return done

    def start(self, *arguments: str, label: str) -> NodeProcess:
        return self.graph.start_process([self.executable, *arguments], label=label)

    def send_goal(self, action: str, instruction: str, timeout: float = 240.0) -> str:
        """``ros2 action send_goal`` of ``instruction`` to the ExecuteInstruction ``action``; its output,
        asserted to end SUCCEEDED."""
        goal = f"{{instruction: '{instruction}', planner: '', plan_only: false, max_steps: 0}}"
        sent = self.run(
            "action", "send_goal", action, "llm_planner_interfaces/action/ExecuteInstruction", goal, timeout=timeout
        )
        assert GOAL_SUCCEEDED in sent.stdout, f"{sent.stdout}\n{sent.stderr}\n{self.graph.logs()}"
        return sent.stdout


def session_processes(session: int) -> list[str]:
    """The command lines of the live processes of ``session`` (a process started in a session of its
    own leads the session whose id is its pid)."""
    found = []
    for folder in Path("/proc").glob("[0-9]*"):
        fields = stat_fields(folder.name)
        if fields is None or int(fields[3]) != session or fields[0] == "Z":
            continue
        try:
            found.append((folder / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip())
        except OSError:
            continue
    return found


def interrupt_and_wait(process: NodeProcess, timeout: float = 60.0) -> int:
    """Ctrl-C in the terminal of ``process``: SIGINT to its process group (``ros2 run`` leaves the
    shutdown to its node, which gets the signal too; ``ros2 launch`` also passes it on to every node it
    started), then its exit status once it ended; asserts that nothing it started is left running."""
    assert process.pid is not None and process.returncode is None, "the process is not running"
    os.killpg(process.pid, signal.SIGINT)
    return wait_for_exit(process, timeout)


def wait_for_exit(process: NodeProcess, timeout: float = 60.0) -> int:
    """The exit status of ``process`` once it ended (subprocess.TimeoutExpired after ``timeout``); asserts
    that nothing it started is left running."""
    assert process.pid is not None, "the process was not started"
    status = process.wait(timeout)
    left = session_processes(process.pid)
    assert not left, f"processes left after {process.argv[:3]} ended: {left}"
    return status

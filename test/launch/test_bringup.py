"""The launch files and `llm-planner up` start the same nodes with the same parameter files.

`ros2 launch` is not on PyPI, so the launch files run here against stand-ins of the launch modules
that record what they would start (test/support/launch_stub.py); a ROS install builds the same description.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from launch_stub import LAUNCH_DIR, launch_nodes
from ros_harness import DEFAULT_WAIT_S, RosGraph, wait_until

from llm_planner_ros.bringup.graphs import GRAPHS, SIM_GRAPH
from llm_planner_ros.processes import stat_fields


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_launch_file_names_installed_executables_and_existing_parameter_files(
    graph: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    nodes = launch_nodes(LAUNCH_DIR / f"{graph}.launch.py", monkeypatch)
    scripts = {
        ep.name
        for ep in importlib.metadata.entry_points(group="console_scripts")
        if ep.value.split(".")[0] in ("llm_planner_ros", "affordance_servers", "skill_executors")
    }
    # The robot graph's planner waits for approval of each step: the operator console comes with it.
    console = ["operator_console"] if graph == "robot" else []
    assert [node["executable"] for node in nodes] == [*(spec.executable for spec in GRAPHS[graph]), *console]
    for node in nodes:
        assert node["package"] == "llm_planner_ros"
        assert node["executable"] in scripts, f"{node['executable']} is not a console script of this package"
        assert node["parameters"], f"{node['name']} gets no parameter file"
        sections = {}
        for path in map(Path, node["parameters"]):
            assert path.exists(), path
            sections.update(yaml.safe_load(path.read_text()))
        assert node["name"] in sections, f"no `{node['name']}:` section in {node['parameters']}"
        assert "ros__parameters" in sections[node["name"]]


@pytest.mark.graph
def test_up_starts_the_sim_graph_nodes_and_a_second_up_in_the_domain_is_refused(
    ros_graph: RosGraph, tmp_path: Path
) -> None:
    output = tmp_path / "up.out"
    up = llm_planner(ros_graph, "up", "--log-dir", str(tmp_path / "logs"), output=output)
    try:
        # "graph up", not the node names: until the model is loaded `up` is still starting, and a Ctrl-C then
        # stops it with status 130 (a loaded machine loads the model long after every node is on the graph).
        wait_until(
            lambda: "graph up" in output.read_text() or up.poll() is not None,
            timeout=300,
            what="llm-planner up's 'graph up'",
        )
        assert up.poll() is None, f"llm-planner up ended (rc {up.returncode}): {output.read_text()}"
        expected = {spec.name for spec in SIM_GRAPH}
        ros_graph.wait_for_nodes({(name, "/") for name in expected}, DEFAULT_WAIT_S, f"nodes {sorted(expected)}")
        for spec in SIM_GRAPH:
            log = (tmp_path / "logs" / f"{spec.name}.log").read_text()
            assert "error" not in log.lower(), log
        # A second graph in the same domain would get every skill goal too: refused before it starts a node.
        before = domain_processes(ros_graph.domain_id)
        second = subprocess.run(
            [str(Path(sys.executable).parent / "llm-planner"), "up", "--log-dir", str(tmp_path / "second")],
            env=ros_graph.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode != 0, second.stdout + second.stderr
        assert f"another graph already runs in ROS_DOMAIN_ID={ros_graph.domain_id}: /" in second.stderr, second.stderr
        assert "--namespace robot2" in second.stderr and not list((tmp_path / "second").iterdir())
        assert set(domain_processes(ros_graph.domain_id)) == set(before)
    finally:
        os.killpg(up.pid, signal.SIGINT)
        up.wait(timeout=60)
    assert up.returncode == 0, output.read_text()


@pytest.mark.graph
@pytest.mark.timeout(200)
def test_up_counts_the_nodes_it_really_starts(ros_graph: RosGraph, tmp_path: Path) -> None:
    output = tmp_path / "up.out"
    up = llm_planner(
        ros_graph, "up", "--log-dir", str(tmp_path / "logs"), "--without", "affordance_server", output=output
    )
    try:
        wait_until(lambda: "logs)" in output.read_text(), timeout=120, what="llm-planner up's 'started' line")
        started = [name for name in (spec.name for spec in SIM_GRAPH) if name != "affordance_server"]
        line = f"started {len(started)} nodes: {', '.join(started)} (logs in {tmp_path / 'logs'})"
        shown = " ".join(output.read_text().split())  # rich wraps the line at the pipe's 80 columns
        assert line in shown, shown
    finally:
        os.killpg(up.pid, signal.SIGINT)
        up.wait(timeout=60)


def llm_planner(ros_graph: RosGraph, *args: str, output: Path | None = None) -> subprocess.Popen[str]:
    """``llm-planner ARGS`` in the graph's ROS domain and a session of its own, its output piped (or written
    to ``output``, which a test can read while the command runs)."""
    with output.open("w") if output is not None else contextlib.nullcontext() as sink:
        return subprocess.Popen(
            [str(Path(sys.executable).parent / "llm-planner"), *args],
            env=ros_graph.env,
            stdout=sink if sink is not None else subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )


def domain_processes(domain_id: int) -> dict[int, str]:
    """Pid -> command line of every other live process in ROS domain ``domain_id`` (by its environment)."""
    found = {}
    for environ in Path("/proc").glob("[0-9]*/environ"):
        pid = int(environ.parent.name)
        try:
            if f"ROS_DOMAIN_ID={domain_id}".encode() not in environ.read_bytes().split(b"\0") or pid == os.getpid():
                continue
            fields = stat_fields(pid)
            if fields is None or fields[0] == "Z":
                continue
            found[pid] = (environ.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
    return found


@pytest.mark.graph
@pytest.mark.timeout(400)
def test_up_reports_a_node_that_died_and_a_sighup_takes_the_whole_graph_down(
    ros_graph: RosGraph, tmp_path: Path
) -> None:
    output = tmp_path / "up.out"
    up = llm_planner(ros_graph, "up", "--log-dir", str(tmp_path / "logs"), output=output)
    try:
        wait_until(lambda: "graph up" in output.read_text(), timeout=300, what="llm-planner up's 'graph up'")
        (affordance,) = [
            pid
            for pid, cmd in domain_processes(ros_graph.domain_id).items()
            if "affordance_server" in [Path(part).name for part in cmd.split()[:2]]
        ]
        os.kill(affordance, signal.SIGKILL)
        wait_until(
            lambda: "affordance_server exited with status -9" in output.read_text(),
            timeout=30,
            what="up reporting the killed node",
        )
        # A closed terminal: SIGHUP to `up` alone.
        up.send_signal(signal.SIGHUP)
        assert up.wait(timeout=60) == 0, output.read_text()
    finally:
        if up.poll() is None:
            os.killpg(up.pid, signal.SIGKILL)
        left = domain_processes(ros_graph.domain_id)
        for pid in left:  # a failing run leaves nothing behind either
            os.kill(pid, signal.SIGKILL)
    assert not left, f"left running after up ended: {left}"


@pytest.mark.graph
@pytest.mark.timeout(200)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["sigint", "sigterm", "sighup"])
def test_a_demo_stopped_while_its_graph_comes_up_leaves_nothing_running(
    ros_graph: RosGraph, tmp_path: Path, signum: signal.Signals
) -> None:
    demo = llm_planner(ros_graph, "demo", "--log-dir", str(tmp_path / "logs"))

    def planner_started() -> bool:
        commands = domain_processes(ros_graph.domain_id).values()
        return any("planner" in [Path(part).name for part in cmd.split()[:2]] for cmd in commands)

    try:
        # The planner's process exists seconds before its action server does: the demo is still waiting for
        # its graph to come up (before, an interrupt there, or any SIGTERM or SIGHUP, left the nodes running).
        wait_until(lambda: planner_started() or demo.poll() is not None, timeout=60, what="the demo's planner")
        assert demo.poll() is None, demo.communicate()[0]
        demo.send_signal(signum)
        output, _ = demo.communicate(timeout=90)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
        left = domain_processes(ros_graph.domain_id)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    assert not left, f"left running after the demo ended: {left}"
    assert demo.returncode == 130 and "interrupted" in output, output

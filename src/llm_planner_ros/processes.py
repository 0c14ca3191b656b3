"""Running the project's nodes as processes: how ``llm-planner up``/``demo`` (and the graph tests)
start a graph without ros2 launch, which is not on PyPI.

A ``NodeProcess`` writes its output to a log file and stops cleanly (SIGINT first, as rclpy expects,
then SIGTERM and SIGKILL if it does not exit in time).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from llm_planner_ros.bringup.graphs import NodeSpec
from llm_planner_ros.bringup.options import GraphOptions
from llm_planner_ros.bringup.starts import node_starts


def entry_point(name: str) -> str:
    """Path of an executable of this package: beside the running program first (a colcon install keeps
    them all in lib/llm_planner_ros/, where `ros2 run llm_planner_ros llm-planner` runs the CLI from),
    then in this environment's bin/ (the venv), then on PATH."""
    for folder in (Path(sys.argv[0]).resolve().parent, Path(sys.executable).parent):
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(
            f"executable {name!r} not installed: run `make setup` (venv) or `colcon build` and source "
            "install/setup.bash (ROS workspace)"
        )
    return found


def ros_argv(
    executable: str,
    name: str | None = None,
    param_files: list[Path] | None = None,
    params: Mapping[str, Any] | None = None,
    args: list[str] | None = None,
    namespace: str = "",
) -> list[str]:
    """The command line of a node: its entry point, plain arguments, then ``--ros-args`` with the
    parameter files, ``-p key:=value`` overrides (after the files, so they win), the node name and the
    namespace ("" keeps the root)."""
    argv = [entry_point(executable), *(args or [])]
    ros_args: list[str] = []
    for path in param_files or []:
        ros_args += ["--params-file", str(path)]
    for key, value in (params or {}).items():
        ros_args += ["-p", f"{key}:={param_literal(value)}"]
    if name:
        ros_args += ["-r", f"__node:={name}"]
    if namespace:
        ros_args += ["-r", f"__ns:={namespace}"]
    return argv + (["--ros-args", *ros_args] if ros_args else [])


def param_literal(value: Any) -> str:
    """A ROS parameter value as ``-p`` expects it (YAML: true/false, [a,b], numbers, strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(param_literal(v) for v in value) + "]"
    return str(value)


class NodeProcess:
    """One process in its own session (so a stop reaches its children), output to ``log_path``.

    ``returncode`` is None while it runs; ``stop()`` returns the exit code (or None if it never started).
    """

    def __init__(self, argv: list[str], env: Mapping[str, str], log_path: Path) -> None:
        self.argv = argv
        self.env = dict(env)
        self.log_path = log_path
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def start(self) -> NodeProcess:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        self._proc = subprocess.Popen(
            self.argv, env=self.env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        return self

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    def wait(self, timeout: float) -> int:
        assert self._proc is not None, "wait() before start()"
        return self._proc.wait(timeout=timeout)

    def stop(self, timeout: float = 10.0) -> int | None:
        return stop_all([self], timeout)[0]

    def _signal(self, sig: signal.Signals) -> bool:
        """Send ``sig`` to the process group; False when the process has already exited."""
        if self._proc is None or self._proc.poll() is not None:
            return False
        try:
            os.killpg(self._proc.pid, sig)
        except ProcessLookupError:
            return False
        return True

    def _exited_by(self, deadline: float) -> bool:
        assert self._proc is not None
        try:
            self._proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            return False
        return True

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def stop_all(processes: Sequence[NodeProcess], timeout: float = 10.0) -> list[int | None]:
    """Stop processes together: SIGINT to every one still running, up to ``timeout`` for them all to exit,
    then SIGTERM to those left and SIGKILL after that. Stopping a graph one node after the other would
    wait out each node's shutdown in turn; the exit codes come back in the order given (None: never
    started).

    What the processes started goes too. A process group is reached only while its leader lives, and
    ``llm-planner up`` starts each node in a session of its own: a leader that exits (or is killed) first
    would leave its nodes running, and a simulator left so answered a later test that leased the same ROS
    domain. Every descendant seen before a signal is stopped the same way once the leaders are gone."""
    started = [process for process in processes if process._proc is not None]
    descendants: set[_ProcessId] = set()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        descendants |= _descendants_of([process.pid for process in started if process.returncode is None])
        signalled = [process for process in started if process._signal(sig)]
        deadline = time.monotonic() + timeout
        if all([process._exited_by(deadline) for process in signalled]):
            break
    _stop_orphans(descendants, timeout)
    for process in started:
        process._close_log()
    return [process.returncode for process in processes]


# A process by its pid and its start time (clock ticks after boot): a pid alone may have been reused.
_ProcessId = tuple[int, int]


def stat_fields(pid: int | str) -> list[str] | None:
    """The fields of /proc/<pid>/stat after "pid (command)": state ("Z": a zombie, done), ppid, pgrp,
    session, ..., the start time 19 fields after the state; None once the process is gone."""
    try:
        # The command may hold spaces and parentheses: the fields begin after its last ")".
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _process_table() -> dict[_ProcessId, int]:
    """Every live process (zombies are done) of this machine with its parent's pid, from /proc."""
    table = {}
    for folder in Path("/proc").glob("[0-9]*"):
        fields = stat_fields(folder.name)
        if fields is not None and fields[0] != "Z":
            table[(int(folder.name), int(fields[19]))] = int(fields[1])
    return table


def _descendants_of(pids: Sequence[int | None]) -> set[_ProcessId]:
    """The live children of ``pids``, their children, and so on."""
    table = _process_table()
    children: dict[int, list[_ProcessId]] = {}
    for process, parent in table.items():
        children.setdefault(parent, []).append(process)
    found: set[_ProcessId] = set()
    frontier = [pid for pid in pids if pid is not None]
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in found:
                found.add(child)
                frontier.append(child[0])
    return found


def _stop_orphans(processes: set[_ProcessId], timeout: float) -> None:
    """SIGTERM to those of ``processes`` still alive, SIGKILL after ``timeout``."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = processes & _process_table().keys()
        if not alive:
            return
        for pid, _ in alive:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                continue
        deadline = time.monotonic() + timeout
        while processes & _process_table().keys() and time.monotonic() < deadline:
            time.sleep(0.05)


def start_graph(
    specs: tuple[NodeSpec, ...],
    log_dir: Path,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    options: GraphOptions | None = None,
) -> list[NodeProcess]:
    """Start every node of a graph as ``bringup.node_starts`` says for ``options`` (namespaced parameter
    files go to ``log_dir/params``); ``overrides[node_name]`` adds ``-p`` values after everything else."""
    environment = dict(env if env is not None else os.environ)
    environment.setdefault("PYTHONUNBUFFERED", "1")
    processes = []
    for start in node_starts(specs, options or GraphOptions(), log_dir / "params"):
        params = {**start.params, **(overrides or {}).get(start.name, {})}
        argv = ros_argv(start.executable, start.name, list(start.param_files), params, namespace=start.namespace)
        processes.append(NodeProcess(argv, environment, log_dir / f"{start.name}.log").start())
    return processes

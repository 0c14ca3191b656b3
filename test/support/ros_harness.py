"""Graph-test harness: isolated ROS domains, node processes, and waiting without fixed sleeps.

Each test gets its own ROS_DOMAIN_ID (so tests and pytest-xdist workers never see each other's
nodes), starts the project's node entry points as subprocesses (launch_testing is not on PyPI),
and waits for the servers it needs with a timeout. Node output goes to a log file per process,
which the ``ros_graph`` fixture prints when a test fails.
"""

from __future__ import annotations

import atexit
import fcntl
import itertools
import os
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import rclpy
from rcl_interfaces.srv import ListParameters
from rclpy.context import Context
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from llm_planner_ros.processes import NodeProcess, ros_argv, stop_all
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.background_spin import BackgroundSpin

# Fast DDS discovery on loopback took up to 2.4 s here; leave a wide margin, never sleep blindly.
DEFAULT_WAIT_S = 20.0

# A domain's DDS ports are 7400 + 250 x id and up; from id 102 on they lie in Linux's ephemeral port range
# (32768-60999), where any outgoing connection may hold the port a participant needs, and discovery in
# that domain can fail for a minute (two test runs here: a server up, never found, in domains 167 and
# 187). ROS 2 therefore advises ids 0..101 on Linux: ids 1..100 here, 0 kept for people. Ids are leased
# in pairs because the benchmark runner's graphs take the leased id and the one after it.
_DOMAIN_BASE = 1
_DOMAIN_PAIRS = 50
# A test holds at most two graphs at once; a few more leases keep a just-closed domain (whose killed
# participants Fast DDS still lists until their lease runs out) away from the next test of this process.
_HELD_LEASES = 4
# The same holds across processes (pytest-xdist workers): a domain another process let go of less than
# this long ago is taken only when every other free one is as fresh. Fast DDS lists a participant that
# died without saying goodbye for its lease duration, 20 s by default: a test of one worker once found
# the root-namespace affordance servers of a graph the other worker had just stopped in its domain.
COOLDOWN_S = 25.0
# How long one fresh participant gets to list the graph (discovery took up to 2.5 s here) in wait_for_nodes.
NODE_LISTING_ROUND_S = 5.0
# The DDS topic a node's parameter service replies on ends so (rr/<namespace>/<node>/list_parametersReply).
PARAMETER_REPLY = "/list_parametersReply"
_LEASE_DIR = Path(tempfile.gettempdir()) / "llm_planner_ros-test-domains"
_held: deque[int] = deque()


def _lease(domain_id: int, fd: int, passed: list[tuple[float, int, int]]) -> int:
    """Keep ``fd``'s lock as the newest lease, let go of the fresh domains looked at on the way, and of
    the oldest lease beyond ``_HELD_LEASES`` (marking it used now)."""
    for _, _, other in passed:
        os.close(other)
    os.utime(fd)
    _held.append(fd)
    while len(_held) > _HELD_LEASES:
        released = _held.popleft()
        os.utime(released)
        os.close(released)
    return domain_id


def _release_all() -> None:
    """At exit: mark this process's last leases used now; the kernel drops their locks."""
    for fd in _held:
        os.utime(fd)


atexit.register(_release_all)


def _cursor_start() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    worker_index = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0
    return os.getpid() * 13 + worker_index * 37


_cursor = itertools.count(_cursor_start())


def allocate_domain_id() -> int:
    """A ROS_DOMAIN_ID (and the id after it) that no other process on this machine is testing in.

    The pair is leased with an exclusive ``flock`` on a file under the temp directory, so concurrent
    pytest runs (two developers, CI beside a session, pytest-xdist workers) never share a domain; the
    kernel drops the lock when the process ends, however it ends, so no lease outlives its holder.
    A process keeps its last few leases and walks the whole range before it comes back to one. The lock
    file's modification time says when its domain was last taken or let go of: a free domain fresher
    than ``COOLDOWN_S`` is handed out only when no cooled one is free.
    """
    _LEASE_DIR.mkdir(exist_ok=True)
    fresh: list[tuple[float, int, int]] = []  # (when last used, domain id, locked fd) of free, fresh domains
    for _ in range(_DOMAIN_PAIRS):
        domain_id = _DOMAIN_BASE + 2 * (next(_cursor) % _DOMAIN_PAIRS)
        fd = os.open(_LEASE_DIR / f"{domain_id}.lock", os.O_CREAT | os.O_RDWR, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        used = os.fstat(fd).st_mtime
        if time.time() - used < COOLDOWN_S:
            fresh.append((used, domain_id, fd))
            continue
        return _lease(domain_id, fd, fresh)
    if fresh:
        fresh.sort()
        _, domain_id, fd = fresh.pop(0)
        return _lease(domain_id, fd, fresh)
    raise RuntimeError(
        f"every test ROS domain is leased by another process (lock files in {_LEASE_DIR}): "
        "wait for the other test runs to end, or stop stray pytest processes"
    )


class RosGraph:
    """A test's ROS world: its domain id, its node processes, and an in-process client node.

    ``start_node(entry, params=..., name=...)`` starts a project node; ``node`` is an rclpy node in a
    private context spun by a background executor, for clients, subscriptions and service calls from
    the test itself. ``close()`` stops everything; ``logs()`` returns every process's output.
    """

    def __init__(self, log_dir: Path) -> None:
        self.domain_id = allocate_domain_id()
        self.log_dir = log_dir
        self.env = dict(os.environ)
        self.env["ROS_DOMAIN_ID"] = str(self.domain_id)
        self.env["PYTHONUNBUFFERED"] = "1"
        self.env.setdefault("RCUTILS_LOGGING_BUFFERED_STREAM", "0")
        self.processes: list[NodeProcess] = []
        self.context = Context()
        rclpy.init(context=self.context, domain_id=self.domain_id)
        self.node: Node = rclpy.create_node(f"test_client_{os.getpid()}", context=self.context)
        self.executor = MultiThreadedExecutor(num_threads=4, context=self.context)
        self.executor.add_node(self.node)
        # A callback that raises (rclpy handling feedback of an action client a test just destroyed)
        # must not end the spinning thread: its errors are kept and shown by logs().
        self._spin = BackgroundSpin(self.executor, self.context).start()

    @property
    def spin_errors(self) -> list[str]:
        """Exceptions the test's own callbacks raised; the executor went on spinning after each."""
        return self._spin.errors

    def start_node(
        self,
        entry: str,
        params: Mapping[str, Any] | None = None,
        param_files: list[str | Path] | None = None,
        args: list[str] | None = None,
        name: str | None = None,
    ) -> NodeProcess:
        """Start an entry point with ROS parameters (``-p k:=v``) and parameter files."""
        argv = ros_argv(entry, name, [Path(p) for p in param_files or []], params, args)
        return self.start_process(argv, label=name or entry)

    def start_process(self, argv: list[str], label: str) -> NodeProcess:
        """Start any command (a test server script, the CLI) in this graph's ROS domain."""
        proc = NodeProcess(argv, self.env, self.log_dir / f"{label}-{len(self.processes)}.log").start()
        self.processes.append(proc)
        return proc

    def action_client(self, action_type: Any, name: str, timeout: float = DEFAULT_WAIT_S) -> RaceFreeActionClient:
        """An action client whose server is known to be up (raises TimeoutError otherwise)."""
        client = RaceFreeActionClient(self.node, action_type, name)
        if not client.wait_for_server(timeout_sec=timeout):
            raise TimeoutError(f"action server {name} not up after {timeout:.0f} s\n{self.logs()}")
        self._ping_host(name, "rt{}/_action/status")
        return client

    def _ping_host(self, name: str, server_topic: str) -> None:
        """Ping the node that serves ``name``: a client seeing the server does not mean the server sees
        the client, and an answer sent before that is lost ("failed to send response (timeout)" in the
        server's log). ``server_topic`` is the DDS topic only a server of ``name`` writes ("{}" for the name).

        The host is found by its DDS participant, not by node name: rmw_fastrtps (Jazzy) learns which
        node owns an endpoint from ros_discovery_info, read with a history of one sample across all
        writers, so the record of one of two nodes that start together can be overwritten before it is
        read and that node is never listed (ros2/rmw_fastrtps#792; seen here: an executor's action server
        found, its node unlisted for 20 s). Endpoints and their GIDs come from DDS discovery itself, and
        a GID's first 12 bytes are its participant's GUID prefix, shared with the node's parameter service.
        """
        name = self.node.resolve_topic_name(name)  # the project's names are relative (llm_planner_ros.ros.topics)
        writer_topic = server_topic.format(name)
        hosts: list[str] = []

        def participants(topic: str) -> set[bytes]:
            return {bytes(info.endpoint_gid[:12]) for info in self.node.get_publishers_info_by_topic(topic, True)}

        def host_found() -> bool:
            servers = participants(writer_topic)
            for topic, _ in self.node.get_topic_names_and_types(no_demangle=True):
                if topic.startswith("rr/") and topic.endswith(PARAMETER_REPLY) and participants(topic) & servers:
                    hosts.append(topic[len("rr/") : -len(PARAMETER_REPLY)])
                    return True
            return False

        wait_until(host_found, DEFAULT_WAIT_S, f"the parameter service of the node that serves {name}")
        self.ping(hosts[0])

    def wait_for_nodes(self, expected: set[tuple[str, str]], timeout: float, what: str) -> set[tuple[str, str]]:
        """Wait until every ``(name, namespace)`` of ``expected`` is on the graph; returns what was listed.

        This test's own node can miss a node's record for good (``_ping_host`` says why): each round
        also asks a participant that joins the domain afresh, which reads every record anew.
        """
        deadline = time.monotonic() + timeout
        while True:
            listed = set(self.node.get_node_names_and_namespaces())
            if expected <= listed:
                return listed
            context = Context()
            rclpy.init(context=context, domain_id=self.domain_id)
            try:
                probe = rclpy.create_node(f"test_probe_{os.getpid()}", context=context)
                round_end = min(deadline, time.monotonic() + NODE_LISTING_ROUND_S)
                while time.monotonic() < round_end:
                    listed = set(self.node.get_node_names_and_namespaces()) | set(probe.get_node_names_and_namespaces())
                    if expected <= listed:
                        return listed
                    time.sleep(0.05)
                probe.destroy_node()
            finally:
                rclpy.try_shutdown(context=context)
            if time.monotonic() >= deadline:
                missing = sorted(expected - listed)
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}; not listed: {missing}")

    def ping(self, node_name: str, timeout: float = 60.0) -> None:
        """Block until a service round trip to ``node_name`` succeeds (its parameter service).

        A server's endpoints can be discovered before the way back to this client is: a request sent
        then gets no response ("failed to send response" in the server's log). Requests are repeated
        every 5 s until one round trip shows discovery in both directions has finished.
        """
        client = self.node.create_client(ListParameters, f"/{node_name}/list_parameters")
        deadline = time.monotonic() + timeout
        try:
            while True:
                if not client.wait_for_service(timeout_sec=max(0.1, deadline - time.monotonic())):
                    raise TimeoutError(
                        f"node {node_name} has no parameter service after {timeout:.0f} s\n{self.logs()}"
                    )
                future = client.call_async(ListParameters.Request())
                try:
                    wait_until(
                        future.done, min(5.0, max(0.1, deadline - time.monotonic())), f"a round trip to {node_name}"
                    )
                    return
                except TimeoutError:
                    if time.monotonic() >= deadline:
                        raise
        finally:
            self.node.destroy_client(client)

    def service_client(self, srv_type: Any, name: str, timeout: float = DEFAULT_WAIT_S) -> Any:
        client = self.node.create_client(srv_type, name)
        if not client.wait_for_service(timeout_sec=timeout):
            raise TimeoutError(f"service {name} not up after {timeout:.0f} s\n{self.logs()}")
        self._ping_host(name, "rr{}Reply")
        return client

    def logs(self) -> str:
        text = "\n".join(f"----- {p.log_path.name} -----\n{p.log()}" for p in self.processes)
        if self._spin.errors:
            text += "\n----- the test's own executor -----\n" + "\n".join(self._spin.errors)
        return text

    def close(self) -> None:
        stop_all(self.processes)
        self._spin.stop()
        self.executor.shutdown(timeout_sec=5)
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


def wait_until(predicate: Callable[[], bool], timeout: float = DEFAULT_WAIT_S, what: str = "condition") -> None:
    """Poll ``predicate`` every 20 ms until it is true; TimeoutError naming ``what`` otherwise."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.02)


def publish_until(
    publisher: Any,
    message: Any,
    seen: Callable[[], bool],
    what: str,
    every_s: float = 1.0,
    timeout: float = DEFAULT_WAIT_S,
) -> None:
    """Publish ``message``, then again every ``every_s`` until ``seen()``; TimeoutError naming ``what``
    after ``timeout``. A publisher can match a subscription before the subscription matches it, and a
    volatile subscription drops what a writer it does not know yet sent: one message right after
    ``get_subscription_count() >= 1`` is lost now and then. Give a message whose effect must happen
    once an ``every_s`` far above its delivery time."""
    deadline = time.monotonic() + timeout
    while True:
        publisher.publish(message)
        try:
            wait_until(seen, max(0.0, min(every_s, deadline - time.monotonic())), what)
            return
        except TimeoutError:
            if time.monotonic() >= deadline:
                raise


def wait_future(future: Any, timeout: float = DEFAULT_WAIT_S, what: str = "future") -> Any:
    """Result of an rclpy future completed by the background executor, or TimeoutError."""
    wait_until(future.done, timeout, what)
    return future.result()


@contextmanager
def ros_graph(log_dir: Path) -> Iterator[RosGraph]:
    graph = RosGraph(log_dir)
    try:
        yield graph
    finally:
        graph.close()

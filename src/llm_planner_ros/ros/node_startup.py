"""What every node of this project does alike: start, spin, shut down (parameters: ros.parameters).

``run_node`` gives each entry point the same lifecycle: the project's Fast DDS profile
(``dds_profile``), rclpy init, a MultiThreadedExecutor (nodes here run long action callbacks next to
subscriptions), and on SIGINT, SIGTERM or SIGHUP (``ros2 launch``'s Ctrl-C, a service manager's stop, a
closed terminal) a clean exit without a traceback: the node's ``close()`` stops its work first (a goal
being planned ends with its result sent, a skill being played out stops), and only then is the ROS
context shut down. The signal handlers only set a flag (``stop_request`` says why no Event). A shutdown
still running 4 s after the request prints every thread's stack to stderr (``ros2 launch`` escalates
after 5 s), from faulthandler's watchdog, which needs no GIL: CI saw an executor node that ignored
SIGTERM until ``ros2 launch`` killed it, with no report from a Python timer thread, so a C call held
the GIL. Once the node and the context are gone the process ends with ``os._exit``: nothing of this
project is left to finalize, and that node's last words came from futures being garbage-collected, so
it most likely stopped in the interpreter's teardown of rclpy and the middleware. rclpy's own signal
handler is not installed because it shuts the context down at once, under callbacks that are still
running: they then die publishing on invalid publishers with tracebacks, and a client's goal never
gets its result. A node that cannot start raises ``StartupError`` from its constructor: one fatal log
line, exit status 1. So does a node whose ``--params-file`` files give it a parameter it does not
declare (``parameter_files.check_node_parameter_files``).
"""

from __future__ import annotations

import faulthandler
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import NoReturn

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.logging import get_logger
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from rclpy.utilities import get_default_context

from llm_planner_ros.ros.dds_profile import use_project_profiles
from llm_planner_ros.ros.parameter_files import ParameterFileError, check_node_parameter_files
from llm_planner_ros.ros.stop_request import StopRequest

SHUTDOWN_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# How often the main thread looks whether the executor's thread ended by itself (an external shutdown),
# and how often the executor's thread looks whether to stop spinning.
_WATCH_PERIOD_S = 0.5
_SPIN_PERIOD_S = 0.1
# How long callbacks still running after close() get to return before the node is destroyed under them.
_DRAIN_TIMEOUT_S = 3.0
# When a shutdown still runs this long after the request, every thread's stack goes to stderr: `ros2
# launch` escalates to SIGTERM after 5 s, SIGKILL after 15 s, and a killed process says nothing of where
# it was stuck.
_STUCK_REPORT_S = 4.0


class StartupError(RuntimeError):
    """A node cannot start with its parameters; the message says which and how to fix it."""


class _ShutdownRequest(StopRequest):
    """The shutdown signals as a request the main thread waits on. Before the node exists there is no
    work to stop, so a signal then interrupts start-up at once (KeyboardInterrupt)."""

    def __init__(self) -> None:
        super().__init__()
        self.node_started = False
        self.install(SHUTDOWN_SIGNALS)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if not self.node_started:
            raise KeyboardInterrupt
        super()._on_signal(signum, frame)


class _Spinner:
    """Spins an executor on a thread of its own until ``stop()``, which returns once that thread has left
    the executor. rclpy's ``Executor.shutdown`` does neither: it destroys the executor's guard condition
    while the spinning thread may still wait on it (the process then aborts: "terminate called without
    an active exception"), and it does not wait for callbacks still running (rclpy 7.1 skips that wait).
    """

    def __init__(self, executor: MultiThreadedExecutor) -> None:
        self._executor = executor
        self._spinning = threading.Event()
        self._spinning.set()
        self.thread = threading.Thread(target=self._spin, name="executor", daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        try:
            while self._spinning.is_set():
                self._executor.spin_once(timeout_sec=_SPIN_PERIOD_S)
        except ExternalShutdownException:
            pass

    def drain(self, timeout_s: float) -> bool:
        """Wait, still spinning, until no callback the executor tracks runs; False after ``timeout_s``.
        An action goal's execute callback runs as a task the executor does not track: a node waits for
        its goals in its own close()."""
        # rclpy 7.1 (Jazzy) counts the callbacks being executed here; no public call waits on it.
        return self._executor._work_tracker.wait(timeout_s)

    def stop(self) -> None:
        self._spinning.clear()
        self.thread.join()
        self._executor.shutdown(timeout_sec=0.0)


def _check_parameter_files(node: Node, argv: list[str]) -> None:
    """ParameterFileError for a key of the node's --params-file files that it does not declare: rclpy
    would ignore it without a word (``ros2 run ... --params-file`` has no graph check before it)."""
    declared = node.list_parameters([], 0).names
    check_node_parameter_files(node.get_fully_qualified_name(), node.has_parameter, declared, argv)


def run_node(make_node: Callable[[], Node], threads: int = 4, args: list[str] | None = None) -> NoReturn:
    """Create the node, spin it until a shutdown signal or an external shutdown, clean up, and end the
    process: status 0, or 1 when the node could not start."""
    use_project_profiles()
    shutdown = _ShutdownRequest()
    argv = args if args is not None else sys.argv
    rclpy.init(args=argv, signal_handler_options=SignalHandlerOptions.NO)
    context = get_default_context()
    node: Node | None = None
    executor: MultiThreadedExecutor | None = None
    spinner: _Spinner | None = None
    status = 0
    try:
        node = make_node()
        _check_parameter_files(node, argv)
        executor = MultiThreadedExecutor(num_threads=threads)
        executor.add_node(node)
        shutdown.node_started = True
        spinner = _Spinner(executor)
        while spinner.thread.is_alive() and not shutdown.wait(_WATCH_PERIOD_S):
            pass
        # faulthandler starts its report with "Timeout (0:00:04)!".
        faulthandler.dump_traceback_later(_STUCK_REPORT_S, file=sys.stderr)
        # Nodes with running work (a goal, a skill being played out) stop it while the context still works.
        close = getattr(node, "close", None)
        if close is not None:
            close()
        if not spinner.drain(_DRAIN_TIMEOUT_S):
            node.get_logger().warning(f"callbacks still running {_DRAIN_TIMEOUT_S:g} s after the shutdown request")
        spinner.stop()
    except KeyboardInterrupt:
        pass
    except (StartupError, ParameterFileError) as error:
        get_logger(Path(sys.argv[0]).name).fatal(str(error))
        status = 1
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
        # The DDS participant leaves the graph only when the context is finalized, which os._exit below
        # would skip: peers would keep seeing this node's servers until its lease ran out (Fast DDS: 20 s).
        # Nothing may hold the context any more for it to be finalized now.
        node = executor = spinner = None
        gc.collect()
        context.destroy()
        # Nothing is left to stop: a second Ctrl-C arriving now (`ros2 launch` passes on the one the
        # terminal already sent to the whole group) must not turn the exit into a KeyboardInterrupt.
        for signum in SHUTDOWN_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
    faulthandler.cancel_dump_traceback_later()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

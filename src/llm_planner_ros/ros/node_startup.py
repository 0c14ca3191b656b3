"""What every node of this project does alike: start, spin, shut down (parameters: ros.parameters).

``run_node`` gives each entry point the same lifecycle: the project's Fast DDS profile
(``dds_profile``), rclpy init, a MultiThreadedExecutor (nodes here run long action callbacks next to
subscriptions), and on SIGINT or external shutdown a clean
exit without a traceback: the node's ``close()`` stops its work first, then it is destroyed. A node
that cannot start raises ``StartupError`` from its constructor: one fatal log line, exit status 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.logging import get_logger
from rclpy.node import Node

from llm_planner_ros.ros.dds_profile import use_project_profiles


class StartupError(RuntimeError):
    """A node cannot start with its parameters; the message says which and how to fix it."""


def run_node(make_node: Callable[[], Node], threads: int = 4, args: list[str] | None = None) -> int:
    """Create the node, spin it until shutdown, and clean up; returns the process exit status."""
    use_project_profiles()
    rclpy.init(args=args if args is not None else sys.argv)
    node: Node | None = None
    status = 0
    try:
        node = make_node()
        executor = MultiThreadedExecutor(num_threads=threads)
        executor.add_node(node)
        try:
            executor.spin()
        finally:
            # Nodes with running work (a skill being played out) stop it before the executor goes.
            close = getattr(node, "close", None)
            if close is not None:
                close()
            executor.shutdown(timeout_sec=2.0)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except StartupError as error:
        get_logger(Path(sys.argv[0]).name).fatal(str(error))
        status = 1
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return status

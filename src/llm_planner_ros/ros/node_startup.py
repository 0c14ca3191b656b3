"""What every node of this project does alike: declare parameters with descriptions, spin, shut down.

``run_node`` gives each entry point the same lifecycle: rclpy init, a MultiThreadedExecutor (nodes
here run long action callbacks next to subscriptions), and on SIGINT or external shutdown a clean
exit without a traceback: the node's ``close()`` stops its work first, then it is destroyed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from collections.abc import Callable, Mapping
from typing import Any

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.exceptions import InvalidParameterTypeException
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.logging import get_logger
from rclpy.node import Node


class StartupError(RuntimeError):
    """A node cannot start with its parameters; the message says which and how to fix it."""


def declare_parameters(node: Node, specs: Mapping[str, tuple[Any, str]]) -> dict[str, Any]:
    """Declare ``name -> (default, description)`` up front and return the values in effect.

    A value of the wrong type (``-p time_scale:=1`` for a double) raises StartupError saying so.
    """
    for name, (default, description) in specs.items():
        try:
            node.declare_parameter(name, default, ParameterDescriptor(description=description))
        except InvalidParameterTypeException as error:
            raise StartupError(f"parameter {name} must be a {type(default).__name__} like its default "
                               f"{default!r} (write 1.0, not 1, for a float): {error}") from error
    return {name: node.get_parameter(name).value for name in specs}


def run_node(make_node: Callable[[], Node], threads: int = 4, args: list[str] | None = None) -> int:
    """Create the node, spin it until shutdown, and clean up; returns the process exit status."""
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

"""``llm-planner console``: the operator console (``operator_console`` node) beside graphs already running.

Starts the node in this terminal with the options as its parameters and replaces this process with it,
so Ctrl-C stops it as it stops any node. The page's address (with its token, off loopback) is printed
when it is up. The graphs themselves start the console with ``console:=true`` (``--console true``), and
the robot graph does by default.
"""

from __future__ import annotations

import argparse
import os

from llm_planner_ros.processes import ros_argv


def console_argv(args: argparse.Namespace) -> list[str]:
    """The node's command line for the command's options."""
    params: dict[str, object] = {
        "host": args.host,
        "port": args.port,
        "approval_timeout_s": float(args.approval_timeout),
        "robot_state_topic": args.robot_state_topic,
    }
    if args.token:
        params["token"] = args.token
    robots = [name.strip() for name in args.robots.split(",") if name.strip()]
    if robots:
        params["robots"] = robots
    return ros_argv("operator_console", params=params, namespace=args.namespace)


def run(args: argparse.Namespace) -> int:
    argv = console_argv(args)
    os.execv(argv[0], argv)
    return 0  # not reached: execv replaces the process

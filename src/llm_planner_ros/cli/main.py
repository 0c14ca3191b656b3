# PYTHON_ARGCOMPLETE_OK
"""Entry point of ``llm-planner``: dispatches to sub-commands, benchmarks and tools.

A command's module is imported only when that command runs, and a benchmark's or tool's arguments only
when it is named (``cli.tools``), so that ``llm-planner --help``, ``bench --help``, ``train --help`` and a
mistyped option answer at once (rclpy, open3d, torch and transformers take seconds to import). Tab
completion (argcomplete, when installed) builds the parser for the words typed so far, so a named
command's options complete too.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
from collections.abc import Sequence

from llm_planner_ros.cli import graph_arguments
from llm_planner_ros.cli.benchmarks import BENCHMARKS
from llm_planner_ros.cli.interrupts import interrupt_on_every_stop_signal
from llm_planner_ros.cli.output_paths import check_output_paths
from llm_planner_ros.cli.tools import COLLECT, DOMAIN, SINGLE, TRAIN, add_command_group, add_commands
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.hf_loading import limit_openmp_spinning
from llm_planner_ros.ros.dds_profile import use_project_profiles

GRAPH_COMMANDS = "llm_planner_ros.cli.graph_commands"


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The whole command line; of the benchmarks and tools, only the one ``argv`` names gets its arguments."""
    parser = argparse.ArgumentParser(
        prog="llm-planner",
        description="LLM task planning grounded in robot affordances (ROS 2).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    graph_arguments.add_arguments(commands)
    add_command_group(commands, "bench", "run a benchmark and print its numbers", BENCHMARKS, argv, "BENCHMARK")
    add_command_group(
        commands, "train", "train a model, or build the examples a planner learns from", TRAIN, argv, "WHAT"
    )
    add_command_group(commands, "collect", "collect or rewrite training rollouts in simulation", COLLECT, argv, "WHAT")
    add_command_group(
        commands,
        "domain",
        "check or build a domain folder, or write its development sets (docs/domains.md)",
        DOMAIN,
        argv,
        "ACTION",
    )
    add_commands(commands, SINGLE, argv[0] if argv else None)
    return parser


def parse_command_line(argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed, with ``command_line``: the command as a shell would run it (recorded by trainers)."""
    argv = list(argv)
    args = build_parser(argv).parse_args(argv)
    args.command_line = shlex.join(["llm-planner", *argv])
    return args


def run_parsed(args: argparse.Namespace) -> int:
    """The command ``args`` names, run after its output paths are checked; its errors propagate."""
    check_output_paths(args)  # before the work: a record that cannot be written is lost after it
    if hasattr(args, "_run"):
        return int(getattr(importlib.import_module(GRAPH_COMMANDS), args._run)(args) or 0)
    return int(importlib.import_module(args._module).run(args) or 0)


def run_command(argv: Sequence[str]) -> int:
    """``llm-planner ARGV`` in this process, its errors raised instead of printed (a parse error or
    ``--help`` as SystemExit, a wrong input as InputError): how one command runs another (``domain build``
    trains with ``train saycan-adapter``) and how a test runs one."""
    return run_parsed(parse_command_line(argv))


def main(argv: Sequence[str] | None = None) -> int:
    interrupt_on_every_stop_signal()
    argv = list(sys.argv[1:] if argv is None else argv)
    complete_command_line()
    args = parse_command_line(argv)
    use_project_profiles()  # before any command creates a ROS participant
    limit_openmp_spinning()  # every command that loads torch does so later, inside its run()
    try:
        return run_parsed(args)
    except InputError as error:
        # A file, id or path the user gave: the message names it and the fix; a traceback would bury that.
        print(f"llm-planner: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # A goal in flight was canceled on the way out (InstructionClient); a traceback would only hide that.
        print("interrupted", file=sys.stderr)
        return 130


def complete_command_line() -> None:
    """When a shell asks for completions (argcomplete's ``_ARGCOMPLETE``): print them and exit. The parser is
    built for the words before the cursor, so a named benchmark's or tool's options are offered. Without
    argcomplete installed, or outside completion, nothing happens."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    try:
        import argcomplete
    except ImportError:
        return
    line = os.environ.get("COMP_LINE", "")
    line = line[: int(os.environ.get("COMP_POINT") or len(line))]
    try:
        words = shlex.split(line)
    except ValueError:  # an open quote
        words = line.split()
    argcomplete.autocomplete(build_parser(words[1:]))


if __name__ == "__main__":
    sys.exit(main())

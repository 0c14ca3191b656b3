"""Entry point of ``llm-planner``: dispatches to sub-commands and benchmarks.

A command's module is imported only when that command runs, and a benchmark's arguments only when that
benchmark is named, so that ``llm-planner --help``, ``bench --help`` and a mistyped option answer at
once (rclpy, open3d, torch and transformers take seconds to import).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from llm_planner_ros.cli import graph_arguments
from llm_planner_ros.cli.benchmarks import BENCHMARKS
from llm_planner_ros.cli.interrupts import interrupt_on_every_stop_signal
from llm_planner_ros.cli.output_paths import check_output_paths
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.hf_loading import limit_openmp_spinning
from llm_planner_ros.ros.dds_profile import use_project_profiles

GRAPH_COMMANDS = "llm_planner_ros.cli.graph_commands"
DOMAIN_BUILD = "llm_planner_ros.cli.domain_command"
DOMAIN_CHECK = "llm_planner_ros.cli.domain_check"
MCP_COMMAND = "llm_planner_ros.cli.mcp_command"


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The whole command line; of the benchmarks, only the one ``argv`` names gets its arguments."""
    parser = argparse.ArgumentParser(
        prog="llm-planner",
        description="LLM task planning grounded in robot affordances (ROS 2).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    graph_arguments.add_arguments(commands)
    bench = commands.add_parser("bench", help="run a benchmark and print its numbers")
    benchmarks = bench.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    chosen = argv[1] if len(argv) > 1 and argv[0] == "bench" else None
    for name, benchmark in BENCHMARKS.items():
        sub = benchmarks.add_parser(name, help=benchmark.help, description=benchmark.help)
        sub.set_defaults(_module=benchmark.module)
        if name == chosen:
            importlib.import_module(benchmark.module).add_arguments(sub)
    domain = commands.add_parser("domain", help="check or build a domain folder (docs/domains.md)")
    actions = domain.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = actions.add_parser("build", help="the example bank of a domain folder, from its train.yaml")
    build.set_defaults(_module=DOMAIN_BUILD)
    if list(argv[:2]) == ["domain", "build"]:
        importlib.import_module(DOMAIN_BUILD).add_arguments(build)
    check = actions.add_parser("check", help="check a domain folder's files: every problem with its line")
    check.set_defaults(_module=DOMAIN_CHECK)
    if list(argv[:2]) == ["domain", "check"]:
        importlib.import_module(DOMAIN_CHECK).add_arguments(check)
    mcp = commands.add_parser(
        "mcp", help="serve running robots to agents over MCP (stdio or HTTP), behind the planner's gates"
    )
    mcp.set_defaults(_module=MCP_COMMAND)
    if argv[:1] == ["mcp"]:
        importlib.import_module(MCP_COMMAND).add_arguments(mcp)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    interrupt_on_every_stop_signal()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(argv).parse_args(argv)
    use_project_profiles()  # before any command creates a ROS participant
    limit_openmp_spinning()  # every command that loads torch does so later, inside its run()
    try:
        check_output_paths(args)  # before the work: a record that cannot be written is lost after it
        if hasattr(args, "_run"):
            return int(getattr(importlib.import_module(GRAPH_COMMANDS), args._run)(args) or 0)
        return int(importlib.import_module(args._module).run(args) or 0)
    except InputError as error:
        # A file, id or path the user gave: the message names it and the fix; a traceback would bury that.
        print(f"llm-planner: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # A goal in flight was canceled on the way out (InstructionClient); a traceback would only hide that.
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

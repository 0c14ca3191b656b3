"""Entry point of ``llm-planner``: dispatches to sub-commands and benchmarks.

Sub-command modules are imported lazily so that ``llm-planner --help`` and light commands stay fast
(torch and transformers take seconds to import).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from kitchen_domain.validation import InputError
from llm_planner_ros.cli import graph_commands
from llm_planner_ros.cli.benchmarks import BENCHMARKS
from llm_planner_ros.cli.interrupts import interrupt_on_every_stop_signal
from llm_planner_ros.cli.output_paths import check_output_paths
from llm_planner_ros.llm.hf_loading import limit_openmp_spinning
from llm_planner_ros.ros.dds_profile import use_project_profiles


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="llm-planner",
        description="LLM task planning grounded in robot affordances (ROS 2).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    graph_commands.add_arguments(commands)
    bench = commands.add_parser("bench", help="run a benchmark and print its numbers")
    benchmarks = bench.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    for name, module_path in BENCHMARKS.items():
        sub = benchmarks.add_parser(name, help=f"benchmark: {name}")
        sub.set_defaults(_module=module_path)
        _add_module_arguments(module_path, sub)
    return parser


def _add_module_arguments(module_path: str, parser: argparse.ArgumentParser) -> None:
    module = importlib.import_module(module_path)
    module.add_arguments(parser)


def main(argv: Sequence[str] | None = None) -> int:
    interrupt_on_every_stop_signal()
    args = build_parser().parse_args(argv)
    use_project_profiles()  # before any command creates a ROS participant
    limit_openmp_spinning()  # every command that loads torch does so later, inside its run()
    try:
        check_output_paths(args)  # before the work: a record that cannot be written is lost after it
        if hasattr(args, "_run"):
            return int(args._run(args) or 0)
        module = importlib.import_module(args._module)
        return int(module.run(args) or 0)
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

"""``llm-planner parameters [NODE ...]``: every node's parameters (default, what it accepts, meaning) as
Markdown, from what the nodes declare; ``llm-planner parameters > docs/parameters.md`` writes that page."""

from __future__ import annotations

import argparse
import sys

from llm_planner_ros.ros.parameter_files import DECLARED_BY
from llm_planner_ros.ros.parameter_reference import parameter_reference


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "nodes",
        nargs="*",
        metavar="NODE",
        help=f"node executables to describe (default: all): {', '.join(sorted(DECLARED_BY))}",
    )


def run(args: argparse.Namespace) -> int:
    try:
        reference = parameter_reference(args.nodes)
    except KeyError as unknown:
        print(f"llm-planner parameters: error: {unknown.args[0]}", file=sys.stderr)
        return 2
    print(reference, end="")
    return 0

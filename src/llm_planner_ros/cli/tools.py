"""The commands behind ``llm-planner train``, ``collect``, ``domain`` and ``oracle``, by name, and the one way
every command whose module is imported only when it runs (these and the benchmarks) joins the parser.

Each such module exposes ``add_arguments(parser)`` and ``run(args) -> int``; a registry maps a command's
name to its module path and the one line of help ``--help`` shows, so ``llm-planner --help``,
``train --help`` and a mistyped option import none of them (torch, open3d and PyBullet take seconds).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Mapping, Sequence
from typing import NamedTuple


class Command(NamedTuple):
    """A command's module (imported only when it runs) and its one line of help."""

    module: str
    help: str


TRAIN: dict[str, Command] = {
    "saycan-adapter": Command(
        "llm_planner_ros.training.saycan_adapter",
        "train the LoRA adapter of SayCan (or ProgPrompt, LLM-Planner, zero-shot) on a domain's example bank",
    ),
    "saycan-bank": Command(
        "llm_planner_ros.training.saycan_bank",
        "generate the SayCan kitchen's example bank: synthetic requests with their oracle plans",
    ),
    "saycan-overlap": Command(
        "llm_planner_ros.training.saycan_overlap",
        "measure how close a bank's requests come to an episode suite's (the adapter's fairness check)",
    ),
    "saycan-temperature": Command(
        "llm_planner_ros.training.saycan_temperature",
        "fit SayCan's llm_temperature on generated tasks (never the dev or evaluation episodes)",
    ),
    "saycanpay": Command(
        "llm_planner_ros.training.saycanpay_models",
        "train SayCanPay's Can or Pay model on expert plans (BabyAI, the kitchen or a domain folder)",
    ),
    "virtualhome-examples": Command(
        "llm_planner_ros.training.virtualhome_examples",
        "build the VirtualHome prompt examples from eai-eval's programs that are not evaluated tasks",
    ),
    "hold-back": Command(
        "llm_planner_ros.training.hold_back_training",
        "train the hold-back model (stop, out of scope, unsafe, missing) on requests of many domains",
    ),
    "value-functions": Command(
        "llm_planner_ros.value_functions.training",
        "fit the learned value functions (boosted trees per skill family) on collected rollouts",
    ),
    "region-encoder": Command(
        "llm_planner_ros.perception.training",
        "train the embedded detector's region encoder on rendered scenes of a domain",
    ),
}

COLLECT: dict[str, Command] = {
    "value-functions": Command(
        "llm_planner_ros.value_functions.collector",
        "run skills in the physics kitchen from random scenes and record the value functions' rollouts",
    ),
    "relocalize": Command(
        "llm_planner_ros.value_functions.relocalize",
        "rewrite perceived pick rollouts collected with the localization error on the robot alone",
    ),
}

DOMAIN: dict[str, Command] = {
    "build": Command("llm_planner_ros.cli.domain_command", "the example bank of a domain folder, from its train.yaml"),
    "check": Command("llm_planner_ros.cli.domain_check", "check a domain folder's files: every problem with its line"),
    "generate": Command(
        "llm_planner_ros.cli.domain_generate", "draw whole domains at random, one folder each, with solved tasks"
    ),
    "hold-back-set": Command(
        "llm_planner_ros.evaluation.hold_back_set",
        "write a domain's development requests to hold back (and ordinary ones) as episode files",
    ),
}

# Commands of their own, straight under ``llm-planner``.
SINGLE: dict[str, Command] = {
    "mcp": Command(
        "llm_planner_ros.cli.mcp_command",
        "serve running robots to agents over MCP (stdio or HTTP), behind the planner's gates",
    ),
    "parameters": Command(
        "llm_planner_ros.cli.parameters_command",
        "print each node's parameters (default, what it accepts, meaning) as Markdown: docs/parameters.md",
    ),
    "oracle": Command(
        "llm_planner_ros.domain.oracle",
        "check an episode file with the oracle: every goal reachable in time, plan lengths per family",
    ),
}


def add_commands(subparsers: argparse._SubParsersAction, commands: Mapping[str, Command], chosen: str | None) -> None:
    """One sub-command of ``subparsers`` per entry of ``commands``, with its line of help; only ``chosen``
    (the name the command line gives) gets its module imported and its arguments added."""
    for name, command in commands.items():
        parser = subparsers.add_parser(name, help=command.help, description=command.help)
        parser.set_defaults(_module=command.module)
        if name == chosen:
            importlib.import_module(command.module).add_arguments(parser)


def add_command_group(
    subparsers: argparse._SubParsersAction,
    name: str,
    help: str,
    commands: Mapping[str, Command],
    argv: Sequence[str],
    metavar: str,
) -> None:
    """``llm-planner NAME METAVAR ...``: a command of ``subparsers`` whose sub-commands are ``commands``,
    the one ``argv`` (the whole command line) names with its arguments, the others by name and help only."""
    group = subparsers.add_parser(name, help=help, description=help)
    members = group.add_subparsers(dest=f"{name}_command", required=True, metavar=metavar)
    add_commands(members, commands, argv[1] if len(argv) > 1 and argv[0] == name else None)

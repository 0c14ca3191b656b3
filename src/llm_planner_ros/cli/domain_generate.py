"""``llm-planner domain generate OUT --seeds A:B``: whole domains drawn at random, one folder each
(``training.domain_generator``): to train models across domains, and to measure planning in domains no
model was trained on.

    llm-planner domain generate out/generated/train --seeds 0:60 --episodes 40
    llm-planner domain generate out/generated/held_out --seeds 1000:1005 --episodes 20

Each folder ``OUT/gen_SEED`` holds world.yaml, skills.yaml, params.yaml and an episodes.yaml of tasks the
oracle solves. Domains for training and for evaluation differ by seed only: keep their ranges apart.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.progress import track

from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.training.domain_generator import generate_domain, write_domain


def _seeds(text: str) -> range:
    start, _, stop = text.partition(":")
    try:
        seeds = range(int(start), int(stop)) if stop else range(int(start), int(start) + 1)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"--seeds {text!r}: write A:B (seeds A to B-1) or one seed") from error
    if not seeds:
        raise argparse.ArgumentTypeError(f"--seeds {text!r} names no seed: write A:B with A < B")
    return seeds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, help="the folder the domain folders are written into")
    parser.add_argument("--seeds", type=_seeds, default=range(1), help="A:B, the seeds A to B-1 (default 0:1)")
    parser.add_argument("--episodes", type=int, default=20, help="tasks in each domain's episodes.yaml (default 20)")


def run(args: argparse.Namespace) -> int:
    if args.episodes < 1:
        raise InputError(f"--episodes {args.episodes}: give at least 1")
    for seed in track(args.seeds, description="domains"):
        domain = generate_domain(seed)
        folder = args.out / domain.name
        loaded = write_domain(domain, folder, args.episodes, seed)
        print(
            f"{folder}: {len(loaded.config.places(with_drawer=False))} places, {len(loaded.config.labels)} labels, "
            f"{len(loaded.library.rules)} skills ({', '.join(domain.skills['families'])})"
        )
    return 0

"""``llm-planner domain check DIR``: every file of a domain folder read and checked as the graph and the
benchmarks read it, without starting anything (docs/domains.md).

    llm-planner domain check domains/office

Prints what the folder declares (places, object labels, skills; the episodes of each episode file) and
exits 0; a file that cannot be used ends in one message with its file, line and fix, and exit status 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import TRAIN_FILE, domain_folder
from llm_planner_ros.domain.episodes import load_episodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("domain", type=Path, help="the domain folder (world.yaml, skills.yaml, ...)")


def run(args: argparse.Namespace) -> int:
    folder = domain_folder(args.domain)
    kitchen = load_domain_files(folder.world, folder.skills)
    config = kitchen.config
    print(
        f"{folder.path}: world {config.world}, {len(config.places(with_drawer=True))} places, "
        f"{len(config.labels)} object labels, {len(kitchen.library.rules)} skills"
    )
    train = folder.path / TRAIN_FILE
    for path in (folder.episodes, folder.development, train if train.is_file() else None):
        if path is not None:
            print(f"{path.name}: {len(load_episodes(path, kitchen))} episodes")
    return 0

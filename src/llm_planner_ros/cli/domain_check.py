"""``llm-planner domain check DIR``: every file of a domain folder read and checked as the graph and the
benchmarks read it, without starting anything (docs/domains.md).

    llm-planner domain check domains/office

Prints what the folder declares (places, object labels, skills; the episodes of each episode file) and
exits 0. Otherwise it reports the problems of every file at once, each with its line and fix, and exits 2
(``domain.domain_check``: a file is checked as far as the files it depends on read).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from llm_planner_ros.domain.domain_check import check_domain
from llm_planner_ros.domain.domain_folder import TRAIN_FILE, domain_folder
from llm_planner_ros.domain.validation import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("domain", type=Path, help="the domain folder (world.yaml, skills.yaml, ...)")


def run(args: argparse.Namespace) -> int:
    folder = domain_folder(args.domain)
    train = folder.path / TRAIN_FILE
    episode_files = [path for path in (folder.episodes, folder.development, train if train.is_file() else None) if path]
    found = check_domain(folder.world, folder.skills, episode_files)
    if found.reports:
        raise InputError("\n".join(found.reports))
    assert found.kitchen is not None
    config = found.kitchen.config
    print(
        f"{folder.path}: world {config.world}, {len(config.places(with_drawer=True))} places, "
        f"{len(config.labels)} object labels, {len(found.kitchen.library.rules)} skills"
    )
    for path, count in found.episode_counts.items():
        print(f"{path.name}: {count} episodes")
    return 0

r"""``llm-planner domain build DIR``: the example bank of a domain folder (``training.domain_bank``).

    llm-planner domain build domains/office [--train FILE] [--exclude FILE ...] [--out FILE]

Writes ``DIR/bank.jsonl`` from ``DIR/train.yaml``, leaving out any training request that an evaluation file
(``DIR/episodes.yaml``, each ``--exclude``) holds; exit status 1 when an episode has no plan or nothing
was written.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

from llm_planner_ros.kitchen_domain.domain_folder import (
    BANK_FILE,
    EPISODES_FILE,
    TRAIN_FILE,
    DomainFolderError,
    domain_folder,
)
from llm_planner_ros.kitchen_domain.episodes import load_episodes
from llm_planner_ros.kitchen_domain.kitchen import load_kitchen
from llm_planner_ros.planning.saycan.bank import PlanExample, save_bank
from llm_planner_ros.training.domain_bank import bank_example, held_out_requests
from llm_planner_ros.training.saycan_bank import normalized


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("domain", type=Path, help="the domain folder (world.yaml, skills.yaml, train.yaml)")
    parser.add_argument("--train", type=Path, help=f"training episodes (default: DIR/{TRAIN_FILE})")
    parser.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help=f"an evaluation episode file whose requests the bank must not hold (DIR/{EPISODES_FILE} always is)",
    )
    parser.add_argument("--out", type=Path, help=f"the bank to write (default: DIR/{BANK_FILE})")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from llm_planner_ros.evaluation.bench_report import progress_bar

    console = Console()
    folder = domain_folder(args.domain)
    kitchen = load_kitchen(folder.world, folder.skills)
    train = args.train or folder.path / TRAIN_FILE
    if not train.is_file():
        raise DomainFolderError(
            f"no training episodes at {train}: write the episodes the bank is built from there "
            f"(docs/domains.md, 'Examples for every method'), or give --train FILE"
        )
    held_out = [folder.episodes] if folder.episodes else []
    excluded = held_out_requests([*held_out, *args.exclude], kitchen)
    episodes = load_episodes(train, kitchen)
    raw = {str(item["id"]): item for item in yaml.safe_load(train.read_text(encoding="utf-8"))["episodes"]}
    out = args.out or folder.path / BANK_FILE
    started = time.perf_counter()
    examples: list[PlanExample] = []
    overlap: list[str] = []
    unsolved: list[str] = []
    with progress_bar(console, "training episodes", len(episodes)) as progress:
        for episode in episodes:
            progress.show(f"{episode.id:<24}")
            clash = excluded.get(normalized(episode.instruction))
            example = None if clash else bank_example(episode, raw[episode.id], kitchen)
            if clash:
                overlap.append(episode.id)
                progress.say(f"{episode.id:<24} [yellow]left out[/yellow]  its request is evaluated ({clash})")
            elif example is None:
                unsolved.append(episode.id)
                progress.say(f"{episode.id:<24} [red]no plan[/red] within max_steps {episode.max_steps}")
            else:
                examples.append(example)
                progress.say(f"{episode.id:<24} {', '.join(example.steps)}")
            progress.advance()
    written = save_bank(examples, out)
    console.print(
        f"wrote {written} examples to {out} in {time.perf_counter() - started:.1f} s; "
        f"{len(overlap)} training request(s) equal an evaluated one (checked against "
        f"{len(excluded)} held-out request(s)), {len(unsolved)} without a plan"
    )
    return 1 if unsolved or not written else 0

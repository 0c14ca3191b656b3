"""How close generated training requests come to an evaluation suite's: the fairness check of the adapter.

The bank generator drops requests equal to an evaluation instruction, but a template can still write a
near copy ("Pick up the cleaning sponge and put it in the trash can." beside the suite's "Pick up the
sponge and put it in the trash can."). This measures that: for each episode, the training request with
the largest word-set Jaccard similarity, and how many episodes per family have one at or above a
threshold.

    llm-planner train saycan-overlap --bank /tmp/bank5.jsonl --episodes domains/saycan_kitchen/dev.yaml
    llm-planner train saycan-overlap --domain domains/office --bank domains/office/bank.jsonl \
        --episodes domains/office/episodes.yaml
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.options import finite_float
from llm_planner_ros.paths import default_domain
from llm_planner_ros.planning.saycan.bank import load_bank

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def words(text: str) -> frozenset[str]:
    """The lower-case words of ``text`` (punctuation dropped, apostrophes kept inside words)."""
    return frozenset(_WORD.findall(text.lower()))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


@dataclass(frozen=True)
class Nearest:
    """An evaluation request, its family, and the most similar training request with its similarity."""

    episode: str
    family: str
    request: str
    nearest: str
    similarity: float


def nearest_requests(episodes: Iterable[tuple[str, str, str]], training: Iterable[str]) -> list[Nearest]:
    """For each (id, family, request) of ``episodes``, the nearest of the ``training`` requests."""
    pool = [(words(text), text) for text in dict.fromkeys(training)]
    if not pool:
        raise ValueError("no training requests to compare with: the bank is empty")
    found = []
    for episode, family, request in episodes:
        mine = words(request)
        score, text = max(((jaccard(mine, theirs), text) for theirs, text in pool), key=lambda pair: pair[0])
        found.append(Nearest(episode, family, request, text, score))
    return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train saycan-overlap``."""
    parser.add_argument("--bank", type=Path, action="append", required=True, help="training bank JSONL (repeatable)")
    parser.add_argument("--episodes", type=Path, default=default_domain() / "dev.yaml")
    parser.add_argument("--threshold", type=finite_float, default=0.8, help="word-set Jaccard similarity (default 0.8)")
    parser.add_argument("--domain", type=Path, help="the domain folder of the episodes (default: the SayCan kitchen)")


def run(args: argparse.Namespace) -> int:
    """Print, per family, how many episodes have a training request at or above --threshold."""
    suite = load_episodes(args.episodes, load_domain(args.domain) if args.domain else load_domain_files())
    training = [example.instruction for path in args.bank for example in load_bank(path)]
    found = nearest_requests(((e.id, e.family, e.instruction) for e in suite.episodes), training)
    close: dict[str, list[Nearest]] = defaultdict(list)
    totals: dict[str, int] = defaultdict(int)
    for item in found:
        totals[item.family] += 1
        if item.similarity >= args.threshold:
            close[item.family].append(item)
    print(
        f"{len(found)} episodes against {len(set(training))} training requests; "
        f"similarity >= {args.threshold}: {sum(map(len, close.values()))}"
    )
    for family in sorted(totals):
        print(f"  {family:<22} {len(close[family])}/{totals[family]}")
    for item in sorted((i for items in close.values() for i in items), key=lambda i: -i.similarity):
        print(f"  {item.similarity:.2f} {item.episode}: {item.request!r} ~ {item.nearest!r}")
    return 0

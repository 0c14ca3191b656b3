"""A domain's example bank, from its training episodes and the oracle (``llm-planner domain build DIR``,
``cli.domain_command``).

Each episode of the folder's ``train.yaml`` (or ``--train``) is solved by the A* oracle in the domain's
own rules (``kitchen_domain.oracle.shortest_plan``), and the request, its scene line and the plan become
one example of ``DIR/bank.jsonl``, the file every method takes its prompt examples from in that domain
(``planning.domain_examples``) and the adapter trainer reads (``training.saycan_adapter --domain DIR``).

Held out: the folder's ``episodes.yaml`` (and each ``--exclude`` file) is evaluation data. A training
episode whose instruction equals one of them (case and punctuation aside) is left out of the bank and
named in the output, so a bank never holds an evaluated request; the summary gives the overlap found.
An episode the oracle cannot solve within its ``max_steps`` is reported and left out too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from llm_planner_ros.kitchen_domain.episodes import Episode, load_episodes
from llm_planner_ros.kitchen_domain.kitchen import Kitchen
from llm_planner_ros.kitchen_domain.oracle import shortest_plan
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.training.saycan_bank import normalized


def bank_example(episode: Episode, raw: dict[str, Any], kitchen: Kitchen) -> PlanExample | None:
    """The bank example of one training episode (``raw``: its mapping in the file), None when the oracle
    finds no plan within its ``max_steps``."""
    world = episode.world(kitchen)
    plan = shortest_plan(episode, kitchen=kitchen)
    if plan is None:
        return None
    return PlanExample(
        episode.id,
        "episode",
        episode.family,
        episode.instruction,
        describe_scene(world),
        tuple(skill.text for skill in plan),
        episode.initial.to_initial(),
        raw["goal"],
    )


def held_out_requests(files: Iterable[Path], kitchen: Kitchen) -> dict[str, str]:
    """Every request of the evaluation episode ``files``, compared ``normalized``, to "<file>: <episode id>"."""
    requests: dict[str, str] = {}
    for path in files:
        for episode in load_episodes(path, kitchen):
            requests.setdefault(normalized(episode.instruction), f"{path}: {episode.id}")
    return requests

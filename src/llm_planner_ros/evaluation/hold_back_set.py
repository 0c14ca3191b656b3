"""Write a domain's hold-back development set: requests that need nothing done, as an episode file.

    llm-planner domain hold-back-set [--domain DIR] --out FILE [--per-kind 25] [--seed 7] \
        [--tasks-out FILE --tasks 100]

``--per-kind`` requests of each of the four kinds (stop, out of scope, unsafe, missing), worded by the
generator's development patterns (planning.hold_back.requests, never trained on), each an episode in the
domain's default scene that expects ``nothing_to_do``, ``refused`` or ``missing``. ``bench kitchen
--episodes FILE`` then reports ``held_back``. ``--tasks-out`` also writes ``--tasks`` ordinary requests
(the domain's task generator, training.domain_tasks, with goals; none of the domain's bank, dev or
evaluation requests), so false refusals are measured on more than a hand-written dev.yaml.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import yaml

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.domain_folder import BANK_FILE, DEV_FILE, EPISODES_FILE, load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.paths import default_domain_file, repo_path
from llm_planner_ros.planning.domain_tasks import generate_examples
from llm_planner_ros.planning.hold_back.requests import RequestKind, generate
from llm_planner_ros.planning.hold_back.screen import domain_vocabulary
from llm_planner_ros.planning.instruction_check import load_other_objects
from llm_planner_ros.planning.saycan.bank import BANK_FILE as KITCHEN_BANK
from llm_planner_ros.planning.saycan.bank import load_bank

# The SayCan paper's evaluation instructions, never to be generated as development requests.
KITCHEN_HELD_OUT = "data/saycan/held_out_instructions.txt"
EXPECTED = {
    RequestKind.STOP: "nothing_to_do",
    RequestKind.OUT_OF_SCOPE: "refused",
    RequestKind.UNSAFE: "refused",
    RequestKind.MISSING: "missing",
}


def hold_back_episodes(kitchen: Domain, per_kind: int, seed: int) -> dict[str, object]:
    """The episode document: ``per_kind`` development requests of each held-back kind, in the default scene."""
    requests = [
        request
        for request in generate(domain_vocabulary(kitchen, ()), load_other_objects(), per_kind, "dev", seed)
        if request.kind in EXPECTED
    ]
    scene = dict(kitchen.config.default_scene)
    episodes = [
        {
            "id": f"hold-{request.kind.value.replace('_', '-')}-{index:02d}",
            "family": f"hold_back_{request.kind.value}",
            "instruction": request.text,
            "expect": EXPECTED[request.kind],
            "max_steps": 10,
            "initial": scene,
        }
        for index, request in enumerate(requests, start=1)
    ]
    return {"world": kitchen.config.world, "episodes": episodes}


def task_episodes(kitchen: Domain, count: int, seed: int, exclude: Sequence[str]) -> dict[str, object]:
    """The episode document of ``count`` generated ordinary requests, none of ``exclude``."""
    episodes = [
        {
            "id": f"task-{example.kind}-{index:03d}",
            "family": f"task_{example.kind}",
            "instruction": example.instruction,
            "max_steps": min(30, 2 * len(example.steps) + 4),
            "initial": example.initial,
            "goal": example.goal,
        }
        for index, example in enumerate(generate_examples(kitchen, count, seed, exclude), start=1)
    ]
    return {"world": kitchen.config.world, "episodes": episodes}


def known_requests(kitchen: Domain, folder: Path | None) -> list[str]:
    """The requests the domain already has: its bank's, and those of its dev and evaluation files."""
    if folder is None:
        bank = load_bank(repo_path(KITCHEN_BANK))
        files = [default_domain_file("dev.yaml")]
    else:
        bank = load_bank(folder / BANK_FILE) if (folder / BANK_FILE).is_file() else []
        files = [path for path in (folder / DEV_FILE, folder / EPISODES_FILE) if path.is_file()]
    return [
        *(example.instruction for example in bank),
        *(e.instruction for f in files for e in load_episodes(f, kitchen)),
    ]


def write_episodes(path: Path, document: dict[str, object], what: str, command: str) -> None:
    header = f"# {what}: generated, do not edit. Remake with\n# {command}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120))
    print(f"wrote {len(document['episodes'])} episodes to {path}")  # type: ignore[arg-type]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner domain hold-back-set``."""
    parser.add_argument("--domain", default="", help="a domain folder (default: the packaged kitchen)")
    parser.add_argument("--out", type=Path, required=True, help="the episode file to write")
    parser.add_argument("--per-kind", type=int, default=25, help="requests of each kind (>= 1)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tasks-out", type=Path, help="also write generated ordinary requests to this file")
    parser.add_argument("--tasks", type=int, default=100, help="ordinary requests of --tasks-out (>= 1)")


def run(args: argparse.Namespace) -> int:
    """Write the hold-back episodes, and with ``--tasks-out`` the ordinary ones (see the module docstring)."""
    if args.per_kind < 1 or args.tasks < 1:
        raise InputError("--per-kind and --tasks must be at least 1")
    kitchen = load_domain(args.domain) if args.domain else load_domain_files()
    domain = f"--domain {args.domain} " if args.domain else ""
    command = f"llm-planner domain hold-back-set {domain}--out {args.out} --per-kind {args.per_kind}"
    command += f" --seed {args.seed}"
    if args.tasks_out:
        command += f" --tasks-out {args.tasks_out} --tasks {args.tasks}"
    world = kitchen.config.world
    document = hold_back_episodes(kitchen, args.per_kind, args.seed)
    write_episodes(args.out, document, f"Hold-back development requests of {world}", command)
    if args.tasks_out:
        exclude = known_requests(kitchen, Path(args.domain) if args.domain else None)
        tasks = task_episodes(kitchen, args.tasks, args.seed, exclude)
        write_episodes(args.tasks_out, tasks, f"Ordinary development requests of {world}", command)
    return 0

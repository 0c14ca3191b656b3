"""Write a domain's hold-back development set: requests that need nothing done, as an episode file.

    python -m llm_planner_ros.evaluation.hold_back_set [--domain DIR] --out FILE [--per-kind 25] [--seed 7]

``--per-kind`` requests of each of the four kinds (stop, out of scope, unsafe, missing), worded by the
generator's development patterns (planning.hold_back.requests, never trained on), each an episode in the
domain's default scene that expects ``nothing_to_do``, ``refused`` or ``missing``. ``bench kitchen
--episodes FILE`` then reports ``held_back``; the domain's dev.yaml beside it measures false refusals.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from llm_planner_ros.kitchen_domain.domain_folder import load_domain
from llm_planner_ros.kitchen_domain.kitchen import Kitchen, load_kitchen
from llm_planner_ros.planning.hold_back.requests import RequestKind, generate
from llm_planner_ros.planning.hold_back.screen import domain_vocabulary
from llm_planner_ros.planning.instruction_check import load_other_objects

EXPECTED = {
    RequestKind.STOP: "nothing_to_do",
    RequestKind.OUT_OF_SCOPE: "refused",
    RequestKind.UNSAFE: "refused",
    RequestKind.MISSING: "missing",
}


def hold_back_episodes(kitchen: Kitchen, per_kind: int, seed: int) -> dict[str, object]:
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--domain", default="", help="a domain folder (default: the packaged kitchen)")
    parser.add_argument("--out", type=Path, required=True, help="the episode file to write")
    parser.add_argument("--per-kind", type=int, default=25, help="requests of each kind (>= 1)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.per_kind < 1:
        parser.error("--per-kind must be at least 1")
    kitchen = load_domain(args.domain) if args.domain else load_kitchen()
    document = hold_back_episodes(kitchen, args.per_kind, args.seed)
    header = (
        f"# Hold-back development requests of {kitchen.config.world}: generated, do not edit. Remake with\n"
        f"# python -m llm_planner_ros.evaluation.hold_back_set {'--domain ' + args.domain + ' ' if args.domain else ''}"
        f"--out {args.out} --per-kind {args.per_kind} --seed {args.seed}\n"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120))
    print(f"wrote {len(document['episodes'])} episodes to {args.out}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())

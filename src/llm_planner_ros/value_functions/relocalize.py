r"""Rewrites perceived pick rollouts collected before the camera's objects were placed through the
robot's localization (``RolloutCollector.seen_through_localization``): until then the collector drew
the localization error for the robot's position alone, so 3 cm of noise stood between the robot and
every object it saw, which neither the physics graph (exact) nor a robot (whose camera is placed by the
same localization) has.

Each such rollout (``localization`` "") is replayed up to its localization draw with the collector's
own code: the scene set up from its (seed, index) generator, the label to pick, the draw. The robot's
pose and the label must come out as the file has them (to its 0.1 mm), which vouches for the seed and
the kitchen; the file's own objects are then moved by that error and the rollout marked
``localization: shared``. Rollouts marked already are kept. A replay that puts the robot elsewhere is
tried once more in a new simulator (see ``relocalize``); a rollout that still does not replay is
refused, every such rollout named and nothing written. Outcomes, messages and crops stay: the pick ran
from the same look either way.

    nice -n 5 llm-planner collect relocalize \
        data/value_functions/rollouts_pick_perceived_seed3.jsonl.gz \
        --out relocalized.jsonl.gz
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

from llm_planner_ros.domain.skill import PICK
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.physics_sim import PhysicsKitchen
from llm_planner_ros.value_functions.collector import (
    PERCEPTION,
    SHARED_LOCALIZATION,
    Rollout,
    RolloutCollector,
    load_rollouts,
    open_rollouts,
    shifted,
)
from llm_planner_ros.value_functions.perceived import HeadCameraPerception

# The file keeps the robot's position to 0.1 mm; its replay is exact.
TOLERANCE_M = 1e-3


class RelocalizeError(ValueError):
    """Rollouts the replay could not reproduce; the message names each of them."""


def relocalize(
    rollouts: Sequence[Rollout],
    collector: RolloutCollector,
    fresh: Callable[[], AbstractContextManager[RolloutCollector]] | None = None,
    progress_every: int = 250,
) -> list[Rollout]:
    """The rollouts with their observations through the localization (see the module docstring).

    A rollout whose replay puts the robot elsewhere is replayed once more on ``fresh()``'s collector, a
    new simulator: on one reused for many replays the objects settle a little differently, and once in
    6,000 picks that decided whether the parked base touched one (then it stands on its standing pose)."""
    if collector.observed_by != PERCEPTION:
        raise ValueError("relocalize replays perceived picks: build the collector with a HeadCameraPerception")
    out: list[Rollout] = []
    problems: list[str] = []
    moved = 0
    started = time.perf_counter()
    for number, rollout in enumerate(rollouts, 1):
        if rollout.localization == SHARED_LOCALIZATION:
            out.append(rollout)
        else:
            result = _moved(rollout, collector)
            if isinstance(result, str) and fresh is not None:
                with fresh() as retry:
                    result = _moved(rollout, retry)
            if isinstance(result, str):
                problems.append(f"rollout {rollout.index} (seed {rollout.seed}): {result}")
                print(f"relocalize: refused {problems[-1]}", file=sys.stderr, flush=True)
            else:
                out.append(result)
                moved += 1
        if number % progress_every == 0 or number == len(rollouts):
            elapsed = time.perf_counter() - started
            print(
                f"relocalize: {number}/{len(rollouts)} ({moved} moved, {len(problems)} refused), {elapsed:.0f} s",
                flush=True,
            )
    if problems:
        raise RelocalizeError(f"{len(problems)} rollouts do not replay; nothing written:\n" + "\n".join(problems))
    return out


def _moved(rollout: Rollout, collector: RolloutCollector) -> Rollout | str:
    """The rollout with its objects moved by its replayed localization error, or why it cannot be."""
    if rollout.observed_by != PERCEPTION or rollout.family != PICK:
        return f"a {rollout.family} rollout observed by {rollout.observed_by}: only perceived picks are replayed"
    if rollout.seed != collector.seed:
        return f"collected with seed {rollout.seed}, replayed with {collector.seed}"
    rng = collector.generator(rollout.index)
    truth, label = collector.pick_setting(rng)
    x, y = collector.localized(rng, truth)
    stored = rollout.observation
    if label != rollout.argument or max(abs(x - stored.robot_xy[0]), abs(y - stored.robot_xy[1])) > TOLERANCE_M:
        return (
            f"the replay picks {label!r} from ({x:.4f}, {y:.4f}), the file {rollout.argument!r} from {stored.robot_xy}"
        )
    objects = shifted(stored.objects, x - truth.robot.x, y - truth.robot.y)
    return replace(rollout, observation=replace(stored, objects=objects), localization=SHARED_LOCALIZATION)


@contextmanager
def perceiving_collector(seed: int) -> Iterator[RolloutCollector]:
    """A perceived-pick collector of ``seed`` on a new physics kitchen, closed afterwards."""
    sim = PhysicsKitchen.from_files()
    try:
        yield RolloutCollector(sim, seed, cycle=(PICK,), camera=HeadCameraPerception(sim))
    finally:
        sim.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner collect relocalize``."""
    parser.add_argument("rollouts", type=Path, help="collector file of perceived picks (.jsonl or .jsonl.gz)")
    parser.add_argument("--out", type=Path, required=True, help="file to write (refused when it exists)")


def run(args: argparse.Namespace) -> int:
    """Rewrite the file's rollouts to ``--out``; 1 when one does not replay (nothing written)."""
    if args.out.exists():
        raise InputError(f"{args.out} exists: name a new file (the input is never overwritten)")
    rollouts = load_rollouts(args.rollouts)
    seeds = sorted({r.seed for r in rollouts})
    if len(seeds) != 1:
        raise InputError(f"{args.rollouts} holds seeds {seeds}: one collection (one seed) per file")
    try:
        with perceiving_collector(seeds[0]) as collector:
            rewritten = relocalize(rollouts, collector, partial(perceiving_collector, seeds[0]))
    except RelocalizeError as error:
        print(error, file=sys.stderr)
        return 1
    with open_rollouts(args.out, "w") as file:
        file.writelines(r.to_json() + "\n" for r in rewritten)
    print(f"relocalize: wrote {len(rewritten)} rollouts to {args.out}")
    return 0

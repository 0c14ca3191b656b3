r"""``llm-planner bench babyai-minigrid``: BabyAI pickup plans run in minigrid itself, against the text world.

    llm-planner bench babyai-minigrid [--split benchmarks/babyai/test-executable.txt ...] [--limit N] \
        [--plans out/babyai/test-executable.json ...] [--json PATH]

Each episode is rebuilt in its minigrid level with its seed (``llm_planner_ros.babyai_domain.minigrid_replay``); the
bench reports per split how many layouts match the episode text, how many oracle plans succeed when
minigrid's BabyAI bot executes them, and for every single-step corruption of the oracle plan (each
step deleted, each toggle's colour changed) whether minigrid's verdict (success or not) and the first
failing step agree with ``llm_planner_ros.babyai_domain.world``'s. ``--plans`` also replays the plans a ``bench
babyai`` JSON recorded (every strategy/score cell) and compares them with the text world's verdict;
given without ``--split``, only those.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json

SPLITS = (Path("benchmarks/babyai/test-executable.txt"), Path("benchmarks/babyai/test-optimal.txt"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--split",
        type=Path,
        action="append",
        help="episode file (repeatable; default: the two test splits, none when --plans is given)",
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N episodes of each split (0: all)")
    parser.add_argument(
        "--plans", type=Path, action="append", default=[], help="a `bench babyai` JSON whose plans to replay too"
    )
    parser.add_argument("--max-moves", type=int, default=200, help="bot moves allowed per high-level action")
    add_json_argument(parser, "the summary and every disagreement")


def compare(episode: Any, plan: Sequence[str], label: str, max_moves: int) -> dict[str, Any]:
    """Minigrid's and the text world's verdict on ``plan`` in ``episode``'s grid."""
    from llm_planner_ros.babyai_domain.minigrid_replay import rebuild, replay_plan, text_failed_at

    replay = replay_plan(rebuild(episode), plan, max_moves)
    text_failure = text_failed_at(episode, plan)
    return {
        "id": episode.id,
        "plan": label,
        "text_success": text_failure is None,
        "minigrid_success": replay.success,
        "agree": replay.success == (text_failure is None),
        "same_step": replay.failed_at == text_failure,
        "text_failed_at": text_failure,
        "minigrid_failed_at": replay.failed_at,
        "minigrid_last": replay.steps[-1].message if replay.steps else "",
        "moves": sum(s.moves for s in replay.steps),
    }


def evaluate_split(episodes: Sequence[Any], max_moves: int) -> dict[str, Any]:
    """Layouts, oracle plans and their corruptions of one split, compared with the text world."""
    from llm_planner_ros.babyai_domain.minigrid_replay import corrupted_plans, layout_differences, rebuild

    layouts, oracles, corruptions = [], [], []
    for episode in episodes:
        differences = layout_differences(episode, rebuild(episode))
        layouts.append({"id": episode.id, "differences": differences})
        oracles.append(compare(episode, episode.plan, "oracle", max_moves))
        corruptions += [compare(episode, plan, label, max_moves) for label, plan in corrupted_plans(episode.plan)]
    summary = {
        "episodes": len(episodes),
        "layout_reproduced": sum(not row["differences"] for row in layouts) / len(layouts),
        "oracle_success_minigrid": sum(row["minigrid_success"] for row in oracles) / len(oracles),
        "oracle_moves_per_plan": sum(row["moves"] for row in oracles) / len(oracles),
        **_agreement("corrupted", corruptions),
    }
    return {
        "summary": summary,
        "layout_differences": [row for row in layouts if row["differences"]],
        "oracle_failures": [row for row in oracles if not row["minigrid_success"]],
        "corrupted_disagreements": [row for row in corruptions if not (row["agree"] and row["same_step"])],
    }


def evaluate_recorded(path: Path, max_moves: int) -> list[dict[str, Any]]:
    """Every plan of a ``bench babyai`` JSON replayed in minigrid, one summary per strategy/score cell."""
    from llm_planner_ros.babyai_domain.episodes import load_episodes

    record = json.loads(path.read_text())
    split = Path(record["split"])
    if not split.is_file():
        raise SystemExit(f"{path}: its split {split} is not found: run from the repository root")
    episodes = {episode.id: episode for episode in load_episodes(split)}
    cells = []
    for cell in record["cells"]:
        label = f"{cell['strategy']}/{cell['score']}"
        rows = [compare(episodes[row["id"]], row["plan"], label, max_moves) for row in cell["episodes"]]
        cells.append(
            {
                "strategy": cell["strategy"],
                "score": cell["score"],
                "recorded_success": sum(row["success"] for row in cell["episodes"]) / len(rows),
                "minigrid_success": sum(row["minigrid_success"] for row in rows) / len(rows),
                **_agreement("plans", rows),
                "disagreements": [row for row in rows if not row["agree"]],
            }
        )
    return cells


def _agreement(name: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    count = len(rows) or 1
    return {
        name: len(rows),
        f"{name}_minigrid_success": sum(row["minigrid_success"] for row in rows),
        f"{name}_verdict_agreement": sum(row["agree"] for row in rows) / count,
        f"{name}_same_failing_step": sum(row["same_step"] for row in rows) / count,
    }


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.babyai_domain.episodes import load_episodes

    # with --plans alone only the recorded plans are replayed
    splits = args.split or ([] if args.plans else list(SPLITS))
    report: dict[str, Any] = {"splits": {}, "recorded_plans": {}}
    for split in splits:
        started = time.perf_counter()
        episodes = list(load_episodes(split))[: args.limit or None]
        result = evaluate_split(episodes, args.max_moves)
        result["summary"]["seconds"] = round(time.perf_counter() - started, 1)
        report["splits"][str(split)] = result
        shown = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in result["summary"].items())
        print(f"{split}: {shown}", flush=True)
        for row in result["layout_differences"] + result["oracle_failures"] + result["corrupted_disagreements"]:
            print(f"  {row}", flush=True)
    for path in args.plans:
        cells = evaluate_recorded(path, args.max_moves)
        report["recorded_plans"][str(path)] = cells
        for cell in cells:
            print(
                f"{path} {cell['strategy']}/{cell['score']}: recorded success {cell['recorded_success']:.3f}, "
                f"minigrid {cell['minigrid_success']:.3f}, verdict agreement {cell['plans_verdict_agreement']:.3f}, "
                f"same failing step {cell['plans_same_failing_step']:.3f}",
                flush=True,
            )
    write_json(args.json, report)
    return 0

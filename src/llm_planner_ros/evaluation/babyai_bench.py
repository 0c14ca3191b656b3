r"""``llm-planner bench babyai``: SayCanPay on a BabyAI pickup split (arXiv 2308.12682, Tables 3 and 4).

    llm-planner bench babyai --split benchmarks/babyai/test-executable.txt --planner saycanpay \
        --score say_can_pay --strategy beam_action [--limit N] [--llm KEY=VALUE] [--option KEY=VALUE] \
        [--json PATH]

``--score`` and ``--strategy`` take comma-separated lists (every combination runs; greedy_token only
with say) or ``grid`` for the paper's seven columns. Each episode's plan is made offline and executed
in the BabyAI world through the shared plan loop. Per combination it reports:

- planning success: the plan ends with ``done picking up`` holding the goal object (Table 3);
- cost-effectiveness: success with exactly the oracle plan's length (Table 4; meant for test-optimal);
- relative length: oracle length / plan length for a success, 0 for a failure (the paper's Figure 4);
- LLM calls (score or generate requests of the planner) and wall seconds per episode.

``--json`` is rewritten after every episode; a combination still running appears with ``"partial":
true`` and the episodes it finished, so a run stopped early keeps them.

The language model defaults to the embedded SmolLM2 without the kitchen's SayCan adapter
(``--llm adapter=none``; any ``--llm`` replaces it). Say scores are memoised across the combinations
of one run (the same prompt and candidates are scored once), so later combinations run faster; the
call counts are the planner's requests either way.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.llm.base import GenerationResult, LanguageModel, RankedScores, RankRequest, ScoreResult

# The paper's seven columns, the headline (Beam-Action SayCanPay) first: each finished combination is
# written to --json at once, so a run stopped early keeps the most informative ones.
GRID = (
    *(
        (strategy, score)
        for strategy in ("beam_action", "greedy_action")
        for score in ("say_can_pay", "say_can", "say")
    ),
    ("greedy_token", "say"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--split", type=Path, required=True, help="episode file, e.g. benchmarks/babyai/test-optimal.txt"
    )
    parser.add_argument("--planner", default="saycanpay", choices=("saycanpay",), help="the planning method")
    parser.add_argument("--score", default="say_can_pay", help="say | say_can | say_can_pay, comma-separated, or grid")
    parser.add_argument(
        "--strategy", default="beam_action", help="greedy_token | greedy_action | beam_action, comma-separated"
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N episodes (0: all)")
    parser.add_argument(
        "--llm", action="append", default=[], metavar="KEY=VALUE", help="language model setting (repeatable)"
    )
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="override a saycanpay option (repeatable)"
    )
    add_json_argument(parser, "the summary and every episode")


def combinations(score: str, strategy: str) -> list[tuple[str, str]]:
    """(strategy, score) pairs to run: ``grid`` gives GRID; greedy_token pairs only with say."""
    if "grid" in (score, strategy):
        return list(GRID)
    pairs = [(st, sc) for st in strategy.split(",") for sc in score.split(",")]
    return [(st, sc) for st, sc in pairs if st != "greedy_token" or sc == "say"] or [("greedy_token", "say")]


class MemoModel(LanguageModel):
    """Answers a repeated score, ranked score or greedy generate call from memory; delegates the rest."""

    def __init__(self, inner: LanguageModel) -> None:
        self.inner = inner
        self._scores: dict[tuple[str, tuple[str, ...], bool], ScoreResult] = {}
        self._generations: dict[tuple[Any, ...], GenerationResult] = {}
        self._ranked: dict[tuple[Any, ...], RankedScores] = {}

    @property
    def name(self) -> str:
        return self.inner.name

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        key = (prompt, tuple(completions), per_token)
        if key not in self._scores:
            self._scores[key] = self.inner.score(prompt, completions, per_token)
        return self._scores[key]

    def score_ranked(self, requests: Sequence[RankRequest]) -> list[RankedScores]:
        keys = [(r.prompt, tuple(r.completions), tuple(r.weights), r.keep) for r in requests]
        missing = [request for key, request in zip(keys, requests, strict=True) if key not in self._ranked]
        if missing:
            for request, answer in zip(missing, self.inner.score_ranked(missing), strict=True):
                self._ranked[(request.prompt, tuple(request.completions), tuple(request.weights), request.keep)] = (
                    answer
                )
        return [self._ranked[key] for key in keys]

    def generate(
        self,
        prompt: str,
        n: int = 1,
        max_tokens: int = 64,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
        logit_bias: Mapping[str, float] | None = None,
        grammar: str | None = None,
    ) -> GenerationResult:
        if temperature > 0:  # sampled answers must not repeat
            return self.inner.generate(prompt, n, max_tokens, temperature, top_p, stop, logit_bias, grammar)
        key = (prompt, n, max_tokens, top_p, tuple(stop), tuple(sorted((logit_bias or {}).items())), grammar)
        if key not in self._generations:
            args = (prompt, n, max_tokens, temperature, top_p, stop, logit_bias, grammar)
            self._generations[key] = self.inner.generate(*args)
        return self._generations[key]


def evaluate(
    planner: Any,
    episodes: Sequence[Any],
    model: Any,
    report: Any = print,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run ``planner`` (a SayCanPayPlanner) on every episode; the summary and per-episode rows.
    ``model`` is the CountingModel the planner uses; ``on_episode`` gets the result so far after each
    episode (so a run stopped early keeps the episodes it finished)."""
    from llm_planner_ros.babyai_domain.episodes import UnreadableBlock
    from llm_planner_ros.babyai_domain.world import WorldTextError
    from llm_planner_ros.planning.babyai_environment import BabyAIEnvironment
    from llm_planner_ros.planning.plan_loop import run_plan

    rows = []
    for number, episode in enumerate(episodes, start=1):
        model.reset()
        started = time.perf_counter()
        try:
            if isinstance(episode, UnreadableBlock):
                raise WorldTextError(episode.reason)
            env = BabyAIEnvironment.for_episode(episode)
        except WorldTextError as error:
            # One sentence this reader does not know fails its episode, not the run.
            rows.append(_unreadable(episode, str(error)))
            report(f"  {number}/{len(episodes)} {episode.id}: FAIL (cannot read the episode: {error})")
            continue
        result = run_plan(planner, episode.goal, env, planner.options.max_actions + 1)
        seconds = time.perf_counter() - started
        success = result.success and env.goal_reached
        plan = list(planner.plan)
        rows.append(
            {
                "id": episode.id,
                "success": success,
                "cost_effective": success and len(plan) == len(episode.plan),
                "relative_length": len(episode.plan) / len(plan) if success else 0.0,
                "plan": plan,
                "oracle": list(episode.plan),
                "end": f"{result.reason.value}: {result.message}",
                "llm_calls": model.usage.calls,
                "seconds": round(seconds, 2),
            }
        )
        done = sum(r["success"] for r in rows)
        report(
            f"  {number}/{len(episodes)} {episode.id}: {'ok ' if success else 'FAIL'} "
            f"({done} ok so far) {seconds:.1f} s"
        )
        if on_episode is not None:
            on_episode(summarize(rows))
    return summarize(rows)


def _unreadable(episode: Any, reason: str) -> dict[str, Any]:
    """The row of an episode the world reader cannot read: failed, with the reason, nothing planned."""
    return {
        "id": episode.id,
        "success": False,
        "cost_effective": False,
        "relative_length": 0.0,
        "plan": [],
        "oracle": list(getattr(episode, "plan", ())),
        "end": f"unreadable: {reason}",
        "llm_calls": 0,
        "seconds": 0.0,
    }


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The summary over per-episode rows, with the rows."""
    count = len(rows)
    summary = {
        "episodes": count,
        "planning_success": sum(r["success"] for r in rows) / count,
        "cost_effectiveness": sum(r["cost_effective"] for r in rows) / count,
        "relative_length": sum(r["relative_length"] for r in rows) / count,
        "llm_calls_per_episode": sum(r["llm_calls"] for r in rows) / count,
        "seconds_per_episode": sum(r["seconds"] for r in rows) / count,
        "unreadable": sum(r["end"].startswith("unreadable: ") for r in rows),
    }
    return {"summary": summary, "episodes": list(rows)}


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.babyai_domain.episodes import read_episodes
    from llm_planner_ros.domain.definition import load_domain_files
    from llm_planner_ros.domain.validation import InputError
    from llm_planner_ros.llm.counting_model import CountingModel
    from llm_planner_ros.llm.factory import load_embedder, load_language_model
    from llm_planner_ros.options import parse_key_values
    from llm_planner_ros.planning.registry import PlannerResources, load_planner_options, override_options
    from llm_planner_ros.planning.saycanpay.planner import build as build_saycanpay

    try:
        episodes = read_episodes(args.split)[: args.limit or None]
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(
            f"--split {args.split}: cannot be read ({error}); give an episode file such as "
            "benchmarks/babyai/test-executable.txt"
        ) from error
    pairs = combinations(args.score, args.strategy)
    options = load_planner_options()
    override_options(options, args.planner, parse_key_values(args.option, "--option"))
    section = options[args.planner]
    llm_config = parse_key_values(args.llm) if args.llm else {"adapter": "none"}
    print(f"loading the language model ({llm_config})", flush=True)
    model = CountingModel(MemoModel(load_language_model(llm_config)))
    resources = PlannerResources(model, load_domain_files(), lambda: load_embedder({}), options)
    cells: list[dict[str, Any]] = []

    def write(running: dict[str, Any] | None = None) -> None:
        # a cell still running is written with "partial": true after each of its episodes
        shown = cells + ([running] if running else [])
        report = {"split": str(args.split), "model": model.name, "cells": shown}
        write_json(args.json, report, partial=running is not None)

    for strategy, score in pairs:
        section.update(strategy=strategy, score=score)
        # BabyAI's prompt and Can and Pay models only: the kitchen's are neither needed nor loaded
        planner = build_saycanpay(resources, domains=("babyai",))
        print(f"{strategy} / {score} on {args.split} ({len(episodes)} episodes)", flush=True)

        def partial(result: dict[str, Any], strategy: str = strategy, score: str = score) -> None:
            write({"strategy": strategy, "score": score, "partial": True, **result})

        result = evaluate(planner, episodes, model, on_episode=partial)
        cells.append({"strategy": strategy, "score": score, **result})
        shown = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in result["summary"].items())
        print(f"{strategy} / {score}: {shown}", flush=True)
        write()
    print("\nstrategy       score        success  cost-eff  rel.len  calls/ep  s/ep")
    for cell in cells:
        s = cell["summary"]
        print(
            f"{cell['strategy']:<14} {cell['score']:<12} {s['planning_success']:.3f}    {s['cost_effectiveness']:.3f}"
            f"     {s['relative_length']:.3f}    {s['llm_calls_per_episode']:.1f}     {s['seconds_per_episode']:.1f}"
        )
    return 0

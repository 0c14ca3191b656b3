"""``llm-planner bench generation``: grammar-constrained generation against free generation, per token.

The workload is the generative planners' own requests: ProgPrompt, LLM-Planner and zero-shot planning
each take their first step on the kitchen's initial scene for a few instructions (not from the
benchmark suites), and every ``generate`` call they make is recorded with its grammar. Each recorded
request is then run on the embedded SmolLM2-135M-Instruct (float32, CPU) with its grammar and without
it, ``--repeats`` times each, alternating, after one warm-up call that leaves the prompt in the cache
(so both variants decode from a cached prompt and the times are of decoding).

Reported per method and overall: seconds per generated token (``constrained_s_per_token``,
``free_s_per_token``; tokens = each text's tokens plus the token that ended it) and their ratio
``slowdown`` (1.2 = 20% slower per token); the grammar's compile time (``compile_ms``, median, its
tokenizer table built beforehand) and the matcher's time per token (``mask_ms_per_token``: the
allowed-token mask and the advance past the token, over the constrained texts' tokens).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.llm.base import GenerationResult, LanguageModel, ScoreResult

METHODS = ("progprompt", "llm_planner", "zero_shot")
INSTRUCTIONS = (
    "How would you bring me a coke?",
    "Throw away the redbull on the table, please.",
    "Move the multigrain chips to the far counter.",
)


@dataclass(frozen=True)
class Request:
    """One recorded ``generate`` call of a planner."""

    method: str
    prompt: str
    arguments: Mapping[str, Any]


class _Recorder(LanguageModel):
    """Passes calls to ``inner`` and keeps every generate request."""

    def __init__(self, inner: LanguageModel, method: str, requests: list[Request]) -> None:
        self._inner = inner
        self._method = method
        self._requests = requests

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        return self._inner.score(prompt, completions, per_token)

    def generate(self, prompt: str, **arguments: Any) -> GenerationResult:  # type: ignore[override]
        self._requests.append(Request(self._method, prompt, arguments))
        return self._inner.generate(prompt, **arguments)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_argument(parser, "the results")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each variant per request (default 3)")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (default 0: every available CPU)")
    parser.add_argument(
        "--methods", default=",".join(METHODS), help=f"comma-separated, of {', '.join(METHODS)} (default all)"
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(stderr=True)
    methods = [m for m in args.methods.split(",") if m]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown or args.repeats < 1:
        console.print(f"[red]unknown method(s) {', '.join(unknown)} or --repeats < 1; methods: {', '.join(METHODS)}")
        return 2
    results = _measure(methods, args.repeats, args.threads, console)
    print(json.dumps({k: v for k, v in results.items() if k != "requests"}, indent=2))
    write_json(args.json, results, console.print)
    return 0


def _measure(methods: list[str], repeats: int, threads: int, console: Any) -> dict[str, Any]:
    from llm_planner_ros.llm.hf import HFLanguageModel
    from llm_planner_ros.llm.hf_loading import load_causal_lm

    load_average = os.getloadavg()[0]
    with console.status("loading the model"):
        loaded = load_causal_lm("", "cpu", threads, None, console.log)
    model = HFLanguageModel(loaded.model, loaded.tokenizer, loaded.name)
    requests = _record(model, methods, console)
    rows = []
    for index, request in enumerate(requests, start=1):
        console.log(f"request {index}/{len(requests)} ({request.method})")
        rows.append(_time_request(model, loaded.tokenizer, request, repeats))
    compile_ms, mask_ms = _grammar_costs(loaded, requests, rows)
    summary = {m: _summary([r for r in rows if r["method"] == m]) for m in methods}
    return {
        "model": loaded.name,
        "threads": threads,
        "load_average_1min": round(load_average, 2),
        "repeats": repeats,
        "overall": _summary(rows),
        "methods": summary,
        "compile_ms": round(compile_ms, 2),
        "mask_ms_per_token": round(mask_ms, 3),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
        "requests": rows,
    }


def _record(model: LanguageModel, methods: list[str], console: Any) -> list[Request]:
    """Each method's generate calls of its first step on the kitchen's initial scene, per instruction."""
    from llm_planner_ros.domain import load_domain_files
    from llm_planner_ros.llm.factory import load_embedder
    from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
    from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

    kitchen = load_domain_files()
    requests: list[Request] = []
    options = load_planner_options()
    for method in methods:
        recorder = _Recorder(model, method, requests)
        resources = PlannerResources(recorder, kitchen, lambda: load_embedder({}), options)
        planner = build_planner(method, resources)
        for instruction in INSTRUCTIONS:
            with console.status(f"recording {method}: {instruction}"):
                planner.reset(instruction)
                planner.next_step(SimulatedEnvironment(kitchen.world()), [])
    return requests


def _time_request(model: LanguageModel, tokenizer: Any, request: Request, repeats: int) -> dict[str, Any]:
    free_arguments = {**request.arguments, "grammar": None}
    model.generate(request.prompt, **free_arguments)  # the prompt into the cache
    times: dict[str, list[float]] = {"constrained": [], "free": []}
    tokens: dict[str, int] = {}
    for _ in range(repeats):
        for variant, arguments in (("constrained", request.arguments), ("free", free_arguments)):
            start = time.perf_counter()
            result = model.generate(request.prompt, **arguments)
            times[variant].append(time.perf_counter() - start)
            # Each text's tokens plus the one that ended it (end of sequence, stop string or budget).
            tokens[variant] = sum(len(tokenizer(text)["input_ids"]) + 1 for text in result.texts)
            if variant == "constrained":
                texts = list(result.texts)
    return {
        "method": request.method,
        "constrained_s": statistics.median(times["constrained"]),
        "free_s": statistics.median(times["free"]),
        "constrained_tokens": tokens["constrained"],
        "free_tokens": tokens["free"],
        "grammar": request.arguments.get("grammar"),
        "constrained_texts": texts,
    }


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    constrained = sum(r["constrained_s"] for r in rows) / max(1, sum(r["constrained_tokens"] for r in rows))
    free = sum(r["free_s"] for r in rows) / max(1, sum(r["free_tokens"] for r in rows))
    return {
        "requests": len(rows),
        "constrained_s_per_token": round(constrained, 5),
        "free_s_per_token": round(free, 5),
        "slowdown": round(constrained / free, 3) if free else None,
    }


def _grammar_costs(loaded: Any, requests: list[Request], rows: list[dict[str, Any]]) -> tuple[float, float]:
    """(median compile ms, matcher ms per token) over the recorded grammars and their constrained texts."""
    from llm_planner_ros.llm.grammar import GrammarCompiler

    compiler = GrammarCompiler(loaded.tokenizer, loaded.model.config.vocab_size, {loaded.tokenizer.eos_token_id})
    grammars = [r.arguments["grammar"] for r in requests if r.arguments.get("grammar")]
    compiler.matchers(grammars[0], 1)  # builds the tokenizer table, once per process
    compile_ms = []
    mask_s, masked = 0.0, 0
    for row in rows:
        if not row["grammar"]:
            continue
        start = time.perf_counter()
        matcher = compiler.matchers(row["grammar"], 1)[0]
        compile_ms.append((time.perf_counter() - start) * 1e3)
        for token in loaded.tokenizer(row["constrained_texts"][0])["input_ids"]:
            start = time.perf_counter()
            allowed = matcher.allowed()
            if not allowed[token]:
                break  # the text was re-tokenized differently from how it was sampled; stop timing here
            matcher.take(token)
            mask_s += time.perf_counter() - start
            masked += 1
    return statistics.median(compile_ms), mask_s * 1e3 / max(1, masked)

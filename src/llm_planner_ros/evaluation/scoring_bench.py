"""``llm-planner bench scoring``: prefix-shared SayCan scoring against one forward pass per candidate.

The workload is SayCan's: the project's dialog prompt (config/saycan_prompt.yaml, ~1000 SmolLM2
tokens) and the 51 kitchen skills, scored on the embedded SmolLM2-135M-Instruct (float32). Phases:

1. ``cold_s``: the first call of the process scores a first instruction with an empty cache, so the
   whole prompt is computed (once per model process).
2. For each of ``--repeats`` other instructions: ``shared_prefix_s`` scores its first step (a fresh
   prompt: new instruction, the 17 examples already cached from the previous instruction), then
   ``step_incremental_s`` scores the next step (the prompt extended by the best skill, "1. <skill>, 2. ").
   The medians are reported; every round's time is in the JSON.
   Every time is wall-clock seconds; the ``*_cpu_s`` twins are the process's CPU seconds over the same
   calls (all threads), which other jobs on a shared machine disturb much less.
3. ``naive_s``: the first round's fresh prompt scored again with one full forward pass per candidate
   (no cache). ``speedup`` = naive_s / shared_prefix_s. ``max_abs_diff``: naive against shared scores
   of that prompt, all candidates, nats. ``incremental_vs_cold_diff``: the first round's incremental
   scores against the same prompt scored from an empty cache (the test suite also checks incremental
   scores against the naive pass; doing it here would double the bench's run time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from llm_planner_ros.evaluation.bench_report import add_json_argument, progress_bar, write_json

T = TypeVar("T")

INSTRUCTIONS = (
    "How would you bring me a coke?",
    "I spilled my coke, can you bring me something to clean it up?",
    "Throw away the redbull on the table, please.",
    "I just worked out, can you bring me a drink and a snack to recover?",
    "Move the multigrain chips to the far counter.",
    "Could you put an apple on the close counter?",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_argument(parser, "the results")
    parser.add_argument("--repeats", type=int, default=3, help="fresh-prompt rounds timed (default 3, at most 5)")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (default 0: every available CPU)")
    parser.add_argument("--model", default="", help="a .gguf file or model folder (default: embedded SmolLM2)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (default cpu)")
    parser.add_argument("--prompt-file", type=Path, help="SayCan prompt YAML (default config/saycan_prompt.yaml)")
    parser.add_argument(
        "--skills",
        help="skill counts of generated kitchens, e.g. 51,200,1000: time the configured SayCan step pruned "
        "(branch and bound) against scoring every skill (evaluation.skill_scaling)",
    )
    parser.add_argument("--steps", type=int, default=4, help="--skills: steps planned per instruction (default 4)")
    parser.add_argument("--instructions", type=int, default=4, help="--skills: instructions per kitchen (default 4)")
    parser.add_argument("--plot", type=Path, help="--skills: write the growth curve (PNG) here")
    parser.add_argument(
        "--check-episodes",
        type=Path,
        help="rank every SayCan step of this episode file pruned and exhaustively and count differences",
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(stderr=True)
    if not 1 <= args.repeats <= len(INSTRUCTIONS) - 1:
        console.print(f"[red]--repeats must be between 1 and {len(INSTRUCTIONS) - 1}[/red]")
        return 2
    if args.skills or args.check_episodes:
        results = _scaling(args, console)
    else:
        results = _measure(args, console)
    _print(results)
    write_json(args.json, results, console.print)
    return 0


def _measure(args: argparse.Namespace, console: Any) -> dict[str, Any]:
    from llm_planner_ros.domain import domain_skill_texts
    from llm_planner_ros.llm.hf import HFLanguageModel
    from llm_planner_ros.llm.hf_loading import load_causal_lm
    from llm_planner_ros.paths import resolve_config
    from llm_planner_ros.planning.saycan.prompt import SayCanPrompt

    load_average = os.getloadavg()[0]
    prompt = SayCanPrompt.from_yaml(resolve_config(args.prompt_file, "saycan_prompt.yaml"))
    skills = domain_skill_texts()
    with console.status("loading the model (the first start de-quantizes the GGUF, ~20 s)"):
        loaded = load_causal_lm(args.model, args.device, args.threads, None, console.log)
    # Each HFLanguageModel has its own (initially empty) cache over the same weights.
    fresh_model = partial(HFLanguageModel, loaded.model, loaded.tokenizer, loaded.name)
    model = fresh_model()
    completions = [prompt.completion(skill) for skill in skills]

    with console.status("cold: first instruction, empty cache"):
        cold, _ = _timed(model.score, prompt.render(INSTRUCTIONS[0]), completions)
    fresh_times: list[tuple[float, float]] = []
    step_times: list[tuple[float, float]] = []
    prompts = []
    with console.status("shared prefix: fresh instructions and their next steps") as status:
        for round_number, instruction in enumerate(INSTRUCTIONS[1 : args.repeats + 1], start=1):
            status.update(f"round {round_number}/{args.repeats}: {instruction}")
            fresh = prompt.render(instruction)
            fresh_time, scores = _timed(model.score, fresh, completions)
            best = skills[max(range(len(skills)), key=lambda i: scores.log_probs[i])]
            step = prompt.render(instruction, [best])
            step_time, step_scores = _timed(model.score, step, completions)
            fresh_times.append(fresh_time)
            step_times.append(step_time)
            prompts.append((fresh, scores, step, step_scores))

    fresh, scores, step, step_scores = prompts[0]
    with console.status("the incremental step again, from an empty cache"):
        cold_step = fresh_model().score(step, completions)
    naive_time, naive = _naive(loaded, fresh, completions, console, "naive: one forward per candidate")
    (naive_s, naive_cpu_s), (cold_s, cold_cpu_s) = naive_time, cold
    shared_s, shared_cpu_s = (statistics.median(times) for times in zip(*fresh_times, strict=False))
    incremental_s, incremental_cpu_s = (statistics.median(times) for times in zip(*step_times, strict=False))
    return {
        "model": loaded.name,
        "device": args.device,
        "threads": _threads(),
        "load_average_1min": round(load_average, 2),
        "prompt_tokens": len(loaded.tokenizer(fresh)["input_ids"]),
        "num_options": len(completions),
        "candidate_tokens": sum(scores.token_counts),
        "naive_s": round(naive_s, 3),
        "cold_s": round(cold_s, 3),
        "shared_prefix_s": round(shared_s, 3),
        "step_incremental_s": round(incremental_s, 3),
        "speedup": round(naive_s / shared_s, 1),
        "cold_speedup": round(naive_s / cold_s, 1),
        "max_abs_diff": max(abs(a - b) for a, b in zip(naive, scores.log_probs, strict=False)),
        "incremental_vs_cold_diff": max(
            abs(a - b) for a, b in zip(cold_step.log_probs, step_scores.log_probs, strict=False)
        ),
        "naive_cpu_s": round(naive_cpu_s, 3),
        "cold_cpu_s": round(cold_cpu_s, 3),
        "shared_prefix_cpu_s": round(shared_cpu_s, 3),
        "step_incremental_cpu_s": round(incremental_cpu_s, 3),
        "shared_prefix_rounds_s": [round(wall, 3) for wall, _ in fresh_times],
        "step_incremental_rounds_s": [round(wall, 3) for wall, _ in step_times],
    }


def _scaling(args: argparse.Namespace, console: Any) -> dict[str, Any]:
    """The --skills and --check-episodes modes (``evaluation.skill_scaling``)."""
    from llm_planner_ros.evaluation import skill_scaling
    from llm_planner_ros.llm.hf_loading import load_causal_lm

    load_average = os.getloadavg()[0]
    with console.status("loading the model (the first start de-quantizes the GGUF, ~20 s)"):
        loaded = load_causal_lm(args.model, args.device, args.threads, None, console.log)
    results: dict[str, Any] = {"model": loaded.name, "device": args.device, "threads": _threads()}
    results["load_average_1min"] = round(load_average, 2)
    if args.skills:
        sizes = [int(size) for size in args.skills.split(",")]
        rows = skill_scaling.measure_skills(loaded, sizes, args.steps, args.instructions, console)
        results["skills"] = rows
        results["num_options"] = [row["num_options"] for row in rows]
        if args.plot:
            skill_scaling.plot_growth(rows, args.plot)
    if args.check_episodes:
        results["check"] = skill_scaling.check_episodes(loaded, args.check_episodes, console)
    results["load_average_1min_after"] = round(os.getloadavg()[0], 2)
    return results


def _timed(call: Callable[..., T], *args: Any) -> tuple[tuple[float, float], T]:
    """((wall seconds, process CPU seconds), result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = call(*args)
    return (time.perf_counter() - wall, time.process_time() - cpu), result


def _naive(
    loaded: Any, prompt: str, completions: list[str], console: Any, title: str
) -> tuple[tuple[float, float], list[float]]:
    """((wall, CPU) seconds, scores) of one full forward pass per completion."""
    from llm_planner_ros.llm.naive import naive_token_log_probs

    def one(completion: str) -> float:
        return sum(naive_token_log_probs(loaded.model, loaded.tokenizer, prompt, [completion])[0])

    scores, wall, cpu = [], 0.0, 0.0
    with progress_bar(console, title, len(completions)) as progress:
        for completion in completions:
            (one_wall, one_cpu), score = _timed(one, completion)
            wall, cpu = wall + one_wall, cpu + one_cpu
            scores.append(score)
            progress.advance()
    return (wall, cpu), scores


def _threads() -> int:
    import torch

    return torch.get_num_threads()


def _print(results: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="LLM scoring: shared prompt prefix vs one forward per candidate")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in results.items():
        if key == "skills":
            for row in value:
                table.add_row(f"{row['num_options']} skills", ", ".join(f"{k} {v}" for k, v in row.items()))
            continue
        table.add_row(key, f"{value:.2e}" if key.endswith("diff") else str(value))
    Console().print(table)

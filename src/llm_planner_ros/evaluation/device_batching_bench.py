"""``llm-planner bench device-batching``: whether one forward for several robots pays off on this device.

The hf backend answers a batch of ranked requests (one per robot, each its own prompt) in the same
forwards when ``cache_slots`` is 1 (``HFLanguageModel.score_ranked``). On a 2-core CPU that forward
costs about as much as the robots' forwards one after another; on a GPU it should cost little more
than one. This bench measures it in-process, without ROS, so it runs on a GPU host that has only
torch and transformers (``docs/benchmarks.md``, "Several robots, one model service"):

- each of R robots plans a different dev-suite instruction over every kitchen skill (SayCan's request
  shape: one ranked request per step, the history growing by one skill per step, top 5 kept);
- ``sequential``: the R requests of a step as R calls, one after another (a service without batching);
- ``batched``: the same R requests in one call;
- ``steps_per_s`` of each, and ``batched_vs_1``: batched steps per second over the 1-robot rate;
- ``agreement``: on a CUDA device, the largest difference between the device's log-probabilities and
  the CPU's for the same requests and weights (the model is loaded twice);
- ``constrained``: one step generated per robot under the step grammar of the kitchen's skills (the
  generative planners' path): median seconds per step, and how many outputs are skill texts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.llm.base import LanguageModel, RankRequest
from llm_planner_ros.paths import default_domain

KEEP = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="", help="hf model: a model folder or .gguf ('' = the embedded SmolLM2)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--robots", default="1,2,4,8", help="robot counts, comma-separated (default 1,2,4,8)")
    parser.add_argument("--steps", type=int, default=5, help="plan steps timed per robot count (default 5)")
    parser.add_argument("--episodes", type=Path, default=default_domain() / "dev.yaml")
    add_json_argument(parser, "the results")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from llm_planner_ros.domain.definition import domain_skill_texts, load_domain_files
    from llm_planner_ros.domain.episodes import load_episodes
    from llm_planner_ros.llm.factory import load_language_model

    console = Console(stderr=True)
    counts = [int(count) for count in args.robots.split(",")]
    kitchen = load_domain_files()
    world = kitchen.world()
    skills = domain_skill_texts(world)
    instructions = [episode.instruction for episode in load_episodes(args.episodes, kitchen)][: max(counts)]
    config = {"backend": "hf", "model": args.model, "device": args.device, "cache_slots": 1, "adapter": "none"}
    model = load_language_model(config, report=console.print)
    rounds = _rounds(instructions, skills, args.steps)
    _warm_up(model, rounds[0])
    rows = [_measure(model, rounds, count, console) for count in counts]
    single = next((row for row in rows if row["robots"] == 1), rows[0])
    for row in rows:
        row["batched_vs_1"] = round(row["batched_steps_per_s"] / single["sequential_steps_per_s"], 2)
        row["sequential_vs_1"] = round(row["sequential_steps_per_s"] / single["sequential_steps_per_s"], 2)
    results: dict[str, Any] = {
        "benchmark": "device-batching",
        "device": args.device,
        "device_name": _device_name(args.device),
        "model": model.name,
        "skills": len(skills),
        "keep": KEEP,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "runs": rows,
    }
    results["constrained"] = _constrained(model, world, instructions[: max(counts)])
    if args.device != "cpu":
        reference = load_language_model({**config, "device": "cpu"}, report=console.print)
        results["agreement"] = _agreement(model, reference, rounds[0][: max(counts)])
    for row in rows:
        console.print(row)
    console.print({key: results[key] for key in ("constrained", "agreement") if key in results})
    write_json(args.json, results, console.print)
    return 0


def _rounds(instructions: Sequence[str], skills: Sequence[str], steps: int) -> list[list[RankRequest]]:
    """Per step, one request per robot: its instruction and a history one skill longer each step, so every
    step brings new prompt tokens (as a planner's does) and no step is served from an earlier one."""
    rounds = []
    for step in range(steps + 1):  # step 0 warms up
        requests = []
        for robot, instruction in enumerate(instructions):
            history = "".join(f" {i + 1}. {skills[(robot + i) % len(skills)]}," for i in range(step))
            prompt = f"Robot: I am a kitchen robot.\nHuman: {instruction}\nRobot:{history} {step + 1}."
            requests.append(RankRequest(prompt, [f" {skill}" for skill in skills], [1.0] * len(skills), KEEP))
        rounds.append(requests)
    return rounds


def _warm_up(model: LanguageModel, requests: Sequence[RankRequest]) -> None:
    model.score_ranked(requests[:1])
    model.score_ranked(requests)


def _measure(model: LanguageModel, rounds: Sequence[Sequence[RankRequest]], robots: int, console: Any) -> dict:
    sequential: list[float] = []
    batched: list[float] = []
    for step, requests in enumerate(rounds[1:], start=1):
        mine = list(requests[:robots])
        # Each mode gets prompts the other has not cached (the mode's tag in front), and the modes take
        # turns going first, so neither profits from the other's warm caches.
        modes = [(sequential, "a", True), (batched, "b", False)]
        for times, tag, one_by_one in modes if step % 2 else modes[::-1]:
            tagged = _tagged(mine, tag)
            started = time.perf_counter()
            for call in [[request] for request in tagged] if one_by_one else [tagged]:
                model.score_ranked(call)
            times.append(time.perf_counter() - started)
        console.print(f"robots {robots} step {step}: sequential {sequential[-1]:.3f} s, batched {batched[-1]:.3f} s")
    seq_s, batch_s = statistics.median(sequential), statistics.median(batched)
    return {
        "robots": robots,
        "sequential_step_s": round(seq_s, 4),
        "batched_step_s": round(batch_s, 4),
        "sequential_steps_per_s": round(robots / seq_s, 2),
        "batched_steps_per_s": round(robots / batch_s, 2),
        "batched_speedup": round(seq_s / batch_s, 2),
    }


def _tagged(requests: Sequence[RankRequest], tag: str) -> list[RankRequest]:
    return [RankRequest(f"({tag}) {r.prompt}", r.completions, r.weights, r.keep) for r in requests]


def _agreement(model: LanguageModel, reference: LanguageModel, requests: Sequence[RankRequest]) -> dict:
    """Largest |log p(device) - log p(cpu)| over the candidates both scored, and whether the top KEEP agree."""
    ours, theirs = model.score_ranked(requests), reference.score_ranked(requests)
    differences, same_top = [], True
    for a, b in zip(ours, theirs, strict=True):
        pairs = [(x, y) for x, y in zip(a.log_probs, b.log_probs, strict=True) if x is not None and y is not None]
        differences.extend(abs(x - y) for x, y in pairs)
        same_top &= _top(a.log_probs) == _top(b.log_probs)
    return {"max_abs_log_prob_diff": round(max(differences), 5), "same_top": same_top, "requests": len(requests)}


def _constrained(model: LanguageModel, world: Any, instructions: Sequence[str]) -> dict:
    """One greedy step per instruction under ``step_grammar`` over the scene's skills and objects."""
    from llm_planner_ros.planning.grammars import step_grammar

    skills = world.admissible_skills()
    grammar = step_grammar(skills, sorted({obj.label for obj in world.objects}), world.places())
    texts = {skill.text for skill in skills}
    seconds, valid = [], 0
    for instruction in instructions:
        started = time.perf_counter()
        text = model.generate(f"Human: {instruction}\nStep 1:", max_tokens=24, grammar=grammar).texts[0]
        seconds.append(time.perf_counter() - started)
        valid += text.strip() in texts
    return {"requests": len(instructions), "step_s_median": round(statistics.median(seconds), 4), "skill_texts": valid}


def _top(log_probs: Sequence[float | None]) -> list[int]:
    scored = [(p, i) for i, p in enumerate(log_probs) if p is not None]
    return [i for _p, i in sorted(scored, reverse=True)[:KEEP]]


def _device_name(device: str) -> str:
    import torch

    if device == "cpu":
        return f"cpu x{len(os.sched_getaffinity(0))}"
    return torch.cuda.get_device_name(torch.device(device))

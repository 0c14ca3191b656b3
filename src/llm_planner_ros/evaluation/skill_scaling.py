"""``llm-planner bench scoring --skills N,...`` and ``--check-episodes FILE``: SayCan's step as the skill
vocabulary grows, pruned (branch and bound, ``llm.ranking``) against scoring every skill.

``--skills``: for each N, a generated kitchen of N skills (``generated_kitchen``) and the configured
SayCan planner (config/planners.yaml: grounded prompt, scene line, the model's adapter) plan each
instruction for up to ``--steps`` steps in the simulated kitchen, twice over the same states: with
``prune`` (the default) and without (every skill scored, the way before). Each planner has its own
model cache over the same weights, as it would in its own process. Per N the JSON has:

- ``fresh_decision_s``: median time of an instruction's first step (new instruction; the scene and
  preamble cached from the previous instruction), ``step_s``: median of the later steps (the prompt
  extended by the executed step), each for ``pruned`` and ``exhaustive``; ``cpu_s``: the median
  process CPU seconds of all those steps (all threads; less disturbed by other jobs on a shared
  machine); ``cold_s``: the very first step of the process (empty cache), pruned;
- ``peak_rss_gb``: the process's peak resident memory during the steps of each mode (the kernel's
  high-water mark, reset before each mode: weights included);
- ``tokens_scored``: completion tokens whose log-prob was read per step (mean), ``computed_tokens``
  (pruned: tokens the model ran), ``candidates_scored`` (mean per step), ``positive_affordance``
  (mean skills per step whose affordance is above 0);
- ``same_decisions``: every step's chosen skill and top-k table (skills and order) equal in both modes;
  ``speedup_step``/``speedup_fresh``: exhaustive time over pruned time.

``--check-episodes``: every SayCan step of the episode file (in-process, the configured planner) is
ranked pruned and exhaustively on the same prompt; the report counts steps whose chosen skill or
top-k table differ (0 is the claim) and the fraction of candidates the pruned ranking scored.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_planner_ros.llm.base import GenerationResult, LanguageModel, RankedScores, RankRequest, ScoreResult
from llm_planner_ros.llm.ranking import ranked_indices


def peak_rss_reset() -> None:
    """Reset the kernel's peak-RSS mark of this process (Linux; a no-op elsewhere)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def peak_rss_gb() -> float:
    """Peak resident memory of the current process since the last reset, GB (0.0 when unknown)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1e6
    except OSError:
        pass
    return 0.0


@dataclass
class _ModeTimes:
    fresh: list[float] = field(default_factory=list)
    steps: list[float] = field(default_factory=list)
    steps_cpu: list[float] = field(default_factory=list)
    scored_tokens: list[int] = field(default_factory=list)
    computed_tokens: list[int] = field(default_factory=list)
    candidates: list[int] = field(default_factory=list)
    peak_gb: float = 0.0


class _Recorder(LanguageModel):
    """Delegates to ``inner`` and keeps the last ranked answer (what one step scored)."""

    def __init__(self, inner: LanguageModel) -> None:
        self.inner = inner
        self.last: RankedScores | None = None

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        result = self.inner.score(prompt, completions, per_token=True)
        assert result.token_log_probs is not None
        self.last = RankedScores(result.log_probs, result.token_log_probs)
        return result

    def score_ranked(self, requests: Sequence[RankRequest]) -> list[RankedScores]:
        answers = self.inner.score_ranked(requests)
        self.last = answers[-1]
        return answers

    def generate(self, prompt: str, *args: Any, **kwargs: Any) -> GenerationResult:
        return self.inner.generate(prompt, *args, **kwargs)


def measure_skills(
    loaded: Any, sizes: Sequence[int], steps: int, instructions: int, console: Any
) -> list[dict[str, Any]]:
    """One result row per skill count (module docstring)."""
    from llm_planner_ros.evaluation.generated_kitchen import generated_kitchen
    from llm_planner_ros.llm.hf import HFLanguageModel

    rows = []
    for size in sizes:
        generated = generated_kitchen(size)
        models = {mode: _Recorder(HFLanguageModel(loaded.model, loaded.tokenizer, loaded.name)) for mode in _MODES}
        planners = {mode: _saycan(models[mode], generated.kitchen, prune=(mode == "pruned")) for mode in _MODES}
        times = {mode: _ModeTimes() for mode in _MODES}
        same, cold_s = True, 0.0
        with console.status(f"{size} skills") as status:
            for number, instruction in enumerate(generated.instructions[:instructions]):
                world = generated.world.copy()
                for planner in planners.values():
                    planner.reset(instruction)
                for step in range(steps):
                    status.update(f"{size} skills: {instruction!r} step {step + 1}")
                    decisions = {}
                    for mode in _MODES:
                        env = _environment(world)
                        peak_rss_reset()
                        started, cpu = time.perf_counter(), time.process_time()
                        decisions[mode] = planners[mode].next_step(env, [])
                        elapsed = time.perf_counter() - started
                        mode_times = times[mode]
                        mode_times.peak_gb = max(mode_times.peak_gb, peak_rss_gb())
                        if number == 0 and step == 0:
                            cold_s = elapsed if mode == "pruned" else cold_s
                        else:
                            (mode_times.fresh if step == 0 else mode_times.steps).append(elapsed)
                            mode_times.steps_cpu.append(time.process_time() - cpu)
                        answer = models[mode].last
                        assert answer is not None
                        mode_times.scored_tokens.append(answer.scored_tokens)
                        mode_times.computed_tokens.append(answer.computed_tokens)
                        mode_times.candidates.append(answer.scored)
                    same &= _table(decisions["pruned"]) == _table(decisions["exhaustive"])
                    chosen = decisions["pruned"].skill
                    if chosen is None or chosen.text == "done":
                        break
                    outcome = _environment(world).execute(chosen)
                    for planner in planners.values():
                        planner.observe(_record(step, chosen, outcome.success))
        rows.append(_row(size, generated, times, cold_s, same, _positive_affordances(generated)))
        console.log(f"{size} skills: {rows[-1]}")
    return rows


_MODES = ("pruned", "exhaustive")


def _row(
    size: int, generated: Any, times: dict[str, _ModeTimes], cold_s: float, same: bool, positive: int
) -> dict[str, Any]:
    pruned, exhaustive = times["pruned"], times["exhaustive"]

    def median(values: list[float]) -> float:
        return round(statistics.median(values), 3) if values else 0.0

    def mean(values: Sequence[int]) -> float:
        return round(statistics.fmean(values), 1) if values else 0.0

    row: dict[str, Any] = {
        "num_options": size,
        "objects": generated.objects,
        "places": generated.places,
        "placed_objects": generated.placed,
        "positive_affordance": positive,
        "cold_s": round(cold_s, 3),
    }
    for name, mode in (("pruned", pruned), ("exhaustive", exhaustive)):
        row[f"{name}_fresh_decision_s"] = median(mode.fresh)
        row[f"{name}_step_s"] = median(mode.steps)
        row[f"{name}_cpu_s"] = median(mode.steps_cpu)
        row[f"{name}_peak_rss_gb"] = round(mode.peak_gb, 2)
        row[f"{name}_tokens_scored"] = mean(mode.scored_tokens)
        row[f"{name}_candidates_scored"] = mean(mode.candidates)
    row["pruned_computed_tokens"] = mean(pruned.computed_tokens)
    row["steps_timed"] = len(pruned.fresh) + len(pruned.steps)
    row["speedup_fresh"] = _ratio(exhaustive.fresh, pruned.fresh)
    row["speedup_step"] = _ratio(exhaustive.steps, pruned.steps)
    row["same_decisions"] = same
    return row


def _ratio(slow: list[float], fast: list[float]) -> float:
    """Median over median (0.0 when a mode timed no such step, e.g. every plan ended at its first)."""
    return round(statistics.median(slow) / statistics.median(fast), 1) if slow and fast else 0.0


def _positive_affordances(generated: Any) -> int:
    from llm_planner_ros.affordance.model import AffordanceModel

    world = generated.world
    return sum(value > 0 for value in AffordanceModel().evaluate(world.admissible_skills(), world))


def _table(decision: Any) -> tuple[str | None, tuple[str, ...]]:
    return (decision.skill.text if decision.skill else None, tuple(c.skill.text for c in decision.candidates))


def _environment(world: Any) -> Any:
    from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

    return SimulatedEnvironment(world)


def _record(step: int, skill: Any, succeeded: bool) -> Any:
    from llm_planner_ros.planning.decision import StepRecord, StepStatus

    return StepRecord(step, skill, (), StepStatus.SUCCEEDED if succeeded else StepStatus.FAILED)


def _saycan(model: LanguageModel, kitchen: Any, prune: bool) -> Any:
    from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options

    options = load_planner_options()
    options["saycan"] = {**options.get("saycan", {}), "prune": prune}
    return build_planner("saycan", PlannerResources(model, kitchen, _no_embedder, options))


def _no_embedder() -> Any:
    raise RuntimeError("the skill-scaling bench runs SayCan without an embedder (examples: none)")


class RankCheckingModel(LanguageModel):
    """Answers ranked calls with ``inner``'s pruned ranking and checks each against scoring every
    candidate: ``mismatches`` lists the prompts whose top-``keep`` differ (chosen skill or order)."""

    def __init__(self, inner: LanguageModel) -> None:
        self.inner = inner
        self.checked = 0
        self.candidates = 0
        self.scored = 0
        self.mismatches: list[str] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        return self.inner.score(prompt, completions, per_token)

    def score_ranked(self, requests: Sequence[RankRequest]) -> list[RankedScores]:
        answers = self.inner.score_ranked(requests)
        for request, answer in zip(requests, answers, strict=True):
            full = self.inner.score(request.prompt, request.completions).log_probs
            expected = ranked_indices(full, request.weights)[: request.keep]
            got = ranked_indices(answer.log_probs, request.weights)[: request.keep]
            self.checked += 1
            self.candidates += len(request.completions)
            self.scored += answer.scored
            if expected != got:
                self.mismatches.append(f"{request.prompt[-80:]!r}: exhaustive {expected}, pruned {got}")
        return answers

    def generate(self, prompt: str, *args: Any, **kwargs: Any) -> GenerationResult:
        return self.inner.generate(prompt, *args, **kwargs)


def check_episodes(loaded: Any, episodes_file: Path, console: Any) -> dict[str, Any]:
    """Every SayCan step of ``episodes_file`` ranked pruned and exhaustively (module docstring)."""
    from llm_planner_ros.domain.definition import load_domain_files
    from llm_planner_ros.domain.episodes import load_episodes
    from llm_planner_ros.evaluation.kitchen_benchmark import plan_in_process
    from llm_planner_ros.llm.hf import HFLanguageModel

    kitchen = load_domain_files()
    episodes = list(load_episodes(episodes_file, kitchen))
    model = RankCheckingModel(HFLanguageModel(loaded.model, loaded.tokenizer, loaded.name))
    planner = _saycan(model, kitchen, prune=True)
    started = time.perf_counter()
    with console.status("checking") as status:
        for number, episode in enumerate(episodes, start=1):
            status.update(f"episode {number}/{len(episodes)} {episode.id}: {model.checked} steps checked")
            plan_in_process(planner, episode, kitchen)
    return {
        "episodes_file": str(episodes_file),
        "episodes": len(episodes),
        "steps_checked": model.checked,
        "mismatches": len(model.mismatches),
        "mismatch_details": model.mismatches,
        "candidates": model.candidates,
        "candidates_scored": model.scored,
        "scored_fraction": round(model.scored / max(1, model.candidates), 3),
        "wall_s": round(time.perf_counter() - started, 1),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def plot_growth(rows: Sequence[dict[str, Any]], path: Path) -> None:
    """Step time and fresh-decision time against skill count, pruned and exhaustive (log-log PNG)."""
    from llm_planner_ros.visualization.figures import pyplot, save_figure

    plt = pyplot()
    sizes = [row["num_options"] for row in rows]
    figure, axis = plt.subplots(figsize=(6, 4))
    for mode, style in (("pruned", "-o"), ("exhaustive", "--s")):
        axis.plot(sizes, [row[f"{mode}_step_s"] for row in rows], style, label=f"{mode}: next step")
        axis.plot(
            sizes, [row[f"{mode}_fresh_decision_s"] for row in rows], style, alpha=0.5, label=f"{mode}: fresh decision"
        )
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("skills (generated kitchens)")
    axis.set_ylabel("seconds per SayCan step")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend()
    save_figure(figure, path)

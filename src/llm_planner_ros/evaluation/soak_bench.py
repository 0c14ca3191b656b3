r"""``llm-planner bench soak``: the whole sim graph under a long run of goals, watching every node's memory.

    llm-planner bench soak [--instructions 300] [--warmup 24] [--sample-every 24] [--threshold 10] \
        [--json PATH] [--recording PATH] [--record] [--log-dir DIR]

Brings up every node of llm_planner_ros.bringup.graphs.SIM_GRAPH as a process (as ``llm-planner up`` does),
llm_service on the ``replay`` backend, and sends N goals cycling over ``WORKLOAD``: episodes of
domains/saycan_kitchen/dev.yaml (the world is reset to the episode before each goal), each planned by
SayCan and by the zero-shot planner, executed and plan-only. The resident memory (RSS) of every node
process is sampled when the graph is up, after the warm-up goals, every K goals and at the end.

Exit status: 0 when no node's RSS at the end is more than the threshold above its RSS after the
warm-up; 1 when one is (a leak per goal); 2 when the graph did not come up or a node exited (the
samples so far are still printed and written). A goal that fails (an end reason other than ``done``,
or ``bench_error`` when the graph answered the bench wrongly or not in time) is counted and listed
with its message, and the run goes on.

The recording (``DEFAULT_RECORDING``) holds the embedded model's answers to every request of one pass
over ``WORKLOAD``; ``--record`` remakes it with the embedded model, which a change of the prompts, the
planners' options or the workload needs (the replay then names the request it has no answer for).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.options import finite_float
from llm_planner_ros.paths import default_domain

if TYPE_CHECKING:
    from llm_planner_ros.domain.episodes import EpisodeFile
    from llm_planner_ros.evaluation.ros_runner import SimGraph
    from llm_planner_ros.planning.plan_loop import PlanResult

DEFAULT_RECORDING = Path("benchmarks/soak/recording.jsonl")
EPISODES_FILE = default_domain() / "dev.yaml"
GOAL_TIMEOUT_S = 120.0
# Recording starts the embedded model, whose first start converts it (about 20 s on 2 cores).
READY_TIMEOUT_S = 300.0
MIB = 1024 * 1024


@dataclass(frozen=True)
class SoakGoal:
    """One kind of goal of the workload: an episode of EPISODES_FILE, the method, and whether it only plans."""

    episode_id: str
    planner: str
    plan_only: bool

    @property
    def label(self) -> str:
        return f"{self.episode_id} {self.planner} {'plan_only' if self.plan_only else 'executed'}"


# A pick, a drive and a four-step fetch (both executors, every affordance family those plans touch),
# each by a scoring and a generative method, dispatched and plan-only: every path a goal takes through
# the graph, in an order whose first few goals already cover both methods and both modes.
WORKLOAD: tuple[SoakGoal, ...] = tuple(
    SoakGoal(episode, planner, plan_only)
    for episode in ("sp-01", "sp-03", "noun-06")
    for planner in ("saycan", "zero_shot")
    for plan_only in (False, True)
)


@dataclass(frozen=True)
class Sample:
    """The RSS of every node (bytes, by node name) after ``goals`` goals, ``elapsed_s`` into the run."""

    goals: int
    elapsed_s: float
    rss_bytes: dict[str, int]


@dataclass(frozen=True)
class NodeGrowth:
    """A node's RSS after the warm-up, at the end and at its largest (bytes); ``growth_pct`` compares
    the end with the warm-up."""

    node: str
    warmup_bytes: int
    end_bytes: int
    max_bytes: int

    @property
    def growth_pct(self) -> float:
        return 100.0 * (self.end_bytes - self.warmup_bytes) / self.warmup_bytes


def rss_bytes(pid: int) -> int:
    """The resident set size of process ``pid``: psutil's when installed, else VmRSS of /proc/<pid>/status."""
    try:
        import psutil
    except ImportError:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024  # the kernel writes kB
        raise RuntimeError(f"no VmRSS in /proc/{pid}/status: is {pid} a zombie?") from None
    return int(psutil.Process(pid).memory_info().rss)


def node_growth(samples: list[Sample], warmup_goals: int) -> list[NodeGrowth]:
    """Each node's growth from the sample taken after ``warmup_goals`` goals to the last sample."""
    warmup = next(s for s in samples if s.goals == warmup_goals)
    return [
        NodeGrowth(node, warmup.rss_bytes[node], samples[-1].rss_bytes[node], max(s.rss_bytes[node] for s in samples))
        for node in warmup.rss_bytes
    ]


def sample_points(instructions: int, warmup: int, every: int) -> set[int]:
    """After how many goals the RSS is sampled: at the start, after the warm-up, every ``every`` goals
    from there, and at the end."""
    return {0, warmup, instructions, *range(warmup, instructions, every)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    cycle = len(WORKLOAD)
    parser.add_argument("--instructions", type=int, default=300, help="goals to send (default 300)")
    # Two passes over the workload: every path (imports, caches, DDS endpoints) has run before the baseline.
    parser.add_argument(
        "--warmup",
        type=int,
        default=2 * cycle,
        help=f"goals before the baseline sample (default {2 * cycle}, two passes over the workload)",
    )
    # A multiple of the workload keeps every sample at the same point of the cycle.
    parser.add_argument(
        "--sample-every", type=int, default=2 * cycle, help=f"goals between samples (default {2 * cycle})"
    )
    parser.add_argument(
        "--threshold",
        type=finite_float,
        default=10.0,
        help="largest RSS growth after the warm-up, in %%, that passes (default 10)",
    )
    add_json_argument(parser, "the samples, the growth per node and the counts")
    parser.add_argument(
        "--recording",
        type=Path,
        default=DEFAULT_RECORDING,
        help=f"the replay recording (default {DEFAULT_RECORDING}, relative to the checkout)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="remake the recording: one pass over the workload with the embedded model, no soak",
    )
    parser.add_argument("--log-dir", type=Path, help="node logs (default: a new folder under the temp dir)")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from llm_planner_ros.paths import repo_path

    console = Console(highlight=False)
    recording = repo_path(args.recording)
    if args.record:
        return _record(args, recording, console)
    if not 0 < args.warmup < args.instructions or args.sample_every < 1:
        raise SystemExit("need 0 < --warmup < --instructions and --sample-every >= 1")
    if not recording.is_file():
        raise SystemExit(f"no recording at {recording}: make it with `llm-planner bench soak --record`")
    graph, episodes = _start(args, {"backend": "replay", "recording": str(recording)}, console)
    pids = {
        spec.name: process.pid
        for spec, process in zip(SIM_GRAPH, graph.processes, strict=False)
        if process.pid is not None
    }
    started = time.monotonic()
    try:
        samples, outcomes, failures, error = _soak(graph, episodes, pids, args, console)
        wall_s = time.monotonic() - started
    finally:
        graph.close()
    growth = node_growth(samples, args.warmup) if any(s.goals == args.warmup for s in samples) else []
    grew = [g.node for g in growth if g.growth_pct > args.threshold]
    _print_report(console, growth, samples, outcomes, args.threshold, wall_s)
    if args.json:
        _write_json(args, recording, pids, samples, growth, outcomes, failures, grew, wall_s, error)
    if error:
        return 2
    if grew:
        console.print(f"[red]RSS grew more than {args.threshold:g}% after the warm-up[/red]: {', '.join(grew)}")
        return 1
    return 0


def _soak(
    graph: SimGraph, episodes: EpisodeFile, pids: Mapping[str, int], args: argparse.Namespace, console: Any
) -> tuple[list[Sample], dict[str, Counter[str]], list[dict[str, Any]], str]:
    """Send the goals, sampling the RSS at ``sample_points``: the samples, the end reasons per workload
    label, every goal that did not end ``done``, and why the run stopped early ("" when it did not)."""
    points = sample_points(args.instructions, args.warmup, args.sample_every)
    samples: list[Sample] = []
    outcomes: dict[str, Counter[str]] = {}
    failures: list[dict[str, Any]] = []
    started = time.monotonic()

    def sample(goals: int) -> None:
        rss = {name: rss_bytes(pid) for name, pid in pids.items()}
        samples.append(Sample(goals, time.monotonic() - started, rss))
        console.print(
            f"rss after {goals} goals (MiB): " + ", ".join(f"{name} {value / MIB:.1f}" for name, value in rss.items()),
            soft_wrap=True,
        )

    try:
        sample(0)
        for index in range(args.instructions):
            goal = WORKLOAD[index % len(WORKLOAD)]
            goal_started = time.monotonic()
            try:
                result = _send(graph, episodes, goal)
                reason, message = result.reason.value, result.message
            except Exception as failure:
                reason, message = "bench_error", f"{type(failure).__name__}: {failure}"
            _check_alive(graph)
            outcomes.setdefault(goal.label, Counter())[reason] += 1
            took = time.monotonic() - goal_started
            line = f"{index + 1:>4}/{args.instructions} {goal.label:<28} {reason:<12} {took:5.1f} s"
            if reason != "done":
                failures.append({"goal": index + 1, "label": goal.label, "reason": reason, "message": message})
                line += f"  {message[:160]}"
            console.print(line, soft_wrap=True, markup=False)
            if index + 1 in points:
                sample(index + 1)
    except NodeExited as exited:
        console.print(f"[red]soak stopped[/red]: {exited}")
        return samples, outcomes, failures, str(exited)
    return samples, outcomes, failures, ""


def _record(args: argparse.Namespace, recording: Path, console: Any) -> int:
    """One pass over WORKLOAD with llm_service recording the embedded model into ``recording``
    (replaced only when every goal ran without an error)."""
    from llm_planner_ros.planning.plan_loop import EndReason

    partial = recording.with_name(recording.name + ".partial")
    partial.unlink(missing_ok=True)
    llm = {"backend": "replay", "replay_mode": "record", "record_backend": "hf", "recording": str(partial)}
    graph, episodes = _start(args, llm, console)
    try:
        for goal in WORKLOAD:
            result = _send(graph, episodes, goal)
            _check_alive(graph)
            console.print(f"recorded {goal.label:<28} {result.reason.value}", soft_wrap=True)
            if result.reason == EndReason.ERROR:
                raise SystemExit(f"{goal.label} ended in an error ({result.message}); {recording} is unchanged")
    finally:
        graph.close()
    # Requests repeat (a failed skill is not appended to the prompt, so the next step asks the same),
    # mostly with the same answer. Dropping an identical line leaves every request answered: each
    # recorded answer's continuation was recorded too, and the replay repeats the last answer.
    answers = partial.read_text(encoding="utf-8").splitlines(keepends=True)
    recording.write_text("".join(dict.fromkeys(answers)), encoding="utf-8")
    partial.unlink()
    console.print(
        f"recording written: {recording} ({len(set(answers))} distinct of {len(answers)} answers, "
        f"{recording.stat().st_size / 1024:.0f} KiB)"
    )
    return 0


def _start(args: argparse.Namespace, llm: Mapping[str, str], console: Any) -> tuple[SimGraph, EpisodeFile]:
    """The sim graph in this process's ROS_DOMAIN_ID, up and answering, and the workload's episodes."""
    from llm_planner_ros.domain.definition import load_domain_files
    from llm_planner_ros.domain.episodes import load_episodes
    from llm_planner_ros.evaluation.ros_runner import SimGraph
    from llm_planner_ros.paths import repo_path

    kitchen = load_domain_files()
    episodes = load_episodes(repo_path(EPISODES_FILE), kitchen)
    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="soak-bench-"))
    overrides = {"sim_world": {"time_scale": 0.0}, "llm_service": dict(llm)}
    console.print(f"starting the sim graph (node logs in {log_dir})")
    graph = SimGraph(int(os.environ.get("ROS_DOMAIN_ID", "0")), kitchen, log_dir, overrides)
    try:
        graph.wait_ready(READY_TIMEOUT_S, log_dir)
    except RuntimeError as failure:
        graph.close()
        raise SystemExit(str(failure)) from None
    return graph, episodes


def _send(graph: SimGraph, episodes: EpisodeFile, goal: SoakGoal) -> PlanResult:
    """Reset the world to the goal's episode and run the goal."""
    result, _world = graph.run(
        episodes.episode(goal.episode_id),
        Path(episodes.source),
        GOAL_TIMEOUT_S,
        planner=goal.planner,
        plan_only=goal.plan_only,
    )
    return result


class NodeExited(RuntimeError):
    """A node of the graph exited during the soak; the message names it and its log."""


def _check_alive(graph: SimGraph) -> None:
    for process in graph.processes:
        if process.returncode is not None:
            raise NodeExited(f"{process.log_path.stem} exited with status {process.returncode}; see {process.log_path}")


def _counts(outcomes: Mapping[str, Counter[str]]) -> tuple[int, int]:
    """Goals sent and goals that ended ``done``."""
    return sum(sum(c.values()) for c in outcomes.values()), sum(c["done"] for c in outcomes.values())


def _print_report(
    console: Any,
    growth: list[NodeGrowth],
    samples: list[Sample],
    outcomes: Mapping[str, Counter[str]],
    threshold: float,
    wall_s: float,
) -> None:
    from rich.table import Table

    table = Table(title="RSS per node (MiB)")
    for column in ("node", "start", "after warm-up", "end", "max", "growth %"):
        table.add_column(column, justify="left" if column == "node" else "right")
    for node in growth:
        style = "red" if node.growth_pct > threshold else ""
        table.add_row(
            node.node,
            f"{samples[0].rss_bytes[node.node] / MIB:.1f}",
            f"{node.warmup_bytes / MIB:.1f}",
            f"{node.end_bytes / MIB:.1f}",
            f"{node.max_bytes / MIB:.1f}",
            f"{node.growth_pct:+.1f}",
            style=style,
        )
    console.print(table)
    sent, succeeded = _counts(outcomes)
    goals_per_minute = 60.0 * sent / wall_s if wall_s > 0 else 0.0
    console.print(f"{sent} goals in {wall_s:.0f} s ({goals_per_minute:.1f} goals per minute); {succeeded} succeeded")
    for label, counts in sorted(outcomes.items()):
        others = ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items()) if reason != "done")
        console.print(
            f"  {label:<28} {counts['done']}/{sum(counts.values())} done" + (f" ({others})" if others else ""),
            soft_wrap=True,
        )


def _write_json(
    args: argparse.Namespace,
    recording: Path,
    pids: Mapping[str, int | None],
    samples: list[Sample],
    growth: list[NodeGrowth],
    outcomes: Mapping[str, Counter[str]],
    failures: list[dict[str, Any]],
    grew: list[str],
    wall_s: float,
    error: str,
) -> None:
    sent, succeeded = _counts(outcomes)
    report = {
        "instructions": args.instructions,
        "warmup": args.warmup,
        "sample_every": args.sample_every,
        "threshold_pct": args.threshold,
        "recording": str(recording),
        "episodes_file": str(EPISODES_FILE),
        "workload": [asdict(goal) for goal in WORKLOAD],
        "nodes": dict(pids),
        "samples": [asdict(sample) for sample in samples],
        "growth": {g.node: {**asdict(g), "growth_pct": g.growth_pct} for g in growth},
        "grew": grew,
        "goals": sent,
        "succeeded": succeeded,
        "outcomes": {label: dict(counts) for label, counts in sorted(outcomes.items())},
        "failures": failures,
        "wall_s": wall_s,
        "goals_per_minute": 60.0 * sent / wall_s if wall_s > 0 else 0.0,
        "error": error,
    }
    write_json(args.json, report)

r"""``llm-planner bench kitchen``: plan success, execution success, Exec and GCR over an episode file.

    llm-planner bench kitchen --episodes domains/saycan_kitchen/dev.yaml --planner saycan \
        [--ablation no_affordance|generative] [--execution-failures] [--seed N] \
        [--json PATH] [--report PATH.md] [--plot PATH.png] [--ros] [--sim physics] [--limit N] [--ids a,b] \
        [--option KEY=VALUE ...] [--scene truth|perceived] [--affordances analytic|learned]

By default the planner, affordance model and simulator classes run in this process (fast); with
``--ros`` every episode goes through the real node graph (evaluation.ros_runner); ``--sim physics`` (implies
``--ros``) through the physics graph, where the PyBullet kitchen decides every skill's outcome; there
``--scene perceived`` has the planner side read perception's scene (each episode starts with the demo's
look around) while episodes are still judged on the simulator's ground truth. ``--affordances learned``
(with ``--ros``) serves the learned value functions from the affordance server. ``--llm KEY=VALUE``
sets the language model (the fields of llm_planner_ros.llm.factory.LLMConfig; default: the embedded
SmolLM2), e.g. ``--llm backend=replay --llm recording=run.jsonl``. ``--option KEY=VALUE`` overrides one
option of the planner's section of config/planners.yaml for this run (the value is read as YAML), e.g.
``--option examples=none --option retrieved_examples=4``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.bench_report import add_json_argument, progress_bar, write_json
from llm_planner_ros.paths import default_domain

DEFAULT_EPISODES = default_domain() / "dev.yaml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--episodes",
        type=Path,
        default=None,
        help=f"episode file (default {DEFAULT_EPISODES}, or the --domain folder's episodes.yaml)",
    )
    parser.add_argument(
        "--domain",
        type=Path,
        default=None,
        help="a domain folder (docs/domains.md): plan in its world and skills (in-process or with --ros)",
    )
    parser.add_argument("--planner", default="saycan", help="saycan | zero_shot | llm_planner | progprompt")
    parser.add_argument("--ablation", default=None, help="saycan only: no_affordance | generative")
    parser.add_argument(
        "--execution-failures",
        action="store_true",
        help="also run every episode with the simulator's seeded skill failures (execution success)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the injected failures")
    parser.add_argument(
        "--llm", action="append", default=[], metavar="KEY=VALUE", help="language model setting (repeatable)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override an option of the planner's section of config/planners.yaml (repeatable)",
    )
    parser.add_argument("--ros", action="store_true", help="run through the real node graph instead of in-process")
    parser.add_argument(
        "--no-checks",
        action="store_true",
        help="in process: plan every request without the planner node's checks (hold back, missing objects), "
        "to measure what they change",
    )
    parser.add_argument(
        "--sim",
        choices=("symbolic", "physics"),
        default="symbolic",
        help="physics: run through the physics graph (PyBullet kitchen, nav2/moveit executors; implies --ros)",
    )
    parser.add_argument(
        "--scene",
        choices=("truth", "perceived"),
        default="truth",
        help="--sim physics: the planner side reads the simulator's truth or perception's scene (judged on truth)",
    )
    parser.add_argument(
        "--affordances",
        choices=("analytic", "learned"),
        default="analytic",
        help="--ros: the affordance server's backend (learned: value functions, docs/value_functions.md)",
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N episodes (0: all)")
    parser.add_argument("--ids", default="", help="only these comma-separated episode ids")
    add_json_argument(parser, "the summary and every episode")
    parser.add_argument("--report", type=Path, help="write a Markdown report")
    parser.add_argument("--plot", type=Path, help="write a per-family success chart (PNG)")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from llm_planner_ros.domain.episodes import load_episodes
    from llm_planner_ros.evaluation.kitchen_benchmark import (
        NotRun,
        evaluate_episode,
        evaluate_episodes,
        runs_as_dicts,
        summarize,
    )
    from llm_planner_ros.evaluation.kitchen_report import markdown_report, write_family_chart
    from llm_planner_ros.llm.factory import method_llm_config
    from llm_planner_ros.options import parse_key_values

    if args.sim == "physics" and args.execution_failures:
        raise SystemExit("--sim physics injects no failures (physics decides each outcome): drop --execution-failures")
    if args.scene == "perceived" and args.sim != "physics":
        raise SystemExit("--scene perceived needs --sim physics (only the physics simulation renders camera images)")
    if args.affordances == "learned" and not (args.ros or args.sim == "physics"):
        raise SystemExit("--affordances learned needs --ros or --sim physics (the affordance server serves it)")
    console = Console()
    kitchen, args.episodes = _domain_and_episodes(args)
    episodes = list(load_episodes(args.episodes, kitchen))
    if args.ids:
        wanted = set(args.ids.split(","))
        missing = wanted - {e.id for e in episodes}
        if missing:
            raise SystemExit(f"episode id(s) not in {args.episodes}: {', '.join(sorted(missing))}")
        episodes = [e for e in episodes if e.id in wanted]
    if args.limit:
        episodes = episodes[: args.limit]
    llm_config = method_llm_config(parse_key_values(args.llm), args.planner, kitchen)
    if args.domain is not None:
        console.print(f"domain {kitchen.config.world} ({args.domain}); adapter: {llm_config.get('adapter', 'auto')}")
    options = _planner_options(args)

    label = args.planner + (f" ({args.ablation})" if args.ablation else "")
    runs: list[Any] = []
    not_run: list[Any] = []
    started = time.perf_counter()

    def result(complete: bool, model: Any) -> dict[str, Any]:
        return {
            "planner": args.planner,
            "ablation": args.ablation or "none",
            "episodes_file": str(args.episodes),
            "model": model.name if model is not None else llm_config.get("backend", "hf"),
            "ros": args.ros or args.sim == "physics",
            "sim": args.sim,
            "scene": args.scene,
            "affordances": args.affordances,
            "planner_options": options.get(args.planner, {}),
            "execution_failures": args.execution_failures,
            "seed": args.seed,
            "complete": complete,
            "wall_s": time.perf_counter() - started,
            **summarize(runs),
            "runs": runs_as_dicts(runs),
            "not_run": [asdict(n) for n in not_run],
        }

    with _runner(args, kitchen, llm_config, options, console) as (runner, model):
        with progress_bar(console, "episodes", len(episodes)) as progress:

            def evaluate(episode: Any) -> Any:
                progress.show(f"{episode.id:<24}")
                return evaluate_episode(episode, kitchen, runner, model, args.execution_failures)

            for episode, outcome in evaluate_episodes(episodes, evaluate):
                if isinstance(outcome, NotRun):
                    not_run.append(outcome)
                    progress.say(f"{episode.id:<24} [yellow]not run[/yellow]  {outcome.error}")
                else:
                    runs.append(outcome)
                    mark = "[green]ok[/green]" if outcome.plan_success else f"[red]{outcome.failure}[/red]"
                    progress.say(f"{episode.id:<24} {mark}  {', '.join(outcome.plan)}")
                # After every episode, so a run stopped midway keeps what it measured.
                write_json(args.json, result(False, model), partial=True)
                progress.advance()

    final = result(True, model)
    write_json(args.json, final)
    if not_run:
        ids = ", ".join(n.id for n in not_run)
        console.print(f"[yellow]{len(not_run)} episode(s) not run, left out of every number: {ids}")
    if not runs:
        console.print("[red]no episode ran")
        return 1
    summary = summarize(runs)
    console.print(markdown_report(summary, f"kitchen benchmark: {label} on {args.episodes}"))
    console.print(
        f"plan_success {summary['plan_success']:.3f}  execution_success {summary['execution_success']:.3f}  "
        f"exec {summary['exec']:.3f}  gcr {summary['gcr']:.3f}  failed skill attempts {summary['failed_skills']}  "
        f"({final['wall_s']:.0f} s)"
    )
    if summary["held_back"] is not None:
        console.print(f"held_back {summary['held_back']:.3f}: requests that needed nothing done, no skill dispatched")
    if summary["false_refusals"] is not None:
        console.print(f"false_refusals {summary['false_refusals']:.3f}: tasks refused or ended nothing_to_do")
    if summary["scored_steps"]:
        console.print(
            f"the affordance overturned the language model's first choice at {summary['overturned_steps']} of "
            f"{summary['scored_steps']} scored steps (a lower bound: pruned skills are not scored)"
        )
    if args.execution_failures:
        console.print(f"{summary['execution_failed_skills']} skill attempts failed in the pass with injected failures")
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(markdown_report(summary, f"Kitchen benchmark: {label} on {args.episodes}"))
    if args.plot:
        write_family_chart(summary, args.plot, f"{label} on {args.episodes}")
    return 1 if not_run else 0


def _domain_and_episodes(args: argparse.Namespace) -> tuple[Any, Path]:
    """The kitchen the bench plans in (``--domain``'s, else the packaged one) and its episode file."""
    from llm_planner_ros.domain.definition import load_domain_files
    from llm_planner_ros.domain.domain_folder import EPISODES_FILE, domain_folder, load_domain

    if args.domain is None:
        return load_domain_files(), args.episodes or DEFAULT_EPISODES
    folder = domain_folder(args.domain)
    if args.episodes is None and folder.episodes is None:
        raise SystemExit(f"domain folder {folder.path} has no {EPISODES_FILE}: give --episodes FILE")
    return load_domain(folder.path), args.episodes or folder.episodes


def _planner_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    from llm_planner_ros.options import parse_key_values
    from llm_planner_ros.planning.registry import PLANNERS, load_planner_options, override_options

    if args.planner not in PLANNERS:
        raise SystemExit(f"unknown planner {args.planner!r}; choose one of {', '.join(PLANNERS)}")
    options = load_planner_options()
    override_options(options, args.planner, parse_key_values(args.option, "--option"))
    if args.ablation:
        if args.planner != "saycan":
            raise SystemExit("--ablation applies to --planner saycan only")
        options[args.planner]["ablation"] = args.ablation
    return options


class _runner:
    """Context manager giving (runner, counting model or None): in-process, or the ROS graphs."""

    def __init__(
        self,
        args: argparse.Namespace,
        kitchen: Any,
        llm_config: dict[str, str],
        options: dict[str, dict[str, Any]],
        console: Any,
    ) -> None:
        self._args, self._kitchen, self._llm, self._options, self._console = args, kitchen, llm_config, options, console
        self._closer: Any = None

    def __enter__(self) -> tuple[Any, Any]:
        if self._args.ros or self._args.sim == "physics":
            return self._ros(), None
        from llm_planner_ros.domain.failures import FailureInjector
        from llm_planner_ros.evaluation.kitchen_benchmark import plan_in_process
        from llm_planner_ros.llm.counting_model import CountingModel
        from llm_planner_ros.llm.factory import load_embedder, load_language_model
        from llm_planner_ros.planning.registry import PlannerResources, build_planner
        from llm_planner_ros.planning.request_loop import RequestChecks

        with self._console.status("loading the language model"):
            model = CountingModel(load_language_model(self._llm))
        resources = PlannerResources(model, self._kitchen, lambda: load_embedder({}), self._options)
        planner = build_planner(self._args.planner, resources)
        probabilities = self._kitchen.library.failure_probability
        # The planner node's checks (hold back, missing objects), unless --no-checks measures without them.
        checks = None if self._args.no_checks else RequestChecks.of_domain(self._kitchen, resources.embedder)

        def runner(episode: Any, failures: bool) -> Any:
            injector = FailureInjector(probabilities, seed=self._args.seed, enabled=True) if failures else None
            return plan_in_process(planner, episode, self._kitchen, injector, checks)

        return runner, model

    def _ros(self) -> Any:
        import yaml

        from llm_planner_ros.bringup.options import GraphOptions
        from llm_planner_ros.evaluation.ros_runner import RosKitchenRunner

        work = Path(tempfile.mkdtemp(prefix="kitchen-bench-"))
        planners_file = work / "planners.yaml"
        planners_file.write_text(yaml.safe_dump(self._options))
        with self._console.status(f"starting the node graphs (logs in {work})"):
            self._closer = RosKitchenRunner(
                self._kitchen,
                self._args.episodes,
                work,
                self._llm,
                self._args.planner,
                planners_file,
                self._args.seed,
                self._args.execution_failures,
                self._args.sim,
                self._args.scene,
                self._args.affordances,
                GraphOptions.parse(domain=self._args.domain),
            )
        return self._closer

    def __exit__(self, *exc: object) -> None:
        if self._closer is not None:
            self._closer.__exit__(*exc)

r"""``llm-planner domain build DIR``: the example bank of a domain folder (``training.domain_bank``), its
adapters and SayCanPay's Can and Pay models.

    llm-planner domain build domains/office [--train FILE] [--exclude FILE ...] [--out FILE] \
        [--generate N --seed S] [--adapter [METHOD ...] --adapter-examples N --max-minutes M [--resume FILE]] \
        [--saycanpay [--saycanpay-epochs N] [--saycanpay-resume]]

Writes ``DIR/bank.jsonl`` from ``DIR/train.yaml``, ``--generate`` tasks written from the domain's files
(``planning.domain_tasks``) and ``--hold-back`` requests to end at once with ``done`` (stop, out of scope,
unsafe: ``training.domain_bank.hold_back_examples``), leaving out any request that an evaluation file
(``DIR/episodes.yaml``, ``DIR/dev.yaml``, each ``--exclude``) holds. ``--adapter`` then trains one adapter on
the bank for the methods it names (saycan, progprompt, llm_planner, zero_shot; none named: saycan) and writes
it as ``DIR/adapters/<method>.safetensors`` for each (``llm-planner train saycan-adapter``). ``--saycanpay`` trains
SayCanPay's Can and Pay models on the bank's plans (``llm-planner train saycanpay --domain-folder``) as
``DIR/saycanpay/can.safetensors`` and ``pay.safetensors``, which ``planner: saycanpay`` uses in that domain;
``--saycanpay-resume`` continues them from their checkpoints. Exit status 1 when an episode has no plan or
nothing was written.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import (
    ADAPTERS_FOLDER,
    BANK_FILE,
    DEV_FILE,
    EPISODES_FILE,
    TRAIN_FILE,
    DomainFolderError,
    domain_folder,
    general_adapter_file,
)
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.llm.factory import default_domain_adapter
from llm_planner_ros.options import finite_float
from llm_planner_ros.planning.domain_tasks import generate_examples, held_out_requests, normalized
from llm_planner_ros.planning.saycan.bank import PlanExample, save_bank
from llm_planner_ros.training.domain_bank import bank_example, hold_back_examples

# Requests to hold back on that a bank gets by default: none. An office SayCan adapter stage trained on a bank
# with 150 of them (9%) ended 4 of the 30 dev tasks `nothing_to_do` (plan success 90.0% -> 86.7%;
# docs/benchmarks.md, "Holding back"); the planner's hold-back model decides such requests before any method.
HOLD_BACK_EXAMPLES = 0
# The methods whose prompt the adapter trainer writes in any domain.
ADAPTER_METHODS = ("saycan", "progprompt", "llm_planner", "zero_shot")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("domain", type=Path, help="the domain folder (world.yaml, skills.yaml, train.yaml)")
    parser.add_argument("--train", type=Path, help=f"training episodes (default: DIR/{TRAIN_FILE})")
    parser.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help=f"an evaluation episode file whose requests the bank must not hold (DIR/{EPISODES_FILE} and "
        f"DIR/{DEV_FILE} always are)",
    )
    parser.add_argument("--out", type=Path, help=f"the bank to write (default: DIR/{BANK_FILE})")
    parser.add_argument("--generate", type=int, default=0, help="tasks generated from the domain's files (default 0)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated tasks and of the adapter's training")
    parser.add_argument(
        "--hold-back",
        type=int,
        default=HOLD_BACK_EXAMPLES,
        help=f"requests to hold back on (stop, out of scope, unsafe), each planned `done`, generated from the "
        f"domain's names (default {HOLD_BACK_EXAMPLES}: an adapter trained on them learned to end tasks too)",
    )
    parser.add_argument(
        "--adapter",
        nargs="*",
        choices=ADAPTER_METHODS,
        help="also train one adapter on the bank for these methods (none named: saycan), written as "
        "DIR/adapters/<method>.safetensors for each",
    )
    parser.add_argument("--adapter-examples", type=int, default=1200, help="training dialogs of the adapter")
    parser.add_argument(
        "--max-minutes", type=finite_float, default=45.0, help="the adapter's training stops after this long"
    )
    parser.add_argument(
        "--resume",
        type=Path,
        help="adapter to continue (default: the domain's SayCan adapter for other methods, else the default domain's)",
    )
    parser.add_argument(
        "--saycanpay", action="store_true", help="also train SayCanPay's Can and Pay models on the bank's plans"
    )
    parser.add_argument(
        "--saycanpay-epochs", type=int, default=20, help="most epochs of each SayCanPay model (default 20; patience 3)"
    )
    parser.add_argument(
        "--saycanpay-resume", action="store_true", help="continue the SayCanPay models from their checkpoints"
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from llm_planner_ros.evaluation.bench_report import progress_bar

    console = Console()
    folder = domain_folder(args.domain)
    kitchen = load_domain_files(folder.world, folder.skills)
    train = args.train or folder.path / TRAIN_FILE
    # Generated tasks alone make a bank: a folder without training episodes needs none written.
    if not train.is_file() and (args.train is not None or not args.generate):
        raise DomainFolderError(
            f"no training episodes at {train}: write the episodes the bank is built from there "
            f"(docs/domains.md, 'Examples for every method'), give --train FILE, or generate tasks from "
            "the domain's files with --generate N"
        )
    held_out = [path for path in (folder.episodes, folder.development) if path is not None]
    excluded = held_out_requests([*held_out, *args.exclude], kitchen)
    episodes, raw = [], {}
    if train.is_file():
        episodes = load_episodes(train, kitchen)
        raw = {str(item["id"]): item for item in yaml.safe_load(train.read_text(encoding="utf-8"))["episodes"]}
    out = args.out or folder.path / BANK_FILE
    started = time.perf_counter()
    examples: list[PlanExample] = []
    overlap: list[str] = []
    unsolved: list[str] = []
    with progress_bar(console, "training episodes", len(episodes)) as progress:
        for episode in episodes:
            progress.show(f"{episode.id:<24}")
            clash = excluded.get(normalized(episode.instruction))
            example = None if clash else bank_example(episode, raw[episode.id], kitchen)
            if clash:
                overlap.append(episode.id)
                progress.say(f"{episode.id:<24} [yellow]left out[/yellow]  its request is evaluated ({clash})")
            elif example is None:
                unsolved.append(episode.id)
                progress.say(f"{episode.id:<24} [red]no plan[/red] within max_steps {episode.max_steps}")
            else:
                examples.append(example)
                progress.say(f"{episode.id:<24} {', '.join(example.steps)}")
            progress.advance()
    if args.generate:
        known = [*excluded, *(normalized(example.instruction) for example in examples)]
        with progress_bar(console, "generated tasks", args.generate) as progress:
            for example in generate_examples(kitchen, args.generate, args.seed, known):
                examples.append(example)
                progress.advance()
    if args.hold_back < 0:
        raise DomainFolderError(f"--hold-back is {args.hold_back}: give 0 or more")
    examples += hold_back_examples(kitchen, args.hold_back, args.seed)
    written = save_bank(examples, out)
    console.print(
        f"wrote {written} examples to {out} in {time.perf_counter() - started:.1f} s; "
        f"{len(overlap)} training request(s) equal an evaluated one (checked against "
        f"{len(excluded)} held-out request(s)), {len(unsolved)} without a plan"
    )
    if unsolved or not written:
        return 1
    status = 0
    if args.adapter is not None:
        status = train_domain_adapter(folder.path, out, args.adapter or ["saycan"], args, console)
    if args.saycanpay and status == 0:
        status = train_saycanpay_models(folder.path, out, args, console)
    return status


def train_saycanpay_models(folder: Path, bank: Path, args: argparse.Namespace, console: Any) -> int:
    """SayCanPay's Can and Pay models trained on the plans of ``bank`` (``llm-planner train saycanpay``),
    written where ``planner: saycanpay`` looks for them in the domain (``domain_scorer_file``)."""
    if bank != folder / BANK_FILE:
        console.print(f"[red]--saycanpay trains on the domain's own bank {folder / BANK_FILE}[/red]: leave out --out")
        return 1
    from llm_planner_ros.cli.main import run_command

    for kind in ("can", "pay"):
        console.print(f"training SayCanPay's {kind} model of {folder} on {bank}")
        status = run_command(
            [
                *("train", "saycanpay", kind),
                *("--domain-folder", str(folder), "--epochs", str(args.saycanpay_epochs)),
                *("--seed", str(args.seed), "--patience", "3"),
                *(["--pay-same-plan-negatives"] if kind == "pay" else []),
                *(["--resume"] if args.saycanpay_resume else []),
            ]
        )
        if status != 0:
            return status
    return 0


def starting_adapter(adapters: Path, methods: list[str], resume: str | None) -> Path:
    """What a domain's adapter for ``methods`` continues: ``resume``, else the domain's SayCan adapter (in
    ``adapters``) for the other methods (as the kitchen's method adapters continue its SayCan adapter), else
    the general SayCan adapter trained across generated domains (``domain_folder.general_adapter_file``), else
    the kitchen's: both know the format."""
    own = adapters / "saycan.safetensors"
    if resume:
        return Path(resume)
    if methods != ["saycan"] and own.is_file():
        return own
    return general_adapter_file("saycan") or default_domain_adapter("saycan")


def train_domain_adapter(folder: Path, bank: Path, methods: list[str], args: argparse.Namespace, console: Any) -> int:
    """One adapter trained on ``bank`` for ``methods`` (``llm-planner train saycan-adapter``), written for each of
    them, continuing ``starting_adapter``."""
    from llm_planner_ros.cli.main import run_command

    adapters = folder / ADAPTERS_FOLDER
    adapters.mkdir(exist_ok=True)
    out = adapters / f"{methods[0]}.safetensors"
    start = starting_adapter(adapters, methods, args.resume)
    console.print(f"training {out} for {', '.join(methods)} on {bank}, from {start}")
    status = run_command(
        [
            *("train", "saycan-adapter"),
            *("--bank", str(bank), "--domain", str(folder), "--method", *methods, "--out", str(out)),
            *("--resume", str(start), "--examples", str(args.adapter_examples), "--seed", str(args.seed)),
            *("--max-minutes", str(args.max_minutes), "--lr", "4e-4"),
            # As the planners run with an adapter of their own: no examples shown, the scene in the prompt.
            *("--program-examples", "none", "--scene-context"),
        ]
    )
    for method in methods[1:]:
        shutil.copyfile(out, adapters / f"{method}.safetensors")
    return status

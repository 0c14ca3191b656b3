r"""Train SayCanPay's Can or Pay model (arXiv 2308.12682, section 6) from expert plans, on a CPU.

    llm-planner train saycanpay can --episodes benchmarks/babyai/train.txt \
        --out data/saycanpay/babyai_can.safetensors [--epochs 20] [--seed 0] [--state-negatives 2] [--resume]
    llm-planner train saycanpay pay --episodes benchmarks/babyai/train.txt \
        --out data/saycanpay/babyai_pay.safetensors [--delta 0.9]
    llm-planner train saycanpay can --domain kitchen --plans 2000 \
        --out domains/saycan_kitchen/saycanpay/can.safetensors [--data-seed 1] [--exclude FILE ...]
    llm-planner train saycanpay can --domain-folder domains/office \
        [--out domains/office/saycanpay/can.safetensors]

The expert plans (``saycanpay_trajectories``): with ``--domain babyai`` the episodes of a split file;
with ``--domain kitchen`` ``--plans`` requests written by the SayCan bank's generator (seeded by
``--data-seed``), none equal to a request of the ``--exclude`` files (default: the kitchen dev suite and
the held-out instructions), with A* oracle plans; with ``--domain-folder DIR`` (a domain of the
kitchen's format, docs/domains.md) the plans of the folder's example bank, which ``llm-planner domain
build`` wrote without any request of its evaluation episodes, and the weights go to
``DIR/saycanpay/<kind>.safetensors`` unless ``--out`` says otherwise. The plans are split by plan into training and
validation (``--val-fraction``, seeded): the validation plans are never trained on. Every step t of an
expert plan is a positive (goal, history a_1..a_{t-1}, next action a_t).

- Can: each positive comes with a negative from the same plan at another step (a different action
  text) and one from another plan, as in the paper, and with up to ``--state-negatives`` hard
  negatives: actions of the episode that the environment's rules reject in the state before the step
  (``llm_planner_ros.babyai_domain.world.judged_actions``: e.g. picking up an object in a room behind a locked door, or
  with full hands), so that feasibility has to be read off the initial observation and the history.
  A paper-style negative that the rules allow in that state is not used (it is no negative). The loss
  is the paper's InfoNCE over each group's sigmoid outputs, plus their binary cross-entropy so that
  one output alone reads as a probability. Validation: F1 of output > 0.5 over the same groups (fixed
  negatives), and the fraction of the state-rejected negatives scored <= 0.5.
- Pay: a positive's target is the discounted reward delta^(T-t) (the last action, ``done``, gets 1);
  each positive comes with a negative action from another plan with target 0 and, with
  ``--pay-same-plan-negatives``, one from the same plan at another step (a different action text), as
  the Can negatives are drawn ("akin to the Can model"): without it an action repeated after its own
  step ("bring it to you" twice) is never a training input and can keep a high payoff; the loss is
  the mean squared error, reported on the validation triples.

Can's input carries the observation sentence of the action's object (``model_units(..., locate=True)``,
recorded in the weight file's architecture with the domain); Pay's does not.

Negatives are drawn again each epoch from ``--seed`` and the epoch, so a run is reproducible. With
``--patience N`` training stops after N epochs without a better validation score. After
every epoch a checkpoint (network, optimiser, epoch, best score) is written next to ``--out``
(``.ckpt``); ``--resume`` continues from it. ``--out`` holds the weights of the epoch with the best
validation score.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import BANK_FILE, domain_folder, domain_scorer_file
from llm_planner_ros.domain.skill_library import SkillLibrary
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.options import finite_float
from llm_planner_ros.planning.saycanpay.models import DOMAINS, Scorer, ScorerConfig, model_units, words
from llm_planner_ros.training.saycanpay_trajectories import (
    KITCHEN_EXCLUDE,
    Trajectory,
    babyai_trajectories,
    domain_trajectories,
    kitchen_trajectories,
)


@dataclass(frozen=True)
class Example:
    """One model input (``model_units``) and its target (can: 1 positive / 0 negative; pay: the discounted reward)."""

    units: list[tuple[int, str]]
    target: float
    state_negative: bool = False


def split_trajectories(
    trajectories: Sequence[Trajectory], val_fraction: float, seed: int
) -> tuple[list[Trajectory], list[Trajectory]]:
    order = list(range(len(trajectories)))
    random.Random(seed).shuffle(order)
    cut = round(len(order) * val_fraction)
    return [trajectories[i] for i in order[cut:]], [trajectories[i] for i in order[:cut]]


def groups(
    kind: str,
    trajectories: Sequence[Trajectory],
    delta: float,
    rng: random.Random,
    state_negatives: int = 0,
    domain: str = "babyai",
    pay_same_plan: bool = False,
    library: SkillLibrary | None = None,
) -> list[list[Example]]:
    """One group per expert step: the positive first, then its negatives (see the module docstring)."""
    result: list[list[Example]] = []
    locate = kind == "can"
    for index, trajectory in enumerate(trajectories):
        others = [t for i, t in enumerate(trajectories) if i != index] or list(trajectories)
        steps = len(trajectory.plan)
        for t, action in enumerate(trajectory.plan):

            def text(candidate: str, t: int = t, trajectory: Trajectory = trajectory) -> list[tuple[int, str]]:
                skills = trajectory.library or library
                return model_units(
                    trajectory.goal, trajectory.initial_state, trajectory.plan[:t], candidate, locate, domain, skills
                )

            other = _different(rng, [a for o in rng.sample(others, min(5, len(others))) for a in o.plan], action)
            if kind == "can":
                same = _different(rng, list(trajectory.plan), action)
                allowed = trajectory.allowed[t] if trajectory.allowed else frozenset()
                negatives = [n for n in (same, other) if n is not None and n not in allowed]
                rejected = list(trajectory.rejected[t]) if trajectory.rejected else []
                hard = rng.sample(rejected, min(state_negatives, len(rejected)))
                result.append(
                    [
                        Example(text(action), 1.0),
                        *(Example(text(n), 0.0) for n in negatives),
                        *(Example(text(n), 0.0, state_negative=True) for n in hard),
                    ]
                )
            else:
                same = _different(rng, list(trajectory.plan), action) if pay_same_plan else None
                group = [Example(text(action), delta ** (steps - 1 - t))]
                result.append(group + [Example(text(n), 0.0) for n in (other, same) if n is not None])
    return result


def _different(rng: random.Random, actions: list[str], action: str) -> str | None:
    choices = [a for a in actions if a != action]
    return rng.choice(choices) if choices else None


def group_loss(kind: str, scorer: Scorer, batch: Sequence[Sequence[Example]]) -> torch.Tensor:
    flat = [example for group in batch for example in group]
    logits = scorer.logits([e.units for e in flat])
    targets = torch.tensor([e.target for e in flat])
    if kind == "pay":
        return F.mse_loss(torch.sigmoid(logits), targets)
    loss = F.binary_cross_entropy_with_logits(logits, targets)
    start = 0
    info_nce = []
    for group in batch:
        log_p = F.logsigmoid(logits[start : start + len(group)])
        info_nce.append(-(log_p[0] - torch.logsumexp(log_p, dim=0)))
        start += len(group)
    return loss + torch.stack(info_nce).mean()


@torch.no_grad()
def validate(kind: str, scorer: Scorer, examples: Sequence[Example]) -> dict[str, float]:
    """can: precision, recall, F1 of output > 0.5 and the fraction of state-rejected negatives at
    <= 0.5 (``state_rejected``); pay: MSE. Higher ``score`` is better (F1, or -MSE)."""
    scorer.network.eval()
    outputs: list[float] = []
    for start in range(0, len(examples), 256):
        chunk = examples[start : start + 256]
        outputs += torch.sigmoid(scorer.logits([e.units for e in chunk])).tolist()
    targets = [e.target for e in examples]
    if kind == "pay":
        mse = sum((o - t) ** 2 for o, t in zip(outputs, targets, strict=True)) / len(targets)
        return {"mse": mse, "score": -mse}
    tp = sum(o > 0.5 and t == 1.0 for o, t in zip(outputs, targets, strict=True))
    fp = sum(o > 0.5 and t == 0.0 for o, t in zip(outputs, targets, strict=True))
    fn = sum(o <= 0.5 and t == 1.0 for o, t in zip(outputs, targets, strict=True))
    precision = tp / max(tp + fp, 1)
    recall = tp / max(tp + fn, 1)
    f1 = 2 * precision * recall / max(precision + recall, 1e-9)
    hard = [o for o, e in zip(outputs, examples, strict=True) if e.state_negative]
    rejected = sum(o <= 0.5 for o in hard) / max(len(hard), 1)
    return {"precision": precision, "recall": recall, "f1": f1, "state_rejected": rejected, "score": f1}


def all_units(trajectory: Trajectory) -> list[tuple[int, str]]:
    """Every sentence a plan's inputs contain (to embed them all at once; a located sentence is one of
    the observation's)."""
    *history, last = trajectory.plan
    return model_units(trajectory.goal, trajectory.initial_state, history, last)


def load_trajectories(args: argparse.Namespace) -> tuple[list[Trajectory], str]:
    """The expert plans of ``--domain`` and a line saying where they came from (for the weight file)."""
    if args.domain == "babyai":
        return babyai_trajectories(args.episodes), str(args.episodes)
    if args.domain_folder:
        trajectories, banks = [], []
        for folder, kitchen in zip(args.domain_folder, args.kitchens, strict=True):
            bank = folder.path / BANK_FILE
            if not bank.is_file():
                raise SystemExit(
                    f"no example bank at {bank}: build it first with `llm-planner domain build {folder.path}`"
                )
            trajectories += domain_trajectories(kitchen, bank)
            banks.append(shown_path(bank))
        shown = banks[0] if len(banks) == 1 else f"{len(banks)} banks ({banks[0]} ... {banks[-1]})"
        return trajectories, f"the {len(trajectories)} plans of {shown}"
    started = time.perf_counter()
    exclude = args.exclude or list(KITCHEN_EXCLUDE)
    trajectories = kitchen_trajectories(load_domain_files(), args.plans, args.data_seed, exclude)
    steps = sum(len(t.plan) for t in trajectories)
    print(
        f"generated {len(trajectories)} kitchen plans ({steps} steps) in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    source = (
        f"{args.plans} generated kitchen requests (seed {args.data_seed}), excluding {', '.join(map(str, exclude))}"
    )
    return trajectories, source


def shown_path(path: Path) -> str:
    """``path`` relative to the current folder when it lies under it (a weight file records no machine's
    absolute paths), else as it is."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def train(args: argparse.Namespace) -> dict[str, object]:
    """Train, checkpointing every epoch; returns the training record stored in the weight file."""
    torch.set_num_threads(args.threads)
    trajectories, source = load_trajectories(args)
    training_set, validation_set = split_trajectories(trajectories, args.val_fraction, args.seed)
    embedder: Embedder = load_embedder({})
    vocabulary = sorted({w for t in training_set for _, text in all_units(t) for w in words(text)})
    input_dim = embedder.embed(["probe"]).shape[1] + len(vocabulary)
    # A model of several domains records no world: any domain may load it (the general models).
    world = args.kitchens[0].config.world if len(args.kitchens) == 1 else ""
    config = ScorerConfig(
        input_dim=input_dim,
        dim=args.dim,
        layers=args.layers,
        heads=args.heads,
        locate=args.kind == "can",
        domain=args.domain,
        world=world,
    )
    library = args.kitchens[0].library if len(args.kitchens) == 1 else None
    scorer = Scorer.fresh(args.kind, embedder, vocabulary, config, args.seed, library)
    started = time.perf_counter()
    scorer.sentences.add(sorted({text for t in trajectories for _, text in all_units(t)}))
    print(f"embedded the sentences of {len(trajectories)} plans in {time.perf_counter() - started:.0f} s", flush=True)
    optimizer = torch.optim.AdamW(scorer.network.parameters(), lr=args.lr, weight_decay=1e-5)
    state_negatives = args.state_negatives if args.kind == "can" else 0
    same_plan = args.kind == "pay" and args.pay_same_plan_negatives
    rng = random.Random(args.seed)
    validation_groups = groups(
        args.kind, validation_set, args.delta, rng, state_negatives, args.domain, same_plan, library
    )
    validation = [e for g in validation_groups for e in g]
    checkpoint = Path(f"{args.out}.ckpt")
    first_epoch, best, best_epoch, elapsed = 0, float("-inf"), 0, 0.0
    if args.resume:
        if not checkpoint.is_file():
            raise SystemExit(f"no checkpoint at {checkpoint} to resume: run once without --resume")
        saved = torch.load(checkpoint, weights_only=False)
        if (
            saved["config"] != asdict(config)
            or saved.get("state_negatives", 0) != state_negatives
            or saved.get("pay_same_plan_negatives", False) != same_plan
        ):
            raise SystemExit(f"{checkpoint} was trained on other data or another architecture: start without --resume")
        scorer.network.load_state_dict(saved["network"])
        optimizer.load_state_dict(saved["optimizer"])
        first_epoch, best, elapsed = saved["epoch"], saved["best"], saved["seconds"]
        best_epoch = saved.get("best_epoch", first_epoch)
        print(f"resumed from {checkpoint} after epoch {first_epoch} (best {best:.4f})", flush=True)
    record: dict[str, object] = {
        "command": args.command_line,
        "domain": args.domain,
        "episodes": source,
        "train_trajectories": len(training_set),
        "val_trajectories": len(validation_set),
        "val_examples": len(validation),
        "state_negatives": state_negatives,
        "pay_same_plan_negatives": same_plan,
        "delta": args.delta,
        "seed": args.seed,
    }
    for epoch in range(first_epoch, args.epochs):
        started = time.perf_counter()
        rng = random.Random(args.seed * 1000 + epoch + 1)
        batches = groups(args.kind, training_set, args.delta, rng, state_negatives, args.domain, same_plan, library)
        rng.shuffle(batches)
        scorer.network.train()
        total = 0.0
        for start in range(0, len(batches), args.batch):
            loss = group_loss(args.kind, scorer, batches[start : start + args.batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batches[start : start + args.batch])
        metrics = validate(args.kind, scorer, validation)
        elapsed += time.perf_counter() - started
        improved = metrics["score"] > best
        if improved:
            best, best_epoch = metrics["score"], epoch + 1
            record.update(epoch=epoch + 1, train_groups=len(batches), seconds=round(elapsed, 1), **_rounded(metrics))
            scorer.save(args.out, record)
        torch.save(
            {
                "network": scorer.network.state_dict(),
                "optimizer": optimizer.state_dict(),
                "epoch": epoch + 1,
                "best": best,
                "best_epoch": best_epoch,
                "seconds": elapsed,
                "config": asdict(config),
                "state_negatives": state_negatives,
                "pay_same_plan_negatives": same_plan,
            },
            checkpoint,
        )
        shown = " ".join(f"{k} {v:.4f}" for k, v in metrics.items() if k != "score")
        print(
            f"epoch {epoch + 1}/{args.epochs} loss {total / len(batches):.4f} val {shown} "
            f"({elapsed:.0f} s){' saved' if improved else ''}",
            flush=True,
        )
        if args.patience and epoch + 1 - best_epoch >= args.patience:
            print(f"stopped: no better validation score for {args.patience} epochs", flush=True)
            break
    return record


def _rounded(metrics: dict[str, float]) -> dict[str, float]:
    return {f"val_{k}": round(v, 4) for k, v in metrics.items() if k != "score"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train saycanpay``."""
    parser.add_argument("kind", choices=("can", "pay"))
    parser.add_argument("--domain", choices=DOMAINS, default="babyai", help="the world the plans are of")
    parser.add_argument(
        "--domain-folder",
        type=Path,
        nargs="+",
        default=[],
        help="domain folders of the kitchen's format: train on the plans of their example banks, each plan in "
        "its own domain (implies --domain kitchen; several: a model for any domain, --out required)",
    )
    parser.add_argument(
        "--episodes", type=Path, default=Path("benchmarks/babyai/train.txt"), help="babyai: training split"
    )
    parser.add_argument("--plans", type=int, default=2000, help="kitchen: generated requests with oracle plans")
    parser.add_argument("--data-seed", type=int, default=1, help="kitchen: seed of the request generator")
    parser.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="kitchen: episode or instruction file whose requests no plan may repeat (repeatable; "
        f"default {', '.join(map(str, KITCHEN_EXCLUDE))})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="weight file (.safetensors; default with --domain-folder: DIR/saycanpay/KIND.safetensors)",
    )
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=50, help="expert steps per batch (the paper's 50)")
    parser.add_argument("--lr", type=finite_float, default=1e-3)
    parser.add_argument("--delta", type=finite_float, default=0.9, help="pay: discount per step before the end")
    parser.add_argument(
        "--state-negatives", type=int, default=2, help="can: hard negatives per step that the rules reject in its state"
    )
    parser.add_argument(
        "--pay-same-plan-negatives",
        action="store_true",
        help="pay: also a negative from the same plan at another step (target 0), as Can's are drawn",
    )
    parser.add_argument("--patience", type=int, default=0, help="stop after N epochs without improvement (0: never)")
    parser.add_argument("--val-fraction", type=finite_float, default=0.2, help="the paper's 80-20 split")
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="continue from OUT.ckpt")


def run(args: argparse.Namespace) -> int:
    """Train the model (see the module docstring) and print its best epoch."""
    record = train(checked(args))
    print(f"best epoch {record.get('epoch')}: {record}", flush=True)
    return 0


def checked(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` checked (InputError naming the option), with ``--domain-folder``'s kitchen and default
    ``--out`` filled in."""
    if not 0.0 < args.delta < 1.0:
        raise InputError(f"--delta must be in (0, 1), got {args.delta}")
    if not 0.0 < args.val_fraction < 1.0:
        raise InputError(f"--val-fraction must be in (0, 1), got {args.val_fraction}")
    if args.plans < 2:
        raise InputError(f"--plans must be at least 2 (training and validation plans), got {args.plans}")
    args.domain_folder = [domain_folder(path) for path in args.domain_folder]  # DomainFolderError is an InputError
    args.kitchens = [load_domain_files(folder.world, folder.skills) for folder in args.domain_folder]
    if args.domain_folder:
        args.domain = "kitchen"
    if len(args.domain_folder) == 1:
        args.out = args.out or domain_scorer_file(args.domain_folder[0].path, args.kind)
    elif args.out is None:
        raise InputError("--out is required (it defaults only with one --domain-folder)")
    return args

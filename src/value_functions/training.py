"""Fits the per-family value-function MLPs on collector rollouts, with a fixed held-out split.

Each rollout falls in ``train``, ``val`` (early stopping) or ``test`` (only the bench reads it) by a
hash of its (seed, index), so a rollout keeps its split as a file grows or is resumed. Each family is
an ensemble of ``--members`` networks fitted from seeds ``seed``, ``seed + 1``, ...; their mean has a
lower Brier score than any one of them (docs/value_functions.md). Training is staged by family:
after each family the weight file is written, and ``--resume`` keeps the families already in it that
were trained on the same number of rollouts and members.

    nice -n 10 python -m value_functions.training --rollouts data/value_functions/rollouts.jsonl \
        data/value_functions/rollouts_seed1.jsonl --out data/value_functions/value_functions.npz --seed 0
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kitchen_domain.kitchen import load_kitchen
from value_functions.collector import Rollout, load_rollouts
from value_functions.features import LEARNED_FAMILIES, Featurizer
from value_functions.metrics import brier, roc_auc
from value_functions.network import (
    FamilyEnsemble,
    FamilyNetwork,
    WeightFileError,
    load_value_functions,
    save_value_functions,
)

SPLIT_SALT = 0x5A1C
TEST_FRACTION = 0.2
VAL_FRACTION = 0.1
HIDDEN = (64, 64)


def split_of(rollout: Rollout) -> str:
    draw = random.Random((rollout.seed * 1_000_003 + rollout.index) ^ SPLIT_SALT).random()
    return "test" if draw < TEST_FRACTION else "val" if draw < TEST_FRACTION + VAL_FRACTION else "train"


def family_arrays(
    rollouts: Sequence[Rollout], featurizer: Featurizer, family: str, split: str
) -> tuple[np.ndarray, np.ndarray]:
    rows = [r for r in rollouts if r.family == family and split_of(r) == split]
    features = featurizer.matrix([(r.observation, r.argument) for r in rows], family)
    return features, np.array([r.success for r in rows], dtype=bool)


def fit(
    train: tuple[np.ndarray, np.ndarray],
    val: tuple[np.ndarray, np.ndarray],
    seed: int,
    label: str,
    max_epochs: int = 400,
    patience: int = 40,
) -> tuple[FamilyNetwork, dict[str, float]]:
    """Adam on binary cross-entropy, minibatches of 128, the epoch with the lowest validation loss kept."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # tiny networks: more threads only contend on a loaded machine
    x, y = train
    mean = x.mean(axis=0)
    std = np.where(x.std(axis=0) > 1e-6, x.std(axis=0), 1.0).astype(np.float32)
    xt = torch.from_numpy((x - mean) / std)
    yt = torch.from_numpy(y.astype(np.float32))
    xv = torch.from_numpy((val[0] - mean) / std)
    yv = torch.from_numpy(val[1].astype(np.float32))
    widths = (x.shape[1], *HIDDEN)
    layers: list[torch.nn.Module] = []
    for a, b in zip(widths, widths[1:], strict=False):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU(), torch.nn.Dropout(0.1)]
    net = torch.nn.Sequential(*layers, torch.nn.Linear(widths[-1], 1))
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-4)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    generator = torch.Generator().manual_seed(seed)
    best = (float("inf"), 0, [p.detach().clone() for p in net.state_dict().values()])
    for epoch in range(1, max_epochs + 1):
        net.train()
        for batch in torch.randperm(len(xt), generator=generator).split(128):
            optimizer.zero_grad()
            loss_fn(net(xt[batch])[:, 0], yt[batch]).backward()
            optimizer.step()
        net.eval()
        with torch.no_grad():
            val_loss = float(loss_fn(net(xv)[:, 0], yv))
        if val_loss < best[0]:
            best = (val_loss, epoch, [p.detach().clone() for p in net.state_dict().values()])
        if epoch % 25 == 0:
            print(
                f"training {label}: epoch {epoch}, val loss {val_loss:.4f} (best {best[0]:.4f} at {best[1]})",
                flush=True,
            )
        if epoch - best[1] >= patience:
            break
    net.load_state_dict(dict(zip(net.state_dict(), best[2], strict=True)))
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    network = FamilyNetwork(
        tuple(m.weight.detach().numpy().T.copy() for m in linears),
        tuple(m.bias.detach().numpy().copy() for m in linears),
        mean.astype(np.float32),
        std,
    )
    return network, {"best_epoch": best[1], "val_loss": round(best[0], 4)}


def fit_ensemble(
    train: tuple[np.ndarray, np.ndarray], val: tuple[np.ndarray, np.ndarray], seed: int, members: int, label: str
) -> tuple[FamilyEnsemble, dict[str, object]]:
    """``members`` networks from seeds ``seed``, ``seed + 1``, ...; the summary has each member's best
    epoch and the ensemble's validation ROC-AUC and Brier score."""
    fitted = [fit(train, val, seed + k, f"{label} member {k}") for k in range(members)]
    ensemble = FamilyEnsemble(tuple(network for network, _ in fitted))
    val_p = ensemble.probabilities(val[0])
    return ensemble, {
        "members": members,
        "best_epochs": [summary["best_epoch"] for _, summary in fitted],
        "val_roc_auc": round(roc_auc(val[1], val_p) or float("nan"), 4),
        "val_brier": round(brier(val[1], val_p), 4),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fit the value-function MLPs on collector rollouts.")
    parser.add_argument("--rollouts", type=Path, nargs="+", required=True, help="collector JSONL files")
    parser.add_argument("--out", type=Path, required=True, help="weight file (.npz) to write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--members", type=int, default=5, help="networks per family (their mean is served)")
    parser.add_argument("--resume", action="store_true", help="keep families already trained on the same data")
    args = parser.parse_args(argv)
    kitchen = load_kitchen()
    featurizer = Featurizer(kitchen.config)
    rollouts = [r for path in args.rollouts for r in load_rollouts(path)]
    networks: dict[str, FamilyEnsemble] = {}
    record: dict[str, object] = {
        "command": "python -m value_functions.training " + " ".join(sys.argv[1:] if argv is None else argv),
        "rollout_files": [p.name for p in args.rollouts],
        "seed": args.seed,
        "hidden": list(HIDDEN),
        "members": args.members,
        "families": {},
    }
    if args.resume and args.out.exists():
        try:
            networks, meta = load_value_functions(args.out, featurizer)
            record["families"] = meta["record"]["families"]
        except WeightFileError as error:
            print(f"training: not resuming from {args.out}: {error}", flush=True)
            networks = {}
    for family in LEARNED_FAMILIES:
        train = family_arrays(rollouts, featurizer, family, "train")
        val = family_arrays(rollouts, featurizer, family, "val")
        done = record["families"].get(family, {})  # type: ignore[attr-defined]
        if family in networks and done.get("train") == len(train[1]) and done.get("members") == args.members:
            print(f"training {family}: kept from {args.out} ({len(train[1])} train rollouts)", flush=True)
            continue
        if len(train[1]) < 20 or len(set(val[1].tolist())) < 2:
            raise SystemExit(f"training {family}: too few rollouts ({len(train[1])} train): collect more first")
        started = time.perf_counter()
        print(
            f"training {family}: {len(train[1])} train, {len(val[1])} val rollouts, {train[1].mean():.2f} succeed",
            flush=True,
        )
        networks[family], summary = fit_ensemble(train, val, args.seed, args.members, family)
        summary.update(train=len(train[1]), val=len(val[1]), seconds=round(time.perf_counter() - started, 1))
        record["families"][family] = summary  # type: ignore[index]
        print(f"training {family}: {summary}", flush=True)
        save_value_functions(args.out, networks, featurizer, record)
    print(f"training: wrote {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

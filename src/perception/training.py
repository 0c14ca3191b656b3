"""Train the embedded detector's region encoder on rendered scenes (seeded, staged, resumable).

    python -m perception.training --scenes 600 --epochs 40 --seed 0 --work-dir /tmp/region_encoder \
        --out data/perception/region_encoder.safetensors [--resume]

Stage 1 renders ``--scenes`` scenes of the ``train`` instance stream (``perception.synthetic``), runs the
class-agnostic proposals on each and keeps the proposals that are at least 80 % one object, as
(features, label) pairs, in shards of 50 scenes under ``--work-dir`` (a rerun with ``--resume`` keeps
finished shards). Stage 2 trains the encoder so each region's embedding is nearest its label's sentence
embedding among all labels (cross-entropy over cosine similarities / temperature), checkpointing every
epoch (``--resume`` continues from the last). The evaluation scenes (``eval`` stream) are never used.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from kitchen_domain.kitchen import load_kitchen
from llm_planner_ros.llm.embedder import SentenceTransformerEmbedder
from perception.detection import View
from perception.geometry import Intrinsics
from perception.proposals import ProposalConfig, propose
from perception.region_encoder import EncoderShape, RegionEncoder, region_features
from perception.synthetic import random_scene, render

SHARD_SCENES = 50
TEMPERATURE = 0.05
CAMERA = Intrinsics.from_fov(320, 240, 70.0)


def labelled_regions(seed: int, split: str, labels: list[str], places: dict[str, tuple[float, float]]) -> list:
    """(features, label) of the proposals of one rendered scene that are at least 80 % one object."""
    spec = random_scene(seed, split, labels, places)
    frame = render(spec, CAMERA, seed)
    view = View(frame.rgb, frame.depth, CAMERA, spec.camera)
    pairs = []
    for proposal in propose(frame.depth, CAMERA, spec.camera, ProposalConfig()):
        ids, counts = np.unique(frame.segmentation[proposal.mask], return_counts=True)
        best = int(np.argmax(counts))
        if ids[best] == 0 or counts[best] < 0.8 * proposal.mask.sum():
            continue
        features = region_features(view, proposal.mask)
        if features is not None:
            pairs.append((features, spec.objects[ids[best] - 1].label))
    return pairs


def build_data(args: argparse.Namespace, labels: list[str], places: dict[str, tuple[float, float]]) -> tuple:
    """Stage 1: the (features, label index) arrays of every shard, rendering only missing shards."""
    args.work_dir.mkdir(parents=True, exist_ok=True)
    features, targets = [], []
    shards = (args.scenes + SHARD_SCENES - 1) // SHARD_SCENES
    for shard in range(shards):
        path = args.work_dir / f"shard_{args.seed}_{shard:03d}.npz"
        if not (args.resume and path.is_file()):
            started = time.monotonic()
            seeds = range(shard * SHARD_SCENES, min((shard + 1) * SHARD_SCENES, args.scenes))
            pairs = [
                pair for seed in seeds for pair in labelled_regions(args.seed * 100_000 + seed, "train", labels, places)
            ]
            np.savez(path, x=np.stack([p[0] for p in pairs]), y=np.array([labels.index(p[1]) for p in pairs]))
            print(
                f"data: shard {shard + 1}/{shards}: {len(pairs)} regions in {time.monotonic() - started:.0f} s",
                flush=True,
            )
        data = np.load(path)
        features.append(data["x"])
        targets.append(data["y"])
    return np.concatenate(features), np.concatenate(targets)


def train(args: argparse.Namespace, x: np.ndarray, y: np.ndarray, text: np.ndarray) -> RegionEncoder:
    """Stage 2: train with a checkpoint per epoch; resumes from the checkpoint with ``--resume``."""
    torch.manual_seed(args.seed)
    encoder = RegionEncoder(EncoderShape())
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=args.lr, weight_decay=1e-4)
    checkpoint = args.work_dir / f"checkpoint_{args.seed}.pt"
    start = 0
    if args.resume and checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=False)
        encoder.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["rng"])
        start = state["epoch"]
        print(f"train: resuming after epoch {start}", flush=True)
    inputs, targets, text_t = torch.from_numpy(x), torch.from_numpy(y).long(), torch.from_numpy(text)
    for epoch in range(start, args.epochs):
        encoder.train()
        order = torch.randperm(len(inputs))
        total, correct = 0.0, 0
        for begin in range(0, len(order), args.batch):
            batch = order[begin : begin + args.batch]
            logits = encoder(inputs[batch]) @ text_t.T / TEMPERATURE
            loss = torch.nn.functional.cross_entropy(logits, targets[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
            correct += int((logits.argmax(1) == targets[batch]).sum())
        torch.save(
            {
                "model": encoder.state_dict(),
                "optimizer": optimizer.state_dict(),
                "rng": torch.get_rng_state(),
                "epoch": epoch + 1,
            },
            checkpoint,
        )
        print(
            f"train: epoch {epoch + 1}/{args.epochs} loss {total / len(inputs):.3f} "
            f"accuracy {correct / len(inputs):.3f}",
            flush=True,
        )
    return encoder.eval()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perception.training", description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=600, help="rendered training scenes")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/region_encoder"), help="shards and checkpoints")
    parser.add_argument("--out", type=Path, default=Path("data/perception/region_encoder.safetensors"))
    parser.add_argument("--resume", action="store_true", help="keep finished shards and continue from the checkpoint")
    args = parser.parse_args(argv)
    started = time.monotonic()
    kitchen = load_kitchen().config
    labels = list(kitchen.labels)
    places = {name: (p.x, p.y) for name, p in kitchen.locations.items()}
    x, y = build_data(args, labels, places)
    print(f"data: {len(x)} regions from {args.scenes} scenes", flush=True)
    text = SentenceTransformerEmbedder().embed(labels)
    encoder = train(args, x, y, text)
    info = {
        "labels": labels,
        "scenes": args.scenes,
        "regions": int(len(x)),
        "epochs": args.epochs,
        "seed": args.seed,
        "text_embedder": "all-MiniLM-L6-v2",
        "train_seconds": round(time.monotonic() - started),
    }
    encoder.save(args.out, info)
    print(f"saved {args.out} ({json.dumps(info)})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

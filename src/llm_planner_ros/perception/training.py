"""Train the embedded detector's region encoder on rendered scenes (seeded, staged, resumable).

    llm-planner train region-encoder --scenes 1000 --physics-scenes 3000 --epochs 60 --seed 0 \
        --work-dir /tmp/region_encoder --out data/perception/region_encoder.safetensors [--resume]
    llm-planner train region-encoder --domain domains/office --scenes 0 --physics-scenes 600 \
        --work-dir /tmp/office_encoder --out domains/office/region_encoder.safetensors [--resume]

``--domain DIR`` trains on a domain folder's own object models (its layout.yaml, docs/domains.md); the
perception node then takes ``DIR/region_encoder.safetensors`` in that domain. The synthetic scenes know
the SayCan kitchen's labels only (``llm_planner_ros.perception.synthetic.CATALOGUE``).

Stage 1 renders ``--scenes`` scenes of the ``train`` instance stream of ``llm_planner_ros.perception.synthetic`` and
``--physics-scenes`` scenes of the ``train`` split of ``llm_planner_ros.perception.physics_scenes`` (the PyBullet
kitchen),
runs the class-agnostic proposals the detector uses at run time on each and keeps the proposals that are
at least 80 % one object or at least 80 % no object (background), as (features, label) pairs, in shards
of 50 scenes under ``--work-dir`` (a rerun with ``--resume`` keeps finished shards). Stage 2 trains the
encoder so each region's embedding is nearest its label's sentence embedding among all labels and a
learned background embedding (ViLD's background class; cross-entropy over cosine similarities /
temperature), checkpointing every epoch (``--resume`` continues from the last). Evaluation scenes
(``eval`` streams) and the synonyms are never used.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.embedder import SentenceTransformerEmbedder
from llm_planner_ros.options import finite_float
from llm_planner_ros.perception.detection import View
from llm_planner_ros.perception.geometry import Intrinsics
from llm_planner_ros.perception.physics_scenes import TRAIN_INSTANCES, PhysicsSceneRenderer
from llm_planner_ros.perception.proposals import ProposalConfig, propose
from llm_planner_ros.perception.region_encoder import FEATURES, EncoderShape, RegionEncoder, region_features
from llm_planner_ros.perception.synthetic import CATALOGUE, random_scene, render
from llm_planner_ros.physics_sim import load_layout

SHARD_SCENES = 50
BACKGROUND = ""  # the label of a proposal that is no object; its class index is len(labels)
TEMPERATURE = 0.05
CAMERA = Intrinsics.from_fov(320, 240, 70.0)


def labelled_regions(view: View, segmentation: np.ndarray, labels: list[str]) -> list[tuple[np.ndarray, str]]:
    """(features, label) of the proposals of one frame that are at least 80 % one object, or at least 80 %
    no object (label BACKGROUND); ``segmentation`` holds k + 1 where object k (of label ``labels[k]``) is
    seen, 0 elsewhere."""
    pairs = []
    for proposal in propose(view.depth, view.intrinsics, view.camera, ProposalConfig()):
        ids, counts = np.unique(segmentation[proposal.mask], return_counts=True)
        best = int(np.argmax(counts))
        if counts[best] < 0.8 * proposal.mask.sum():
            continue
        features = region_features(view, proposal.mask)
        if features is not None:
            pairs.append((features, BACKGROUND if ids[best] == 0 else labels[ids[best] - 1]))
    return pairs


class SceneSources:
    """The training frames by source and seed: ``synthetic`` (``llm_planner_ros.perception.synthetic``, train stream)
    and
    ``physics`` (``llm_planner_ros.perception.physics_scenes``, train split; its kitchen is built on first use)."""

    def __init__(self, kitchen: Domain, instance_sets: int) -> None:
        self._kitchen = kitchen
        self._instance_sets = instance_sets
        self._labels = list(kitchen.config.labels)
        self._places = {name: (p.x, p.y) for name, p in kitchen.config.locations.items()}
        self._physics: PhysicsSceneRenderer | None = None

    def regions(self, source: str, seed: int) -> list[tuple[np.ndarray, str]]:
        if source == "synthetic":
            spec = random_scene(seed, "train", self._labels, self._places)
            frame = render(spec, CAMERA, seed)
            view = View(frame.rgb, frame.depth, CAMERA, spec.camera)
            return labelled_regions(view, frame.segmentation, [obj.label for obj in spec.objects])
        if self._physics is None:
            self._physics = PhysicsSceneRenderer(
                self._kitchen, load_layout(self._kitchen.config), "train", self._instance_sets
            )
        scene = self._physics.scene(seed)
        return labelled_regions(scene.view, scene.segmentation, [label for label, _ in scene.objects])

    def close(self) -> None:
        if self._physics is not None:
            self._physics.close()


def build_data(args: argparse.Namespace, sources: SceneSources, labels: list[str]) -> tuple:
    """Stage 1: the (features, label index) arrays of every shard of both sources, rendering only missing
    shards (synthetic shards keep their old names, ``shard_<seed>_<n>``, so earlier work is reused)."""
    args.work_dir.mkdir(parents=True, exist_ok=True)
    features, targets = [], []
    # Physics shards of another number of instance sets are other scenes: their names say the number.
    physics = "physics" if args.instance_sets == TRAIN_INSTANCES else f"physics_sets{args.instance_sets}"
    for source, scenes, prefix in (("synthetic", args.scenes, "shard"), ("physics", args.physics_scenes, physics)):
        shards = (scenes + SHARD_SCENES - 1) // SHARD_SCENES
        for shard in range(shards):
            path = args.work_dir / f"{prefix}_{args.seed}_{shard:03d}.npz"
            if not (args.resume and path.is_file()):
                started = time.monotonic()
                seeds = range(shard * SHARD_SCENES, min((shard + 1) * SHARD_SCENES, scenes))
                pairs = [pair for seed in seeds for pair in sources.regions(source, args.seed * 100_000 + seed)]
                x = np.stack([p[0] for p in pairs]) if pairs else np.zeros((0, FEATURES), np.float32)
                classes = [*labels, BACKGROUND]
                np.savez(path, x=x, y=np.array([classes.index(p[1]) for p in pairs], dtype=np.int64))
                print(
                    f"data: {source} shard {shard + 1}/{shards}: {len(pairs)} regions "
                    f"in {time.monotonic() - started:.0f} s",
                    flush=True,
                )
            data = np.load(path)
            features.append(data["x"])
            targets.append(data["y"])
    return np.concatenate(features), np.concatenate(targets)


def train(args: argparse.Namespace, x: np.ndarray, y: np.ndarray, text: np.ndarray) -> RegionEncoder:
    """Stage 2: train with a checkpoint per epoch; resumes from the checkpoint with ``--resume``."""
    torch.manual_seed(args.seed)
    encoder = RegionEncoder(EncoderShape(background=True))
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
            classes = torch.cat([text_t, torch.nn.functional.normalize(encoder.background, dim=0)[None]])
            logits = encoder(inputs[batch]) @ classes.T / TEMPERATURE
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train region-encoder``."""
    parser.add_argument("--scenes", type=int, default=600, help="rendered synthetic training scenes")
    parser.add_argument(
        "--physics-scenes", type=int, default=0, help="rendered physics-kitchen training scenes (train split)"
    )
    parser.add_argument(
        "--instance-sets",
        type=int,
        default=TRAIN_INSTANCES,
        help=f"object instance sets the physics scenes cycle through (default {TRAIN_INSTANCES}; more make shape "
        "count where colours are alike)",
    )
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=finite_float, default=2e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/region_encoder"), help="shards and checkpoints")
    parser.add_argument("--out", type=Path, default=Path("data/perception/region_encoder.safetensors"))
    parser.add_argument("--domain", type=Path, default=None, help="domain folder (default: the default domain)")
    parser.add_argument("--resume", action="store_true", help="keep finished shards and continue from the checkpoint")


def run(args: argparse.Namespace) -> int:
    """Render, train and save the encoder (see the module docstring)."""
    started = time.monotonic()
    kitchen = load_domain(args.domain) if args.domain is not None else load_domain_files()
    labels = list(kitchen.config.labels)
    unknown = [label for label in labels if label not in CATALOGUE]
    if args.scenes and unknown:
        raise InputError(f"--scenes: the synthetic scenes have no model of {', '.join(unknown)}: pass --scenes 0")
    if args.instance_sets < 1:
        raise InputError(f"--instance-sets is {args.instance_sets}: give 1 or more")
    sources = SceneSources(kitchen, args.instance_sets)
    try:
        x, y = build_data(args, sources, labels)
    finally:
        sources.close()
    print(f"data: {len(x)} regions from {args.scenes} synthetic and {args.physics_scenes} physics scenes", flush=True)
    text = SentenceTransformerEmbedder().embed(labels)
    encoder = train(args, x, y, text)
    info = {
        "domain": kitchen.config.world,
        "labels": labels,
        "scenes": args.scenes,
        "physics_scenes": args.physics_scenes,
        "instance_sets": args.instance_sets,
        "regions": int(len(x)),
        "background_regions": int((y == len(labels)).sum()),
        "epochs": args.epochs,
        "seed": args.seed,
        "text_embedder": "all-MiniLM-L6-v2",
        "train_seconds": round(time.monotonic() - started),
    }
    encoder.save(args.out, info)
    print(f"saved {args.out} ({json.dumps(info)})", flush=True)
    return 0

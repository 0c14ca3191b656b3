"""Train the hold-back model (planning.hold_back.classifier) on requests generated across many domains.

    llm-planner train hold-back --out data/hold_back/hold_back.npz [--resume]

Stages, each with its output under ``--work`` (default out/hold_back/), so ``--resume`` skips what is done:
1. ``features``: for the shipped kitchen and office, ``--synthetic`` domains (names drawn from the pools
   below, seeded) and ``--generated`` whole domains of ``llm-planner domain generate`` (seeds 0 to N-1,
   written under ``--work``), ``--per-kind`` requests of each kind from the generator's ``train``
   patterns (planning.hold_back.requests), with the domains' banks (their training requests; a generated
   domain's ``--generated-tasks`` oracle-solved tasks) as tasks; embedded and written as one feature
   matrix.
2. ``fit``: a multinomial logistic regression on it, written to ``--out``.
Then the development requests (the generator's ``dev`` patterns, never trained on) of the kitchen and
the office are classified and the accuracy per kind printed. No evaluation file is read: no episodes.yaml,
no dev.yaml, no benchmark set.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.embedder import SentenceTransformerEmbedder
from llm_planner_ros.options import finite_float
from llm_planner_ros.paths import packaged_path
from llm_planner_ros.planning.domain_examples import domain_bank
from llm_planner_ros.planning.hold_back.classifier import CLASSES, DomainScope, HoldBackModel, features
from llm_planner_ros.planning.hold_back.requests import (
    DomainVocabulary,
    GeneratedRequest,
    RequestKind,
    Split,
    generate,
    of_names,
)
from llm_planner_ros.planning.hold_back.screen import domain_vocabulary
from llm_planner_ros.planning.instruction_check import load_other_objects
from llm_planner_ros.training.domain_generator import generate_domain, write_domain

# Pools the synthetic domains draw from: places, objects and skill patterns of robots in homes, offices,
# workshops, labs, shops and hospitals. {o}: an object, {p}: a place.
_PLACES = (
    "shelf", "workbench", "sink", "bed", "sofa", "desk", "cabinet", "counter", "window sill", "locker",
    "reception", "storage room", "garage", "hallway", "balcony", "bathroom", "bedroom", "lab bench",
    "fridge", "cart", "nurse station", "checkout", "loading dock", "printer", "couch", "nightstand",
)  # fmt: skip
_OBJECTS = (
    "wrench", "drill", "towel", "book", "cup", "bowl", "plate", "remote", "pen", "folder", "box", "bottle",
    "jar", "test tube", "glove", "mask", "tray", "basket", "cable", "screw", "pillow", "blanket", "shirt",
    "toy car", "ball", "magazine", "cereal box", "milk carton", "medicine", "bandage", "spray bottle",
    "cloth", "brush", "spoon", "keys", "charger", "tablet", "parcel", "label", "clipboard",
)  # fmt: skip
_SKILL_PATTERNS = (
    ("pick up the {o}", "put down the {o}", "find the {o}", "bring it to you"),
    ("go to the {p}",),
    ("open the {p}", "close the {p}"),
    ("wipe the {p}", "clean the {p}"),
    ("hand the {o} to you", "give you the {o}"),
    ("switch on the {o}", "switch off the {o}"),
    ("push the {o}", "pull the {o}"),
    ("sort the {o}", "stack the {o}"),
    ("scan the {o}", "label the {o}"),
    ("water the {o}",),
    ("fold the {o}",),
    ("fill the {o}", "empty the {o}"),
)


def synthetic_domain(rng: random.Random) -> DomainVocabulary:
    """A domain's names drawn from the pools: 4-9 objects, 3-7 places, the first pattern group (every robot
    fetches) and 1-4 others."""
    objects = rng.sample(_OBJECTS, rng.randint(4, 9))
    places = rng.sample(_PLACES, rng.randint(3, 7))
    groups = [_SKILL_PATTERNS[0], *rng.sample(_SKILL_PATTERNS[1:], rng.randint(1, 4))]
    phrases = [
        pattern.replace("{o}", obj).replace("{p}", place)
        for group in groups
        for pattern in group
        for obj in (objects if "{o}" in pattern else objects[:1])
        for place in (places if "{p}" in pattern else places[:1])
    ]
    return of_names(objects, places, phrases)


def shipped_domains() -> list[tuple[str, Domain]]:
    """Every domain folder the package ships (``domains/``), by world name."""
    folders = sorted(path for path in packaged_path("domains").iterdir() if (path / "world.yaml").is_file())
    return [(domain.config.world, domain) for domain in map(load_domain, folders)]


def generated_domains(count: int, tasks: int, folder: Path) -> list[tuple[str, Domain, list[str]]]:
    """The generated domains of seeds 0 to ``count`` - 1, written under ``folder``, each with the requests
    of ``tasks`` tasks its oracle solves."""
    out = []
    for seed in range(count):
        generated = generate_domain(seed)
        path = folder / generated.name
        kitchen = write_domain(generated, path, tasks, seed)
        requests = [episode.instruction for episode in load_episodes(path / "episodes.yaml", kitchen)]
        out.append((generated.name, kitchen, requests))
    return out


def bank_tasks(kitchen: Domain, count: int, rng: random.Random) -> list[str]:
    """Up to ``count`` instructions of the domain's bank (its training requests)."""
    examples = domain_bank(kitchen)[1]
    instructions = sorted({example.instruction for example in examples})
    return rng.sample(instructions, min(count, len(instructions)))


def _domain_rows(
    embedder: SentenceTransformerEmbedder, domain: DomainVocabulary, requests: Sequence[GeneratedRequest]
) -> tuple[np.ndarray, list[str]]:
    scope = DomainScope(embedder, domain.skill_phrases)
    rows = features(embedder, [request.text for request in requests], scope)
    # MISSING requests are task-shaped: the scene check decides them, the model calls them tasks.
    labels = [RequestKind.TASK if r.kind == RequestKind.MISSING else r.kind for r in requests]
    return rows, [label.value for label in labels]


def stage_features(args: argparse.Namespace, embedder: SentenceTransformerEmbedder, path: Path) -> None:
    rng = random.Random(args.seed)
    absent = load_other_objects()
    domains: list[tuple[str, DomainVocabulary]] = [
        (name, domain_vocabulary(kitchen, bank_tasks(kitchen, args.bank_tasks, rng)))
        for name, kitchen in shipped_domains()
    ]
    domains += [(f"synthetic-{index:02d}", synthetic_domain(rng)) for index in range(args.synthetic)]
    generated = generated_domains(args.generated, args.generated_tasks, Path(args.work) / "generated")
    domains += [(name, domain_vocabulary(kitchen, tasks)) for name, kitchen, tasks in generated]
    all_rows, all_labels = [], []
    started = time.monotonic()
    for index, (name, domain) in enumerate(domains, start=1):
        requests = generate(domain, absent, args.per_kind, "train", seed=rng.randrange(2**31))
        requests += [GeneratedRequest(task, RequestKind.TASK) for task in domain.tasks]
        rows, labels = _domain_rows(embedder, domain, requests)
        all_rows.append(rows)
        all_labels += labels
        print(
            f"[features {index}/{len(domains)}] {name}: {len(requests)} requests ({time.monotonic() - started:.0f} s)",
            flush=True,
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, rows=np.concatenate(all_rows), labels=np.array(all_labels))


def stage_fit(args: argparse.Namespace, features_path: Path, embedder_name: str) -> HoldBackModel:
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    with np.load(features_path, allow_pickle=False) as data:
        rows, labels = data["rows"], [str(label) for label in data["labels"]]
    targets = np.array([[kind.value for kind in CLASSES].index(label) for label in labels])
    print(f"[fit] {rows.shape[0]} rows x {rows.shape[1]} features: {dict(Counter(labels))}", flush=True)
    started = time.monotonic()
    # One BLAS thread: beside any other job on 2 cores, spinning BLAS threads made a 2 s fit take minutes.
    with threadpool_limits(1):
        fitted = LogisticRegression(C=args.c, max_iter=3000, class_weight="balanced", random_state=args.seed).fit(
            rows, targets
        )
    print(f"[fit] done in {time.monotonic() - started:.1f} s", flush=True)
    model = HoldBackModel(fitted.coef_.T.astype(np.float32), fitted.intercept_.astype(np.float32), embedder_name)
    model.save(Path(args.out))
    return model


def evaluate(
    model: HoldBackModel, embedder: SentenceTransformerEmbedder, per_kind: int, seed: int, split: Split = "dev"
) -> dict[str, dict[str, float]]:
    """Accuracy per kind of the shipped domains' ``split`` requests (MISSING counted as TASK, as trained)."""
    report: dict[str, dict[str, float]] = {}
    absent = load_other_objects()
    for name, kitchen in shipped_domains():
        domain = domain_vocabulary(kitchen, ())
        requests = generate(domain, absent, per_kind, split, seed)
        rows, labels = _domain_rows(embedder, domain, requests)
        predicted = [c.kind.value for c in model.classify(rows)]
        report[name] = {
            kind.value: float(
                np.mean([p == label for p, label in zip(predicted, labels, strict=True) if label == kind])
            )
            for kind in CLASSES
        }
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train hold-back``."""
    parser.add_argument("--out", default="data/hold_back/hold_back.npz", help="the weight file to write")
    parser.add_argument("--work", default="out/hold_back", help="where each stage's output is kept")
    parser.add_argument("--resume", action="store_true", help="skip the stages whose output exists")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--synthetic", type=int, default=30, help="generated domains besides the shipped ones")
    parser.add_argument(
        "--generated", type=int, default=20, help="whole generated domains (llm-planner domain generate seeds 0..N-1)"
    )
    parser.add_argument("--generated-tasks", type=int, default=40, help="solved tasks per generated domain")
    parser.add_argument("--per-kind", type=int, default=60, help="requests of each kind per domain")
    parser.add_argument("--bank-tasks", type=int, default=5000, help="bank instructions per shipped domain")
    parser.add_argument("--c", type=finite_float, default=4.0, help="inverse L2 strength of the regression")


def run(args: argparse.Namespace) -> int:
    """Features, fit, then the development accuracy per kind (see the module docstring)."""
    counts = (args.synthetic, args.generated, args.generated_tasks, args.bank_tasks)
    if args.per_kind < 1 or min(counts) < 0 or args.c <= 0:
        raise InputError("--per-kind must be >= 1, --synthetic, --generated(-tasks) and --bank-tasks >= 0, --c > 0")
    embedder = SentenceTransformerEmbedder()
    # Named by what they hold, so --resume never fits on features drawn with other counts.
    features_path = Path(args.work) / (
        f"features_seed{args.seed}_synthetic{args.synthetic}_generated{args.generated}x{args.generated_tasks}.npz"
    )
    if args.resume and features_path.is_file():
        print(f"[features] kept {features_path}", flush=True)
    else:
        stage_features(args, embedder, features_path)
    model = stage_fit(args, features_path, embedder.name)
    report = evaluate(model, embedder, per_kind=40, seed=args.seed + 1)
    print(json.dumps({"dev_accuracy": report}, indent=2))
    return 0

"""``llm-planner bench perception``: detection, labelling, localisation and latency of the perception
pipeline on rendered kitchen scenes with ground truth.

Scenes come from ``--renderer``:
  synthetic   ``llm_planner_ros.perception.synthetic``, ``eval`` stream (instances and layouts the region encoder never
              saw in training), one support with 1-6 objects, a random head-camera pose, 320x240
  physics     the PyBullet kitchen (``physics_sim``): for each episode of ``--episodes``, the robot goes to
              the close counter, the far counter and the table and renders its head camera (320x240);
              (fixed layouts, the shipped object models, the renderer's fixed light)
  physics-random  randomised scenes of the PyBullet kitchen (``llm_planner_ros.perception.physics_scenes``, ``eval``
  split:
              object instances and layouts the region encoder never saw in training): 1-6 objects at
              random poses on a counter or table, clutter elsewhere, a jittered robot and head camera,
              relit images; seeds from ``--first-seed``
Each frame runs through ``ScenePerception`` twice: with the kitchen's 15 labels as queries
(``vocabulary``) and with one synonym per label instead (``synonyms``). A lifted object matches the
nearest unmatched true object within ``--match-m`` of its centre; true objects with fewer than
``--min-pixels`` visible pixels are not counted.

  precision         matched / lifted objects          recall        matched / visible true objects
  label_accuracy    matched objects with the right label (per query set)
  localisation_cm   distance of matched centres (median, p90)
  latency_ms        per frame: detection + lifting + places + tracking (p50, p95; vocabulary pass), wall
                    clock and CPU time of this process (the CPU time is what a free core gives when
                    other jobs load the machine)
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.evaluation.bench_report import add_json_argument, json_file, write_json
from llm_planner_ros.options import finite_float
from llm_planner_ros.paths import default_domain
from llm_planner_ros.perception.backends import BACKENDS, BackendOptions, make_detector
from llm_planner_ros.perception.detection import DetectorError, View
from llm_planner_ros.perception.geometry import Intrinsics, Transform
from llm_planner_ros.perception.lifting import Lifted
from llm_planner_ros.perception.pipeline import PerceptionConfig, ScenePerception
from llm_planner_ros.perception.places import DEFAULT_PLACE_RADIUS_M, PlaceAssigner
from llm_planner_ros.perception.synthetic import SYNONYMS, random_scene, render

PHYSICS_PLACES = ("close counter", "far counter", "table")


@dataclass(frozen=True)
class TruthFrame:
    """One frame with its ground truth: objects as (label, centre in the map frame), the indices of those
    visible enough to count, and the place the camera looks at."""

    view: View
    objects: list[tuple[str, np.ndarray]]
    visible: set[int]
    place: str


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenes", type=int, default=200, help="rendered evaluation scenes")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first scene of the eval stream")
    parser.add_argument("--renderer", choices=("synthetic", "physics", "physics-random"), default="synthetic")
    parser.add_argument(
        "--episodes", default=str(default_domain() / "dev.yaml"), help="episode file of the physics renderer's scenes"
    )
    parser.add_argument("--backend", choices=BACKENDS, default="embedded")
    parser.add_argument("--model-dir", default="", help="OWL-ViT/OWLv2 folder (backends owlvit, owlv2)")
    parser.add_argument("--encoder", default="", help="region encoder (embedded; default: the shipped one)")
    parser.add_argument("--min-score", type=finite_float, default=PerceptionConfig.min_score)
    parser.add_argument("--match-m", type=finite_float, default=0.10, help="farthest centre distance of a match (m)")
    parser.add_argument("--min-pixels", type=int, default=40, help="visible pixels a true object needs to count")
    add_json_argument(parser, "the numbers")


def match(lifted: list[Lifted], truth: TruthFrame, match_m: float) -> list[tuple[int, int]]:
    """Greedy nearest-centre matching: (lifted index, true object index) pairs within ``match_m``."""
    pairs = sorted(
        (float(np.linalg.norm(item.centre - centre)), i, k)
        for i, item in enumerate(lifted)
        for k, (_, centre) in enumerate(truth.objects)
    )
    used_lifted: set[int] = set()
    used_truth: set[int] = set()
    matches = []
    for distance, i, k in pairs:
        if distance > match_m or i in used_lifted or k in used_truth:
            continue
        used_lifted.add(i)
        used_truth.add(k)
        matches.append((i, k))
    # A detection of a barely visible object is right, but the object does not count for recall.
    return matches


def synthetic_frames(args: argparse.Namespace, kitchen: Domain) -> Iterator[TruthFrame]:
    labels = list(kitchen.config.labels)
    places = {name: (p.x, p.y) for name, p in kitchen.config.locations.items()}
    camera = Intrinsics.from_fov(320, 240, 70.0)
    for index in range(args.scenes):
        seed = args.first_seed + index
        spec = random_scene(seed, "eval", labels, places)
        frame = render(spec, camera, seed)
        visible = {k for k in range(len(spec.objects)) if int((frame.segmentation == k + 1).sum()) >= args.min_pixels}
        objects = [(obj.label, np.asarray(obj.centre)) for obj in spec.objects]
        yield TruthFrame(View(frame.rgb, frame.depth, camera, spec.camera), objects, visible, spec.place)


def physics_frames(args: argparse.Namespace, kitchen: Domain) -> Iterator[TruthFrame]:
    """Head-camera frames of the physics kitchen at each place with a top, episode after episode."""
    from llm_planner_ros.physics_sim import PhysicsKitchen
    from llm_planner_ros.physics_sim.scripted import ScriptedSkills

    episodes = load_episodes(args.episodes, kitchen).episodes
    sim = PhysicsKitchen.from_files(episode_file=args.episodes, episode_id=episodes[0].id)
    skills = ScriptedSkills(sim)
    produced = 0
    try:
        for episode in episodes:
            sim.load(episode.initial, episode.id)
            for place in PHYSICS_PLACES:
                if not skills.go_to(place).success:
                    continue
                frame = sim.render("head")
                camera = Intrinsics.from_k(frame.spec.intrinsics(), frame.spec.width, frame.spec.height)
                objects = [o for o in sim.truth().objects if o.at != HELD]
                names = np.vectorize(lambda body: sim.body_name(int(body)) or "", otypes=[object])(frame.segmentation)
                visible = {k for k, o in enumerate(objects) if int((names == o.id).sum()) >= args.min_pixels}
                view = View(frame.rgb, frame.depth, camera, Transform.look_at(frame.eye, frame.target))
                yield TruthFrame(view, [(o.label, np.asarray(o.position)) for o in objects], visible, place)
                produced += 1
                if produced >= args.scenes:
                    return
    finally:
        sim.close()


def random_physics_frames(args: argparse.Namespace, kitchen: Domain) -> Iterator[TruthFrame]:
    """Randomised physics-kitchen scenes of the ``eval`` split, seeds ``--first-seed`` on."""
    from llm_planner_ros.perception.physics_scenes import PhysicsSceneRenderer
    from llm_planner_ros.physics_sim import load_layout

    renderer = PhysicsSceneRenderer(kitchen, load_layout(kitchen.config), "eval")
    try:
        for index in range(args.scenes):
            scene = renderer.scene(args.first_seed + index)
            visible = {
                k for k in range(len(scene.objects)) if int((scene.segmentation == k + 1).sum()) >= args.min_pixels
            }
            yield TruthFrame(scene.view, scene.objects, visible, scene.place)
    finally:
        renderer.close()


FRAMES = {"synthetic": synthetic_frames, "physics": physics_frames, "physics-random": random_physics_frames}


def run(args: argparse.Namespace) -> int:
    kitchen = load_domain_files()
    labels = list(kitchen.config.labels)
    synonyms = [SYNONYMS[label] for label in labels]
    places = {name: (p.x, p.y) for name, p in kitchen.config.locations.items()}
    try:
        detector = make_detector(args.backend, BackendOptions(model_dir=args.model_dir, encoder_path=args.encoder))
    except DetectorError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    config = PerceptionConfig(min_score=args.min_score)
    assigner = PlaceAssigner(places, DEFAULT_PLACE_RADIUS_M)
    counts = {"frames": 0, "lifted": 0, "visible": 0, "matched": 0, "found": 0, "places_right": 0}
    correct = {"vocabulary": 0, "synonyms": 0}
    matched_by = {"vocabulary": 0, "synonyms": 0}
    errors_cm: list[float] = []
    latency_ms: list[float] = []
    cpu_ms: list[float] = []
    started = time.monotonic()
    frames = FRAMES[args.renderer](args, kitchen)
    for truth in frames:
        counts["frames"] += 1
        for name, queries in (("vocabulary", labels), ("synonyms", synonyms)):
            cpu_started = time.process_time()
            result = ScenePerception(detector, assigner, config).process(truth.view, queries, 0.0)
            cpu = time.process_time() - cpu_started
            matches = match(result.lifted, truth, args.match_m)
            matched_by[name] += len(matches)
            for i, k in matches:
                label = truth.objects[k][0]
                want = label if name == "vocabulary" else SYNONYMS[label]
                correct[name] += int(result.lifted[i].detection.label == want)
            if name == "vocabulary":
                latency_ms.append(result.total_s * 1000.0)
                cpu_ms.append(cpu * 1000.0)
                counts["lifted"] += len(result.lifted)
                counts["visible"] += len(truth.visible)
                counts["matched"] += len(matches)
                counts["found"] += sum(1 for _, k in matches if k in truth.visible)
                for i, k in matches:
                    errors_cm.append(100.0 * float(np.linalg.norm(result.lifted[i].centre - truth.objects[k][1])))
                    counts["places_right"] += int(assigner.assign(result.lifted[i].centre) == truth.place)
        if counts["frames"] % 20 == 0:
            print(
                f"frame {counts['frames']}: {counts['found']} found of {counts['visible']} visible, "
                f"{counts['lifted']} lifted, {time.monotonic() - started:.0f} s",
                flush=True,
            )
    if not latency_ms:
        print("error: no frame was rendered", file=sys.stderr)
        return 1
    report = {
        "benchmark": "perception",
        "backend": args.backend,
        "encoder": args.encoder or "data/perception/region_encoder.safetensors",
        "renderer": args.renderer,
        "frames": counts["frames"],
        "first_seed": args.first_seed if args.renderer != "physics" else None,
        "episodes": args.episodes if args.renderer == "physics" else None,
        "visible_objects": counts["visible"],
        "lifted_objects": counts["lifted"],
        "precision": round(counts["matched"] / max(counts["lifted"], 1), 4),
        "recall": round(counts["found"] / max(counts["visible"], 1), 4),
        "label_accuracy": {name: round(correct[name] / max(matched_by[name], 1), 4) for name in correct},
        "place_accuracy": round(counts["places_right"] / max(counts["matched"], 1), 4),
        "localisation_cm": {
            "median": round(float(np.median(errors_cm)), 2) if errors_cm else None,
            "p90": round(float(np.percentile(errors_cm, 90)), 2) if errors_cm else None,
        },
        "latency_ms": {
            "p50": round(float(np.percentile(latency_ms, 50)), 1),
            "p95": round(float(np.percentile(latency_ms, 95)), 1),
            "cpu_p50": round(float(np.percentile(cpu_ms, 50)), 1),
            "cpu_p95": round(float(np.percentile(cpu_ms, 95)), 1),
        },
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "seconds": round(time.monotonic() - started),
    }
    print(json.dumps(report, indent=2))
    if json_file(args.json) is not None:
        write_json(args.json, report)
    return 0

"""`llm-planner bench perception` as a user runs it (a small run; the measured numbers are in docs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.model
def test_bench_perception_writes_its_metrics(tmp_path: Path) -> None:
    out = tmp_path / "perception.json"
    cli = Path(sys.executable).parent / "llm-planner"
    done = subprocess.run(
        [str(cli), "bench", "perception", "--scenes", "3", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["frames"] == 3 and report["renderer"] == "synthetic"
    assert report["visible_objects"] > 0 and 0.0 <= report["precision"] <= 1.0 and 0.0 <= report["recall"] <= 1.0
    assert set(report["label_accuracy"]) == {"vocabulary", "synonyms"}
    assert report["localisation_cm"]["median"] < 5.0
    assert set(report["latency_ms"]) == {"p50", "p95", "cpu_p50", "cpu_p95"}


@pytest.mark.model
def test_bench_perception_on_randomised_physics_scenes(tmp_path: Path) -> None:
    out = tmp_path / "perception.json"
    cli = Path(sys.executable).parent / "llm-planner"
    command = ["bench", "perception", "--renderer", "physics-random", "--scenes", "2", "--first-seed", "5"]
    done = subprocess.run([str(cli), *command, "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["frames"] == 2 and report["renderer"] == "physics-random" and report["first_seed"] == 5
    assert report["visible_objects"] > 0 and report["lifted_objects"] > 0
    assert report["localisation_cm"]["median"] < 5.0


def test_bench_perception_refuses_an_owl_backend_without_its_model(tmp_path: Path) -> None:
    cli = Path(sys.executable).parent / "llm-planner"
    done = subprocess.run(
        [str(cli), "bench", "perception", "--backend", "owlv2", "--scenes", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and "needs `model_dir`" in done.stderr

"""`llm-planner bench scoring --skills/--check-episodes` and `llm-planner bench serving` run end to end
on the tiny model and report what they promise (consistency, not speed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml
from ros_harness import RosGraph, wait_until
from tiny_llm import build_tiny_model

from llm_planner_ros.cli.main import main
from llm_planner_ros.paths import repo_path
from llm_planner_ros.processes import entry_point


@pytest.fixture(scope="module")
def wide_tiny_model_dir(tiny_tokenizer: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with a context window that holds the grounded SayCan prompt of a large kitchen."""
    folder = tmp_path_factory.mktemp("tiny-llama-wide")
    build_tiny_model(tiny_tokenizer, context_window=8192).save_pretrained(folder)
    tiny_tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture
def restore_threads() -> Iterator[None]:
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("restore_threads")
def test_the_skills_bench_compares_pruned_and_exhaustive_steps(wide_tiny_model_dir: Path, tmp_path: Path) -> None:
    out, plot = tmp_path / "skills.json", tmp_path / "skills.png"
    argv = ["bench", "scoring", "--model", str(wide_tiny_model_dir), "--skills", "51,200", "--steps", "2"]
    assert main([*argv, "--instructions", "3", "--threads", "1", "--json", str(out), "--plot", str(plot)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["num_options"] == [51, 200]
    for row in results["skills"]:
        assert row["same_decisions"] is True
        assert row["exhaustive_candidates_scored"] == row["num_options"]
        assert 0 < row["pruned_candidates_scored"] <= row["positive_affordance"] < row["num_options"]
        assert row["pruned_tokens_scored"] < row["exhaustive_tokens_scored"]
        assert row["steps_timed"] >= 2 and row["pruned_peak_rss_gb"] > 0
    assert plot.stat().st_size > 0


@pytest.mark.usefixtures("restore_threads")
def test_the_episode_check_finds_no_difference(wide_tiny_model_dir: Path, tmp_path: Path) -> None:
    data = yaml.safe_load(repo_path("domains/saycan_kitchen/dev.yaml").read_text(encoding="utf-8"))
    data["episodes"] = data["episodes"][:3]
    episodes, out = tmp_path / "episodes.yaml", tmp_path / "check.json"
    episodes.write_text(yaml.safe_dump(data), encoding="utf-8")
    argv = ["bench", "scoring", "--model", str(wide_tiny_model_dir), "--check-episodes", str(episodes)]
    assert main([*argv, "--threads", "1", "--json", str(out)]) == 0
    check = json.loads(out.read_text(encoding="utf-8"))["check"]
    assert check["episodes"] == 3 and check["steps_checked"] >= 3
    assert check["mismatches"] == 0, check["mismatch_details"]
    assert 0 < check["candidates_scored"] < check["candidates"]


@pytest.mark.graph
@pytest.mark.timeout(300)
def test_the_serving_bench_runs_robots_against_one_service(
    ros_graph: RosGraph, wide_tiny_model_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "serving.json"
    bench = ros_graph.start_process(
        [
            entry_point("llm-planner"),
            "bench",
            "serving",
            "--robots",
            "1,2",
            "--instructions",
            "1",
            "--llm",
            f"model={wide_tiny_model_dir}",
            "--json",
            str(out),
        ],
        label="bench-serving",
    )
    wait_until(lambda: bench.returncode is not None, timeout=240, what="the serving bench to finish")
    assert bench.returncode == 0, bench.log()
    runs = json.loads(out.read_text(encoding="utf-8"))["runs"]
    assert [run["robots"] for run in runs] == [1, 2]
    assert [run["instructions"] for run in runs] == [1, 2]
    for run in runs:
        assert run["instructions_per_min"] > 0 and 0 < run["step_p50_s"] <= run["step_p95_s"]
    assert runs[0]["throughput_vs_1"] == 1.0

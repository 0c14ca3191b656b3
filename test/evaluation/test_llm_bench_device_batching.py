"""`llm-planner bench device-batching` runs end to end on the tiny model and reports what it promises
(speed is not checked here: only that every robot count is measured and the outputs are consistent)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from llm_planner_ros.cli.main import main


@pytest.fixture
def restore_threads() -> Iterator[None]:
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("restore_threads")
def test_the_bench_measures_each_robot_count_and_the_constrained_step(tiny_model_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "batching.json"
    argv = ["bench", "device-batching", "--model", str(tiny_model_dir), "--robots", "1,3", "--steps", "2"]
    assert main([*argv, "--json", str(out)]) == 0

    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["device"] == "cpu" and results["skills"] == 51
    assert [row["robots"] for row in results["runs"]] == [1, 3]
    assert results["runs"][0]["sequential_vs_1"] == 1.0
    for row in results["runs"]:
        assert row["sequential_step_s"] > 0 and row["batched_step_s"] > 0
        assert row["batched_steps_per_s"] == pytest.approx(row["robots"] / row["batched_step_s"], rel=0.02)
    # The grammar admits only skill texts, so every constrained step is one, even from random weights.
    assert results["constrained"] == {**results["constrained"], "requests": 3, "skill_texts": 3}
    assert "agreement" not in results  # only measured against the CPU when the device is not the CPU


def test_an_unknown_device_is_refused_with_the_choices(tiny_model_dir: Path, tmp_path: Path) -> None:
    argv = ["bench", "device-batching", "--model", str(tiny_model_dir), "--device", "tpu", "--robots", "1"]
    with pytest.raises(Exception, match="cpu, cuda or cuda:N"):
        main(argv)

"""`llm-planner bench scoring` runs end to end and reports what it promises (on the tiny model: the
numbers are not checked for speed here, only for consistency)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from llm_planner_ros.cli.main import main

SMALL_PROMPT = """
preamble: ["Robot: I work in a kitchen."]
examples:
  - human: How would you bring me a coke?
    robot: [find a coke, pick up the coke, bring it to you, put down the coke, done]
  - human: How would you throw away the sponge?
    robot: [find a sponge, pick up the sponge, go to the trash can, put down the sponge, done]
"""


@pytest.fixture
def restore_threads() -> Iterator[None]:
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("restore_threads")
def test_the_bench_writes_every_number(tiny_model_dir: Path, tmp_path: Path) -> None:
    prompt_file = tmp_path / "prompt.yaml"
    prompt_file.write_text(SMALL_PROMPT, encoding="utf-8")
    out = tmp_path / "scoring.json"

    assert (
        main(
            [
                "bench",
                "scoring",
                "--model",
                str(tiny_model_dir),
                "--prompt-file",
                str(prompt_file),
                "--repeats",
                "2",
                "--threads",
                "1",
                "--json",
                str(out),
            ]
        )
        == 0
    )

    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["model"] == tiny_model_dir.name
    assert results["num_options"] == 51
    assert results["threads"] == 1
    assert results["prompt_tokens"] > 0 and results["candidate_tokens"] >= 51
    assert results["max_abs_diff"] <= 1e-3
    assert results["incremental_vs_cold_diff"] <= 1e-3
    assert len(results["shared_prefix_rounds_s"]) == len(results["step_incremental_rounds_s"]) == 2
    # Times are rounded to milliseconds in the file, the speedup is computed before rounding.
    # Times are printed to the millisecond: the ratio of the rounded times brackets the speedup.
    naive, shared = results["naive_s"], results["shared_prefix_s"]
    assert (
        (naive - 5e-4) / (shared + 5e-4) * 0.99
        <= results["speedup"]
        <= (naive + 5e-4) / max(shared - 5e-4, 1e-9) * 1.01
    )
    for key in ("naive_s", "cold_s", "shared_prefix_s", "step_incremental_s", "naive_cpu_s"):
        assert results[key] > 0, key


def test_the_bench_refuses_an_impossible_repeat_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "scoring", "--repeats", "9"]) == 2
    assert "--repeats must be between 1 and 5" in capsys.readouterr().err

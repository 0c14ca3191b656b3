"""``llm-planner bench affordance``: a short run prints and writes its latency numbers."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from llm_planner_ros.evaluation import affordance_bench as affordance

pytestmark = pytest.mark.graph


@pytest.mark.timeout(180)
def test_short_bench_run_writes_p50_and_p95(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    affordance.add_arguments(parser)
    out = tmp_path / "out" / "affordance.json"
    assert affordance.run(parser.parse_args(["--goals", "20", "--naive-rounds", "2", "--json", str(out)])) == 0
    report = json.loads(out.read_text())
    assert report["skills_per_goal"] == 51
    assert 0 < report["p50_ms"] <= report["p95_ms"]
    assert report["batched"]["rounds"] == 20 and report["naive"]["goals_per_round"] == 51
    # 51 round trips cost more than one carrying the same skills.
    assert report["naive"]["p50_ms"] > report["p50_ms"]
    printed = capsys.readouterr().out
    assert f"p50 {report['p50_ms']:8.2f} ms" in printed

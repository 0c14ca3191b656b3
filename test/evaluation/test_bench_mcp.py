"""``llm-planner bench mcp``: a short run times both paths and judges the overhead by its own numbers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.graph


@pytest.mark.timeout(180)
def test_a_short_run_writes_both_round_trips_and_the_overhead(tmp_path: Path) -> None:
    out = tmp_path / "mcp.json"
    llm_planner = str(Path(sys.executable).parent / "llm-planner")
    run = subprocess.run(
        [llm_planner, "bench", "mcp", "--rounds", "5", "--json", str(out)], capture_output=True, text=True, timeout=170
    )
    report = json.loads(out.read_text())
    assert report["rounds"] == 5
    for kind in ("direct", "mcp"):
        assert 0 < report[kind]["p50_ms"] <= report[kind]["p95_ms"] <= report[kind]["max_ms"]
    assert report["overhead_p95_ms"] == pytest.approx(report["mcp"]["p95_ms"] - report["direct"]["p95_ms"], abs=0.02)
    within = report["overhead_p95_ms"] <= report["target_overhead_p95_ms"]
    assert run.returncode == (0 if within else 1), run.stderr
    assert f"overhead of MCP (list tools + plan) at p95: {report['overhead_p95_ms']:.1f} ms" in run.stdout

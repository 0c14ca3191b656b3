"""`llm-planner bench console` end to end: the console node, its event streams, the page in headless
Chromium and the naive poll all watch the steps it publishes (the numbers are the benchmark's, not the
test's: it only checks that every watcher saw what it should and that the report says so).

The steps are one goal's: a stream sends the board's latest state, so a goal's last step that the next
goal replaced before a slow watcher's next snapshot is never drawn (a CI run under load saw 29 of 30 that
way). Within one goal every step stays on the board, and every watcher must see each one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from console_browser import browser

pytestmark = [pytest.mark.graph, pytest.mark.timeout(180)]


def test_the_console_bench_times_every_step_on_the_page_and_the_streams(tmp_path: Path) -> None:
    with browser():  # skipped (or failed under CI) with how to install Chromium, as the browser tests are
        pass
    report_path = tmp_path / "console.json"
    cli = str(Path(sys.executable).parent / "llm-planner")
    argv = [cli, "bench", "console", "--steps", "30", "--rate-hz", "20", "--steps-per-goal", "30", "--streams", "2"]
    argv += ["--json", str(report_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=150, cwd=tmp_path)
    report = json.loads(report_path.read_text())
    watchers = {row["watcher"]: row for row in report["watchers"]}
    assert list(watchers)[:3] == ["page drawn (headless Chromium)", "event stream 1", "event stream 2"], done.stdout
    for name in list(watchers)[:3]:
        assert watchers[name]["steps_seen"] == 30, (name, done.stdout)
        assert 0 < watchers[name]["p50_ms"] <= watchers[name]["p95_ms"] <= watchers[name]["max_ms"]
    assert report["target_met"] == (watchers["page drawn (headless Chromium)"]["p95_ms"] <= 200.0)
    assert done.returncode == (0 if report["target_met"] else 1), done.stdout + done.stderr
    assert "p95" in done.stdout and (tmp_path / "out" / "bench-console").is_dir()
    assert report["steps_per_goal"] == 30
    refused = subprocess.run([*argv[:3], "--steps-per-goal", "0"], capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "--steps-per-goal must be at least 1, got 0" in refused.stderr

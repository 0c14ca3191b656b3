"""``llm-planner bench physics`` as a user runs it: the fetch succeeds in every run and the numbers are written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import cv2
import pytest

from llm_planner_ros.processes import entry_point


@pytest.mark.timeout(240)
def test_bench_physics_writes_numbers_and_the_frame_strip(tmp_path: Path) -> None:
    out, strip = tmp_path / "physics.json", tmp_path / "frames"
    argv = [entry_point("llm-planner"), "bench", "physics", "--width", "32", "--height", "24", "--camera-hz", "1"]
    argv += ["--runs", "physics_only,cameras_sim_clock"]
    done = subprocess.run(
        [*argv, "--json", str(out), "--record", str(strip)], capture_output=True, text=True, timeout=220, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert set(report["runs"]) == {"physics_only", "cameras_sim_clock"}
    for name, run in report["runs"].items():
        assert run["goal_holds"] and [s["success"] for s in run["skills"]] == [True] * 5, name
        assert run["sim_s"] > 10 and run["real_time_factor"] > 0 and run["steps_per_s"] > 0
    assert report["runs"]["cameras_sim_clock"]["frames"] >= 2 * int(report["runs"]["cameras_sim_clock"]["sim_s"])
    assert report["runs"]["physics_only"]["frames"] == 0
    image = cv2.imread(str(strip / "strip.png"))
    assert image.shape == (2 * 24, 5 * 32, 3), "head over wrist, one column per skill"
    assert "physics_only" in done.stdout

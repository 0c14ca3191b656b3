"""`llm-planner bench kitchen --sim physics` runs episodes through the physics graph (PyBullet kitchen,
nav2 / moveit executors) and scores them on the physics' final state: a fetch episode planned with a
replayed model succeeds, and execution failures are refused (physics decides every outcome)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from replayed_planner_graph import record_plan
from ros_harness import allocate_domain_id
from saycan_quality.saycan_doubles import PreferringModel

pytestmark = [pytest.mark.graph, pytest.mark.timeout(400)]

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}
PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]
LLM_PLANNER = Path(sys.executable).parent / "llm-planner"


# The whole physics graph in a subprocess on two shared cores: one full-suite run of several ended with
# an empty plan under load while the test passes alone in 30 s; one rerun, a real regression fails twice.
@pytest.mark.flaky(reruns=1)
def test_bench_kitchen_sim_physics_scores_a_fetch_on_the_physics_state(tmp_path: Path) -> None:
    recording = record_plan(tmp_path / "saycan.jsonl", "saycan", PreferringModel(PLAN), INSTRUCTION, INITIAL)
    episodes = tmp_path / "episodes.yaml"
    goal = {"at": {"label": "coke", "location": "user"}}
    episode = {"id": "fetch", "family": "test", "instruction": INSTRUCTION, "initial": INITIAL, "goal": goal}
    episodes.write_text(yaml.safe_dump({"world": "saycan_kitchen", "episodes": [episode]}))
    out = tmp_path / "bench.json"
    argv = [str(LLM_PLANNER), "bench", "kitchen", "--sim", "physics", "--episodes", str(episodes)]
    argv += ["--llm", "backend=replay", "--llm", f"recording={recording}", "--json", str(out)]
    env = dict(os.environ, ROS_DOMAIN_ID=str(allocate_domain_id()))
    completed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=360)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads(out.read_text())
    assert result["sim"] == "physics" and result["ros"] is True
    [run] = result["runs"]
    assert run["plan"] == PLAN[:-1] or run["plan"] == PLAN, (run, completed.stderr[-4000:])
    assert run["plan_success"] and result["plan_success"] == 1.0, run

    refused = subprocess.run([*argv, "--execution-failures"], env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "injects no failures" in refused.stderr

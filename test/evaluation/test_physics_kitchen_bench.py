"""`llm-planner bench kitchen --sim physics` runs episodes through the physics graph (PyBullet kitchen,
nav2 / moveit executors) and scores them on the simulator's ground truth (sim/ground_truth), which the
steps log shows: a fetch episode planned with a replayed SayCan model succeeds, and execution failures
are refused (physics decides every outcome).

``--scene perceived`` runs PHYSICS_PERCEPTION_GRAPH: before the episode the robot looks around (the demo's
look around, ros.survey) so perception sees the coke on the far counter, the simulator is reset, and the
planner fetches the coke on perception's scene. ``--affordances learned`` serves the learned value
functions from the affordance server; the runner's readiness check compares the server with the same
backend in-process, so the episode starts at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from language_model_doubles import PreferringModel
from replayed_planner_graph import record_plan
from ros_harness import allocate_domain_id

pytestmark = [pytest.mark.graph, pytest.mark.timeout(600)]

INSTRUCTION = "Bring me the coke, please."
INITIAL = {
    "robot": {"at": "table", "holding": None},
    "objects": [{"id": "coke_1", "label": "coke", "at": "far counter"}],
}
PLAN = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]
LLM_PLANNER = Path(sys.executable).parent / "llm-planner"


def bench_command(tmp_path: Path, *options: str) -> tuple[list[str], dict[str, str]]:
    """The command line (a replayed fetch episode, JSON to tmp_path/bench.json) and its environment."""
    recording = record_plan(tmp_path / "saycan.jsonl", "saycan", PreferringModel(PLAN), INSTRUCTION, INITIAL)
    episodes = tmp_path / "episodes.yaml"
    goal = {"at": {"label": "coke", "location": "user"}}
    episode = {"id": "fetch", "family": "test", "instruction": INSTRUCTION, "initial": INITIAL, "goal": goal}
    episodes.write_text(yaml.safe_dump({"world": "saycan_kitchen", "episodes": [episode]}))
    argv = [str(LLM_PLANNER), "bench", "kitchen", "--sim", "physics", "--episodes", str(episodes), *options]
    argv += ["--llm", "backend=replay", "--llm", f"recording={recording}", "--json", str(tmp_path / "bench.json")]
    # The bench's log folder is a mkdtemp under TMPDIR: here, so the test can read the graph's logs.
    return argv, dict(os.environ, ROS_DOMAIN_ID=str(allocate_domain_id()), TMPDIR=str(tmp_path))


def run_bench(tmp_path: Path, *options: str) -> tuple[dict, Path]:
    """Runs the fetch episode through the physics bench; its JSON and the graph's log folder."""
    argv, env = bench_command(tmp_path, *options)
    completed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=540)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    [log_dir] = tmp_path.glob("kitchen-bench-*")
    return json.loads((tmp_path / "bench.json").read_text()), log_dir / "plan"


def assert_fetched(result: dict, log_dir: Path) -> None:
    assert result["sim"] == "physics" and result["ros"] is True
    [run] = result["runs"]
    survey = log_dir / "survey.log"
    why = f"{run['end_reason']}: {run['message']}\n{survey.read_text() if survey.exists() else ''}"
    assert run["plan"] in (PLAN, PLAN[:-1]), why
    assert run["plan_success"] and result["plan_success"] == 1.0, run
    # The steps log holds the judged worlds: the ground truth, with the coke at the user at the end.
    [entry] = [json.loads(line) for line in (log_dir / "steps.jsonl").read_text().splitlines()]
    at_user = [line for line in entry["final"].splitlines() if line.startswith("user:")]
    assert at_user and "coke" in at_user[0], entry["final"]


def test_bench_kitchen_sim_physics_scores_a_fetch_on_the_physics_state(tmp_path: Path) -> None:
    result, log_dir = run_bench(tmp_path)
    assert result["scene"] == "truth" and result["affordances"] == "analytic"
    assert_fetched(result, log_dir)

    argv, env = bench_command(tmp_path, "--execution-failures")
    refused = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "injects no failures" in refused.stderr


def test_perceived_scene_episode_is_judged_on_ground_truth(tmp_path: Path) -> None:
    result, log_dir = run_bench(tmp_path, "--scene", "perceived")
    assert result["scene"] == "perceived" and result["affordances"] == "analytic"
    assert_fetched(result, log_dir)
    survey = (log_dir / "survey.log").read_text()
    assert "fetch: looking around" in survey and "fetch: simulator reset" in survey, survey
    # Perception forgot what it knew before the look around, and its scene is compared with the truth.
    assert "perception: forgot" in survey and "fetch: perceived against truth: " in survey, survey
    assert list(log_dir.glob("perception*")), sorted(p.name for p in log_dir.iterdir())


def test_learned_affordances_serve_the_physics_bench(tmp_path: Path) -> None:
    result, log_dir = run_bench(tmp_path, "--affordances", "learned")
    assert result["affordances"] == "learned" and result["scene"] == "truth"
    assert_fetched(result, log_dir)
    [server_log] = log_dir.glob("affordance_server*")
    assert "with the learned backend" in server_log.read_text()

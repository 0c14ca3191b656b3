"""The main job end to end: `llm-planner demo` brings up the whole graph with the embedded SmolLM2,
plans and executes an instruction in the simulator, prints the verdict and writes the decision chart.

The first run records every LLM answer (replay backend in record mode over the hf backend); the
second run replays them through a fresh graph and must plan exactly the same, with the same scores:
the replay backend is what makes graph tests and benchmarks deterministic without a model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ros_harness import allocate_domain_id

pytestmark = [pytest.mark.graph, pytest.mark.model]

INSTRUCTION = "How would you bring me a coke can?"


def demo(
    tmp_path: Path, name: str, *llm: str, planner: str = "", instruction: str = INSTRUCTION
) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / f"{name}.json"
    argv = [
        str(Path(sys.executable).parent / "llm-planner"),
        "demo",
        instruction,
        *(["--planner", planner] if planner else []),
        "--max-steps",
        "6",
        "--time-scale",
        "0",
        "--json",
        str(out),
        "--plot",
        str(tmp_path / f"{name}.png"),
        "--log-dir",
        str(tmp_path / f"{name}-logs"),
    ]
    for setting in llm:
        argv += ["--llm", setting]
    env = dict(os.environ, ROS_DOMAIN_ID=str(allocate_domain_id()), COLUMNS="120")
    completed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    assert out.exists(), f"demo wrote no outcome\n{completed.stdout}\n{completed.stderr}"
    return completed, json.loads(out.read_text())


def test_demo_plans_and_executes_with_the_embedded_model_and_replays_identically(tmp_path: Path) -> None:
    recording = tmp_path / "demo.jsonl"
    live, outcome = demo(
        tmp_path, "live", "backend=replay", "replay_mode=record", "record_backend=hf", f"recording={recording}"
    )
    assert "final world state" in live.stdout and "decision chart written" in live.stdout, live.stdout
    assert (tmp_path / "live.png").stat().st_size > 10_000
    steps = outcome["steps"]
    assert steps and steps[0]["skill"] == "find a coke", live.stdout
    assert all(step["candidates"] and step["planning_s"] > 0 for step in steps)
    assert steps[0]["status"] == "succeeded" and "far counter" in outcome["final_state"]["visited"]
    assert live.returncode == (0 if outcome["success"] else 1)
    assert recording.stat().st_size > 0

    replayed, again = demo(tmp_path, "replay", "backend=replay", f"recording={recording}")
    assert [s["skill"] for s in again["steps"]] == [s["skill"] for s in steps], replayed.stdout
    assert [(s["status"], s["message"]) for s in again["steps"]] == [(s["status"], s["message"]) for s in steps]
    for first, second in zip(steps, again["steps"], strict=True):
        assert [c["llm"] for c in second["candidates"]] == [c["llm"] for c in first["candidates"]]
    assert again["final_state"] == outcome["final_state"]


def test_a_progprompt_demo_serves_the_progprompt_adapter_and_its_program_runs(tmp_path: Path) -> None:
    """``demo --planner progprompt`` with the embedded model: the model service merges ProgPrompt's
    adapter (the program prompt of config/planners.yaml is written for it), and the program it writes
    brings the coke."""
    completed, outcome = demo(tmp_path, "progprompt", planner="progprompt", instruction="Bring me the coke.")
    logs = "".join(path.read_text() for path in (tmp_path / "progprompt-logs").rglob("*.log"))
    assert "saycan_kitchen/adapters/progprompt.safetensors into" in logs, logs[-3000:]
    skills = [step["skill"] for step in outcome["steps"]]
    assert skills[:2] == ["find a coke", "pick up the coke"] and skills[-1] == "done", completed.stdout
    assert outcome["success"] and completed.returncode == 0, completed.stdout

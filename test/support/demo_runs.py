"""``llm-planner demo`` as a user runs it, for the graph tests of a domain: the finished process, each
node's log and the JSON outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from ros_harness import allocate_domain_id


def run_demo(
    tmp_path: Path, *options: str, planner: str = "saycan", env: dict[str, str] | None = None
) -> tuple[Any, dict[str, str], dict]:
    """``llm-planner demo --planner PLANNER --time-scale 0`` with ``options``, its JSON outcome and node
    logs under ``tmp_path``: (the finished process, each node's log by name, the outcome)."""
    out = tmp_path / "outcome.json"
    argv = [
        str(Path(sys.executable).parent / "llm-planner"),
        "demo",
        *options,
        *("--planner", planner, "--time-scale", "0", "--json", str(out), "--log-dir", str(tmp_path / "logs")),
    ]
    env = env or dict(os.environ, ROS_DOMAIN_ID=str(allocate_domain_id()), COLUMNS="120")
    completed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    logs = {path.stem: path.read_text() for path in (tmp_path / "logs").glob("*.log")}
    assert out.exists(), f"demo wrote no outcome\n{completed.stdout}\n{completed.stderr}\n{logs}"
    return completed, logs, json.loads(out.read_text())


def replayed_physics_demo(
    tmp_path: Path,
    world: str,
    episode: dict[str, Any],
    sim_params: dict[str, Any],
    recording: Path,
    *options: str,
) -> list[str]:
    """The argv of ``llm-planner demo --sim physics`` on ``episode`` (written to an episode file of ``world``)
    with ``sim_params`` for physics_sim and the model replayed from ``recording``; node logs go to
    ``tmp_path / "logs"``, ``options`` go before the episode options."""
    episodes = tmp_path / "episodes.yaml"
    episodes.write_text(yaml.safe_dump({"world": world, "episodes": [episode]}))
    params = tmp_path / "fast.yaml"
    params.write_text(yaml.safe_dump({"physics_sim": {"ros__parameters": sim_params}}))
    return [
        str(Path(sys.executable).parent / "llm-planner"),
        "demo",
        "--sim",
        "physics",
        *options,
        *("--episode", str(episodes), "--id", str(episode["id"]), "--params-file", str(params)),
        *("--llm", "backend=replay", "--llm", f"recording={recording}", "--log-dir", str(tmp_path / "logs")),
    ]


USER_DEVICES = Path(__file__).parent / "user_devices.py"


@contextmanager
def user_devices_running(env: dict[str, str], record: Path, *params: str) -> Iterator[None]:
    """``user_devices.py`` (a user's button device and affordance server) running in ``env`` with the
    parameters ``params`` (``name:=value``), each goal recorded to ``record``, until the block ends."""
    arguments = [arg for param in (f"record_file:={record}", *params) for arg in ("-p", param)]
    devices = subprocess.Popen(
        [sys.executable, str(USER_DEVICES), "--ros-args", *arguments],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert devices.stdout is not None and "user devices ready" in devices.stdout.readline()
        yield
    finally:
        devices.terminate()
        devices.wait(timeout=10)

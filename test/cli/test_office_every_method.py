"""Every method plans and executes in the shipped office through the graph, as a user runs it
(``llm-planner demo --domain domains/office --planner METHOD --id EPISODE``): the model service merges the
office's own adapter for the method (SayCanPay: the base model, with the office's own Can and Pay
models), a skill of a family the kitchen does not have runs on the executor the office declares for it,
and the episode's goal holds. SayCan's run is test_domain_demo's door episode."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_runs import run_demo
from repo_paths import REPO_ROOT

pytestmark = [pytest.mark.graph, pytest.mark.model]

OFFICE = REPO_ROOT / "domains" / "office"


@pytest.mark.parametrize(
    ("planner", "episode", "skill", "executor", "own_adapter"),
    [
        ("progprompt", "wipe-01", "wipe the desk", "wiper", True),
        ("llm_planner", "elevator-01", "press the elevator button", "presser", True),
        ("zero_shot", "printer-01", "switch on the printer", "manipulator", True),
        ("saycanpay", "door-01", "open the door", "manipulator", False),
    ],
)
def test_every_method_plans_and_executes_an_office_episode_through_the_graph(
    tmp_path: Path, planner: str, episode: str, skill: str, executor: str, own_adapter: bool
) -> None:
    completed, logs, outcome = run_demo(tmp_path, "--domain", str(OFFICE), "--id", episode, planner=planner)
    assert f"episode {episode} goal holds" in completed.stdout, completed.stdout
    ran = [(step["skill"], step["status"]) for step in outcome["steps"]]
    assert (skill, "succeeded") in ran, ran
    assert f"'{skill}' succeeded" in logs[f"{executor}_executor"], logs[f"{executor}_executor"]
    merged = f"merged the adapter {OFFICE / 'adapters' / f'{planner}.safetensors'}"
    assert (merged in logs["llm_service"]) is own_adapter, logs["llm_service"]

"""`bench kitchen` on requests that need nothing done: through the planner node's checks they are held
back (no skill dispatched); without them (`--no-checks`) a method that acts is a `not_held_back` failure;
tasks refused are counted as false refusals."""

from __future__ import annotations

import pytest
from repo_paths import REPO_ROOT
from scripted_planner import ScriptedPlanner

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.evaluation.kitchen_benchmark import evaluate_episode, plan_in_process, summarize
from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.planning.request_loop import RequestChecks

pytestmark = pytest.mark.model

HOLD_BACK = REPO_ROOT / "domains" / "saycan_kitchen" / "hold_back_dev.yaml"
TASKS = REPO_ROOT / "domains" / "saycan_kitchen" / "tasks_dev.yaml"


def test_held_back_requests_and_false_refusals_are_counted() -> None:
    kitchen = load_domain_files()
    checks = RequestChecks.of_domain(kitchen, load_embedder({}))
    held = [e for e in load_episodes(HOLD_BACK, kitchen) if e.family == "hold_back_stop"][:3]
    task = next(e for e in load_episodes(TASKS, kitchen) if e.family == "task_deliver")
    pick = [f"pick up the {obj['label']}" for obj in held[0].initial.to_initial()["objects"]][:1]

    def runner_with(checks_or_none):
        return lambda episode, _failures: plan_in_process(ScriptedPlanner(pick), episode, kitchen, None, checks_or_none)

    runs = [evaluate_episode(e, kitchen, runner_with(checks), None, False) for e in held]
    assert all(run.plan_success and run.held_back and run.refused for run in runs)
    unchecked = evaluate_episode(held[0], kitchen, runner_with(None), None, False)
    assert not unchecked.plan_success and unchecked.failure == "not_held_back", unchecked
    refused_task = evaluate_episode(task, kitchen, runner_with(checks), None, False)
    assert not refused_task.refused  # a delivery is planned (the script fails it, which is no refusal)
    summary = summarize([*runs, unchecked, refused_task])
    assert summary["held_back"] == 0.75 and summary["false_refusals"] == 0.0
    assert summary["failures"]["not_held_back"] == 1

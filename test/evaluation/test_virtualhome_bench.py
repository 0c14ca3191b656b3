"""``llm-planner bench virtualhome`` on three tasks, as a user runs it: the embedded model plans each task
with SayCan through the plan loop in eai-eval's simulator, and the benchmark's own scorer scores the
answers. The three tasks have node, edge and action goals, so the scorer can summarize them alone; two ask
for SLEEP, an action without objects that the scorer's answer format cannot carry, so only "Pet cat" can
succeed."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from llm_planner_ros.evaluation.virtualhome_bench import summarize, unplanned
from llm_planner_ros.planning.virtualhome_environment import VirtualHomeEnvironment
from llm_planner_ros.virtualhome_domain.examples import development_split, goal_subset, load_examples, program_task
from llm_planner_ros.virtualhome_domain.tasks import parse_script, tasks

pytestmark = pytest.mark.timeout(600)
IDS = ["1027_2", "12_2", "181_1"]
CLI = str(Path(sys.executable).parent / "llm-planner")


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    command = [CLI, "bench", "virtualhome", "--planner", "saycan", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=500)


def test_saycan_plans_three_tasks_and_the_benchmarks_scorer_scores_them(tmp_path: Path) -> None:
    report_file, table = tmp_path / "saycan.json", tmp_path / "saycan.md"
    run = bench("--tasks", ",".join(IDS), "--json", str(report_file), "--markdown", str(table))
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(report_file.read_text())
    rows = {row["id"]: row for row in report["rows"]}
    assert list(rows) == IDS
    summary = report["summary"]
    assert summary["tasks"] == summary["scored"] == 3
    # SayCan dispatches only what VirtualHome's preconditions allow: the scorer's simulator runs every step
    assert summary["execution_success"] == 100.0
    assert all(row["failed_steps"] == 0 and row["plan"] for row in rows.values())
    objects = {task.identifier: set(task.objects) for task in tasks(IDS)}
    for identifier, row in rows.items():  # the answer is the plan, naming only the task's objects
        actions = [parse_script(line) for line in row["answer"]]
        assert len(actions) == len(row["plan"]) and all(set(a.objects) <= objects[identifier] for a in actions)
    # the environment's goal check is the scorer's: the same tasks succeed in both
    assert summary["own_goal_check"] == pytest.approx(summary["task_success"], abs=0.01)
    assert not rows["1027_2"]["goals_reached"] and not rows["181_1"]["goals_reached"]
    assert rows["12_2"]["instruction"] == "Pet cat. In the end: you are close to the cat. Do at some point: touch."
    assert "| GPT-4o (published) | 61.6 |" in table.read_text()

    # --resume keeps the tasks the file has and plans only the others
    report["rows"] = report["rows"][:2]
    report_file.write_text(json.dumps(report))
    again = bench("--tasks", ",".join(IDS), "--json", str(report_file), "--resume")
    assert again.returncode == 0, again.stdout + again.stderr
    resumed = json.loads(again_text := report_file.read_text())
    assert [row["id"] for row in resumed["rows"]] == IDS, again_text
    assert resumed["rows"][:2] == report["rows"]


def test_a_task_the_bench_could_not_plan_is_failed_with_its_reason_and_scored_as_such() -> None:
    rows = [unplanned(task.identifier, task.name, "RuntimeError: simulator lost") for task in tasks(IDS)]
    assert rows[0]["end"] == "error: RuntimeError: simulator lost"
    summary = summarize(rows, {task.identifier: task for task in tasks(IDS)})
    assert summary["task_success"] == 0.0 and summary["execution_success"] == 0.0
    assert summary["per_task_error"] == {identifier: "parsing" for identifier in IDS}


def test_an_unknown_task_or_a_resume_without_a_file_is_refused_before_anything_loads() -> None:
    run = bench("--tasks", "12_2,0_0")
    assert run.returncode != 0 and "no VirtualHome action-sequencing task 0_0; ids are like 27_2" in run.stderr
    run = bench("--resume")
    assert run.returncode != 0 and "--resume needs --json PATH" in run.stderr
    run = bench("--every", "0")
    assert run.returncode != 0 and "--every must be at least 1, got 0" in run.stderr
    run = bench("--dev-goals", "part")
    assert run.returncode != 0 and "--dev-goals part needs --dev" in run.stderr
    run = bench("--option", "top_k=five")
    assert run.returncode == 2 and "saycan's top_k takes a whole number (packaged: 5)" in run.stderr
    assert "loading the language model" not in run.stdout
    run = bench("--option", "terminate_afordance=0.1")
    assert run.returncode == 2 and "--option terminate_afordance: saycan has no such option" in run.stderr


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("llm_temperature=.nan", "--option llm_temperature=.nan: saycan's llm_temperature takes a finite number"),
        ("top_k=[unclosed", "--option top_k=[unclosed: not a plain YAML value (expected ',' or ']'"),
        ("top_k=!!python/name:os.system", "not a plain YAML value (could not determine a constructor for the tag"),
    ],
    ids=["nan", "unclosed", "python-tag"],
)
def test_an_option_value_the_method_cannot_take_is_refused_before_the_model_loads(option: str, message: str) -> None:
    run = bench("--option", option)
    assert (run.returncode, "Traceback" in run.stderr, message in run.stderr) == (2, False, True), run.stderr
    assert "loading the language model" not in run.stdout


def test_a_markdown_path_that_cannot_be_written_is_refused_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("a file, not a folder")
    table = tmp_path / "notes" / "table.md"
    run = bench("--markdown", str(table))
    assert run.returncode == 2 and f"--markdown {table}: {tmp_path / 'notes'} is a file" in run.stderr, run.stderr
    assert "reading" not in run.stdout


def test_a_run_too_small_for_the_scorer_says_so_and_keeps_its_rows(tmp_path: Path) -> None:
    # The benchmark's first 50 tasks have no action goal the scorer scores: it cannot summarize them.
    report_file, table = tmp_path / "one.json", tmp_path / "one.md"
    run = bench("--limit", "1", "--max-steps", "2", "--json", str(report_file), "--markdown", str(table))
    shown = " ".join(run.stdout.split())  # rich wraps lines at the pipe's 80 columns
    needs = "it needs at least the first 51 of the tasks asked for (--limit 51)"
    assert run.returncode == 1, run.stdout + run.stderr
    assert needs in shown.split("loading the language model")[0], shown
    report = json.loads(report_file.read_text())
    assert [row["id"] for row in report["rows"]] == ["27_2"] and report["rows"][0]["plan"]
    assert needs in report["summary"]["scorer"] and needs in table.read_text()


def test_dev_plans_development_tasks_scored_by_their_own_goals(tmp_path: Path) -> None:
    _, development = development_split(load_examples())
    chosen = development[:2]
    report_file, table = tmp_path / "dev.json", tmp_path / "dev.md"
    ids = ",".join(example.id for example in chosen)
    run = bench("--dev", "--tasks", ids, "--json", str(report_file), "--markdown", str(table))
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(report_file.read_text())
    assert report["tasks_from"] == "development"
    rows = report["rows"]
    assert [row["instruction"] for row in rows] == [example.instruction for example in chosen]
    reached = sum(row["all_goals_hold"] for row in rows)
    assert report["summary"]["goal_success"] == 100.0 * reached / 2
    assert "| development tasks | all goals hold % |" in table.read_text() and "published" not in table.read_text()

    # with part of its goals: the request asks for what goal_subset drew for the task, every run the same
    first = chosen[0]
    part = goal_subset(program_task(first.id), random.Random(f"dev/{first.id}"))
    part_file = tmp_path / "dev_part.json"
    run = bench("--dev", "--dev-goals", "part", "--tasks", first.id, "--max-steps", "2", "--json", str(part_file))
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(part_file.read_text())
    assert report["tasks_from"] == "development (part of the goals)"
    assert report["rows"][0]["instruction"] == VirtualHomeEnvironment.for_task(part).instruction()
    assert report["rows"][0]["instruction"] != first.instruction
    run = bench("--dev", "--tasks", first.id, "--json", str(part_file), "--resume")
    assert run.returncode != 0 and "holds a run on the development (part of the goals) tasks" in run.stderr

    # a benchmark run is not resumed as a development run, nor an unknown development task planned
    run = bench("--tasks", "12_2", "--json", str(report_file), "--resume")
    assert run.returncode != 0 and "holds a run on the development tasks, not the benchmark ones" in run.stderr
    run = bench("--dev", "--tasks", "12_2")
    assert run.returncode != 0 and "no VirtualHome development task (--dev) 12_2" in run.stderr

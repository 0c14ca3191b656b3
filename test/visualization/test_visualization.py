"""Plans can be looked at: the terminal score table, the decision chart, the benchmark report and chart."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.evaluation.kitchen_report import markdown_report, write_family_chart
from llm_planner_ros.planning.decision import CandidateScore, StepRecord, StepStatus
from llm_planner_ros.visualization.decision_chart import write_decision_chart
from llm_planner_ros.visualization.score_table import step_table


def _record(index: int, chosen: str, others: list[str], status: StepStatus = StepStatus.SUCCEEDED) -> StepRecord:
    candidates = tuple(
        CandidateScore(Skill(text, "goto"), llm=-0.5 * rank, affordance=0.9, combined=0.9 * 2.718 ** (-0.5 * rank))
        for rank, text in enumerate([chosen, *others])
    )
    return StepRecord(index, Skill(chosen, "goto"), candidates, status=status, message="done: " + chosen)


def test_score_table_lists_candidates_with_their_scores() -> None:
    console = Console(record=True, width=120)
    console.print(step_table(_record(0, "find a coke", ["go to the table"], StepStatus.FAILED)))
    text = console.export_text()
    assert "step 1: find a coke failed" in text
    assert "go to the table" in text and "0.607" in text  # p_LLM = exp(-0.5)
    assert " pay " not in text  # SayCan has no payoff: no column of ones


def test_score_table_shows_the_payoff_of_a_method_that_has_one() -> None:
    record = _record(0, "pick up the key", ["go to the door"])
    record = StepRecord(
        0,
        record.skill,
        tuple(
            CandidateScore(c.skill, c.llm, c.affordance, combined=c.combined, pay=p)
            for c, p in zip(record.candidates, (0.8, 0.25), strict=True)
        ),
    )
    console = Console(record=True, width=120)
    console.print(step_table(record))
    header, *rows = [
        line for line in console.export_text().splitlines() if "pay" in line or "0.80" in line or "0.25" in line
    ]
    assert "pay" in header and any("0.80" in row for row in rows) and any("0.25" in row for row in rows)


def test_decision_chart_is_written_and_refuses_an_empty_plan(tmp_path: Path) -> None:
    steps = [_record(0, "find a coke", ["go to the table", "done"]), _record(1, "done", ["find a coke"])]
    path = write_decision_chart(steps, tmp_path / "charts" / "plan.png", "bring me a coke")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5_000
    with pytest.raises(ValueError, match="no step with candidate scores"):
        write_decision_chart([], tmp_path / "empty.png")


def test_benchmark_report_and_chart(tmp_path: Path) -> None:
    failures = {
        "llm_error": 1, "affordance_error": 0, "early_termination": 0, "step_limit": 0, "error": 0, "not_held_back": 0
    }  # fmt: skip
    family = {
        "episodes": 2,
        "plan_success": 0.5,
        "execution_success": 0.5,
        "exec": 1.0,
        "gcr": 0.75,
        "held_back": None,
        "false_refusals": 0.0,
        "mean_plan_length": 4.0,
        "llm_calls_per_episode": 5.0,
        "wall_s_per_episode": 1.5,
        "failures": failures,
    }
    summary = {**family, "families": {"nl_verbs": family}}
    report = markdown_report(summary, "test run")
    assert "| nl_verbs | 2 | 50% | 50% | 100% | 75% | - | 0% | 4.0 | 5.0 | 1.5 | 1 | 0 | 0 | 0 | 0 | 0 |" in report
    assert write_family_chart(summary, tmp_path / "families.png", "test run").stat().st_size > 5_000

"""The per-step candidate table shown live in the terminal (rich)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from llm_planner_ros.planning.decision import StepRecord, StepStatus

_STATUS_STYLE = {
    StepStatus.PLANNED: ("planned", "cyan"),
    StepStatus.RUNNING: ("running", "yellow"),
    StepStatus.SUCCEEDED: ("succeeded", "green"),
    StepStatus.FAILED: ("failed", "red"),
    StepStatus.SKIPPED: ("skipped", "magenta"),
    StepStatus.CANCELED: ("canceled", "red"),
}


def step_table(record: StepRecord) -> Table:
    """Top candidates of one step with their LLM probability, affordance, payoff (for a method that
    has one: SayCanPay) and combined score; the chosen skill is bold, and the title carries the step's
    status and message."""
    label, style = _STATUS_STYLE[record.status]
    title = f"step {record.index + 1}: [bold]{record.skill.text}[/bold] [{style}]{label}[/{style}]"
    if record.message:
        title += f" - {record.message}"
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column("candidate skill")
    table.add_column("p_LLM", justify="right")
    table.add_column("log p_LLM", justify="right")
    table.add_column("affordance", justify="right")
    # Pay is 1.0 for every candidate of a method without it: a column of ones would only suggest one.
    with_pay = any(candidate.pay != 1.0 for candidate in record.candidates)
    if with_pay:
        table.add_column("pay", justify="right")
    table.add_column("combined", justify="right")
    for candidate in record.candidates:
        chosen = candidate.skill.text == record.skill.text
        table.add_row(
            candidate.skill.text,
            f"{candidate.llm_probability:.3f}",
            f"{candidate.llm:.2f}",
            f"{candidate.affordance:.2f}",
            *([f"{candidate.pay:.2f}"] if with_pay else []),
            f"{candidate.combined:.3f}",
            style="bold" if chosen else None,
        )
    return table


def step_text(record: StepRecord, width: int = 100) -> str:
    """``step_table`` as plain text (no colour or markup), for readers that are not a terminal: an agent."""
    console = Console(width=width, color_system=None, record=True, file=io.StringIO())
    console.print(step_table(record))
    return console.export_text().rstrip()

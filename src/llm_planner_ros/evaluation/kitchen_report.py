"""The kitchen benchmark's summary as a Markdown report and as a per-family bar chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llm_planner_ros.evaluation.failure_analysis import FAILURE_KINDS
from llm_planner_ros.visualization.figures import pyplot, save_figure

_COLUMNS = (
    "episodes",
    "plan_success",
    "execution_success",
    "exec",
    "gcr",
    "held_back",
    "false_refusals",
    "mean_plan_length",
    "llm_calls_per_episode",
    "wall_s_per_episode",
)

_PERCENT = ("plan_success", "execution_success", "exec", "gcr", "held_back", "false_refusals")


def markdown_report(summary: dict[str, Any], title: str) -> str:
    """A table with one row per family and the overall row, then the failure breakdown."""
    header = [
        "family", "n", "plan SR", "exec SR", "Exec", "GCR", "held back", "false refusals", "length", "LLM calls",
        "s/episode", *FAILURE_KINDS,
    ]  # fmt: skip
    lines = [f"# {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    rows = [*summary["families"].items(), ("**all**", summary)]
    for name, values in rows:
        cells = [name, str(values["episodes"])]
        for key in _COLUMNS[1:]:
            value = values[key]
            if value is None:
                cells.append("-")  # no episode of the kind (held back: no hold-back episode; refusals: no task)
            elif key in _PERCENT:
                cells.append(f"{100 * value:.0f}%")
            else:
                cells.append(f"{value:.1f}")
        cells += [str(values["failures"][kind]) for kind in FAILURE_KINDS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_family_chart(summary: dict[str, Any], path: str | Path, title: str) -> Path:
    """Grouped bars of plan and execution success per family (and overall), as PNG."""
    plt = pyplot()
    names = [*summary["families"], "all"]
    values = [*summary["families"].values(), summary]
    figure, axis = plt.subplots(figsize=(max(6.0, 1.1 * len(names)), 4.0))
    positions = range(len(names))
    for offset, (key, label) in zip(
        (-0.2, 0.2), (("plan_success", "plan"), ("execution_success", "execution")), strict=True
    ):
        axis.bar([p + offset for p in positions], [100 * v[key] for v in values], width=0.4, label=label)
    axis.set_xticks(list(positions))
    axis.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    axis.set_ylabel("success (%)")
    axis.set_ylim(0, 100)
    axis.set_title(title, fontsize=10)
    axis.legend()
    return save_figure(figure, path)

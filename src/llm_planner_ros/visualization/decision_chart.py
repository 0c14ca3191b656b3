"""The decision chart of the SayCan paper's Figure 5, as a PNG.

One row per step; three panels per row: the LLM probability, the affordance and the combined
score of that step's top candidates, the chosen skill highlighted. It shows at a glance where the
language model and the affordances disagreed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.visualization.figures import pyplot, save_figure

_PANELS = (("LLM  p(skill | prompt)", "llm_probability"), ("affordance", "affordance"), ("combined", "combined"))


def write_decision_chart(steps: Sequence[StepRecord], path: str | Path, instruction: str = "") -> Path:
    """Write the chart of ``steps`` (those with candidates) to ``path``; returns the path written."""
    plt = pyplot()
    rows = [step for step in steps if step.candidates]
    if not rows:
        raise ValueError("no step with candidate scores to chart (was the plan empty?)")
    top_k = max(len(step.candidates) for step in rows)
    figure, axes = plt.subplots(len(rows), len(_PANELS), figsize=(13, 0.42 * top_k * len(rows) + 1.2), squeeze=False)
    for row, step in enumerate(rows):
        labels = [c.skill.text for c in step.candidates][::-1]
        for column, (title, attribute) in enumerate(_PANELS):
            axis = axes[row][column]
            values = [float(getattr(c, attribute)) for c in step.candidates][::-1]
            colors = ["tab:green" if label == step.skill.text else "tab:gray" for label in labels]
            axis.barh(range(len(values)), values, color=colors)
            axis.set_yticks(range(len(labels)))
            axis.set_yticklabels(labels if column == 0 else [], fontsize=8)
            # Each row gets its own scale: late steps often have all probabilities far below early ones.
            axis.set_xlim(0, 1.0 if column == 1 else max(1e-6, max(values)) * 1.1)
            axis.tick_params(axis="x", labelsize=7)
            axis.set_title(f"step {step.index + 1}: {title}", fontsize=9, loc="left")
    if instruction:
        figure.suptitle(instruction, fontsize=11)
    return save_figure(figure, path)

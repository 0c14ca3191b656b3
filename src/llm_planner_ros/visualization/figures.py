"""Headless matplotlib: figures are created off-screen and written as PNG files."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (no display on robots, CI or over ssh)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(figure: Any, path: str | Path) -> Path:
    """Lay out, write ``figure`` to ``path`` (parents created) and free it; returns the path."""
    figure.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)
    pyplot().close(figure)
    return out

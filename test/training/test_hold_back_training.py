"""``llm-planner train hold-back`` at a tiny size: its stages write features and a weight file the planner
loads, generated domains are written and used, and ``--resume`` keeps the features it drew."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_planner_ros.cli.main import main
from llm_planner_ros.planning.hold_back.classifier import HoldBackModel

pytestmark = pytest.mark.model

TINY = ["--synthetic", "1", "--generated", "2", "--generated-tasks", "3", "--per-kind", "3", "--bank-tasks", "5"]


def test_the_model_trains_on_shipped_synthetic_and_generated_domains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hold_back.npz"
    command = ["train", "hold-back", "--out", str(out), "--work", str(tmp_path / "work"), *TINY]
    assert main(command) == 0
    printed = capsys.readouterr().out
    assert "gen_0000: " in printed and "gen_0001: " in printed and "synthetic-00: " in printed, printed
    assert sorted(path.name for path in (tmp_path / "work" / "generated").iterdir()) == ["gen_0000", "gen_0001"]
    model = HoldBackModel.load(out)
    assert model.weights.shape[1] == 4 and model.embedder
    (features,) = (tmp_path / "work").glob("features_*.npz")
    assert "generated2x3" in features.name

    assert main([*command, "--resume"]) == 0
    assert f"[features] kept {features}" in capsys.readouterr().out


def test_a_negative_count_is_refused_with_what_each_option_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hold_back.npz"
    assert main(["train", "hold-back", "--out", str(out), "--work", str(tmp_path), "--generated", "-1"]) != 0
    error = capsys.readouterr().err
    assert "--generated(-tasks) and --bank-tasks >= 0" in error, error
    assert not out.exists() and not (tmp_path / "generated").exists()

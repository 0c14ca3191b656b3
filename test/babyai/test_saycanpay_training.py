"""The Can/Pay training command: a small seeded run, resumed from its checkpoint, loads as its kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.planning.saycanpay.models import ScorerLoadError, load_scorer
from llm_planner_ros.training.saycanpay_models import main

TRAIN = Path(__file__).resolve().parents[2] / "benchmarks" / "babyai" / "train.txt"


@pytest.mark.model
def test_train_then_resume_and_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    episodes = tmp_path / "small.txt"
    episodes.write_text("\n\n".join(TRAIN.read_text().strip().split("\n\n")[:6]) + "\n")
    out = tmp_path / "pay.safetensors"
    common = ["pay", "--episodes", str(episodes), "--out", str(out), "--dim", "16", "--layers", "1", "--threads", "1"]
    assert main([*common, "--epochs", "1"]) == 0
    first = capsys.readouterr().out
    assert "epoch 1/1 loss" in first and "val mse" in first and out.is_file()
    assert main([*common, "--epochs", "2", "--resume"]) == 0
    second = capsys.readouterr().out
    assert "resumed from" in second and "epoch 2/2" in second and "epoch 1/" not in second
    embedder = load_embedder({})
    scorer = load_scorer(out, "pay", embedder)
    assert scorer.meta["training"]["train_trajectories"] + scorer.meta["training"]["val_trajectories"] == 6
    with pytest.raises(ScorerLoadError, match="not a can model"):
        load_scorer(out, "can", embedder)
    with pytest.raises(SystemExit):
        main(["pay", "--episodes", str(episodes), "--out", str(tmp_path / "other.safetensors"), "--resume"])

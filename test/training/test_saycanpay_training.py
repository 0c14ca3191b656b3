"""The Can/Pay training command: a small seeded run, resumed from its checkpoint, loads as its kind."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.cli.main import run_command
from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.planning.saycanpay.models import ROLES, ScorerLoadError, load_scorer
from llm_planner_ros.training.saycanpay_models import babyai_trajectories, groups

TRAIN = REPO_ROOT / "benchmarks" / "babyai" / "train.txt"


@pytest.mark.model
def test_train_then_resume_and_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    episodes = tmp_path / "small.txt"
    episodes.write_text("\n\n".join(TRAIN.read_text().strip().split("\n\n")[:6]) + "\n")
    out = tmp_path / "pay.safetensors"
    train = ["train", "saycanpay", "pay", "--episodes", str(episodes)]
    common = [*train, "--out", str(out), "--dim", "16", "--layers", "1", "--threads", "1"]
    assert run_command([*common, "--epochs", "1"]) == 0
    first = capsys.readouterr().out
    assert "epoch 1/1 loss" in first and "val mse" in first and out.is_file()
    assert run_command([*common, "--epochs", "2", "--resume"]) == 0
    second = capsys.readouterr().out
    assert "resumed from" in second and "epoch 2/2" in second and "epoch 1/" not in second
    embedder = load_embedder({})
    scorer = load_scorer(out, "pay", embedder)
    assert scorer.meta["training"]["train_trajectories"] + scorer.meta["training"]["val_trajectories"] == 6
    with pytest.raises(ScorerLoadError, match="not a can model"):
        load_scorer(out, "can", embedder)
    with pytest.raises(SystemExit):
        run_command([*train, "--out", str(tmp_path / "other.safetensors"), "--resume"])


def test_can_groups_add_state_rejected_negatives_and_drop_allowed_ones(tmp_path: Path) -> None:
    episodes = tmp_path / "small.txt"
    episodes.write_text("\n\n".join(TRAIN.read_text().strip().split("\n\n")[:8]) + "\n")
    trajectories = babyai_trajectories(episodes)
    built = groups("can", trajectories, 0.9, random.Random(0), state_negatives=2)
    steps = [(t, i) for t in trajectories for i in range(len(t.plan))]
    assert len(built) == len(steps)
    hard_total = 0
    next_role = ROLES.index("next")
    for group, (trajectory, i) in zip(built, steps, strict=True):
        positive, *negatives = group
        assert positive.target == 1.0
        assert next(text for role, text in positive.units if role == next_role) == trajectory.plan[i]
        for negative in negatives:
            action = next(text for role, text in negative.units if role == next_role)
            assert negative.target == 0.0 and action not in trajectory.allowed[i]
            if negative.state_negative:
                assert action in trajectory.rejected[i]
        hard = [n for n in negatives if n.state_negative]
        assert len(hard) == min(2, len(trajectory.rejected[i]))
        hard_total += len(hard)
    assert hard_total > 0
    # pay groups carry no state negatives
    assert not any(e.state_negative for g in groups("pay", trajectories, 0.9, random.Random(0), 2) for e in g)

"""Training across generated domains (the general adapters and SayCanPay models of data/general_adapters):
every example is written in the domain it was drawn from, and a model of several domains loads in any."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import pytest
from rich.console import Console
from saycan_doubles import word_tokenizer

from llm_planner_ros.cli.main import run_command
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.factory import load_embedder
from llm_planner_ros.planning.saycanpay.models import load_scorer
from llm_planner_ros.training.saycan_adapter import add_arguments, bank_data


@pytest.fixture(scope="module")
def domains(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two generated domains of different settings, each with a bank of 6 solved tasks."""
    root = tmp_path_factory.mktemp("generated")
    assert run_command(["domain", "generate", str(root), "--seeds", "0:2", "--episodes", "1"]) == 0
    folders = sorted(path for path in root.iterdir() if path.is_dir())
    for folder in folders:
        assert run_command(["domain", "build", str(folder), "--generate", "6", "--seed", "1"]) == 0
    return folders


def places(folder: Path) -> set[str]:
    return set(load_domain(folder).config.places(with_drawer=True))


def test_each_training_example_is_written_in_its_own_domain(domains: list[Path]) -> None:
    own = [places(folder) - places(other) for folder, other in zip(domains, reversed(domains), strict=True)]
    assert all(own), "the two generated domains share every place: pick other seeds"
    texts = [(folder / name).read_text() for folder in domains for name in ("world.yaml", "skills.yaml", "bank.jsonl")]
    tokenizer = word_tokenizer(texts)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    arguments = ["--domains", *map(str, domains), "--method", "progprompt", "llm_planner", "--examples", "4"]
    args = parser.parse_args([*arguments, "--validation", "2", "--program-examples", "none", "--scene-context"])
    sequences, validation = bank_data(args, tokenizer, random.Random(0), Console(quiet=True))
    assert len(sequences) == 8 and len(validation) == 2
    seen = set()
    for sequence in [*sequences, *validation]:
        text = tokenizer.decode(sequence.ids)
        mentioned = [index for index, names in enumerate(own) if any(name in text for name in names)]
        assert len(mentioned) == 1, text
        seen.add(mentioned[0])
    assert seen == {0, 1}  # drawn from both


def test_training_across_domains_refuses_one_bank_and_a_models_example_programs(domains: list[Path]) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    console = Console(quiet=True)
    for extra in (["--bank", "other.jsonl"], ["--neighbours", "2"], ["--method", "progprompt"]):
        args = parser.parse_args(["--domains", *map(str, domains), *extra])
        with pytest.raises(SystemExit, match="--domain"):
            bank_data(args, None, random.Random(0), console)


@pytest.mark.model
def test_a_can_model_of_several_domains_records_no_world_and_loads_in_each(domains: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "can.safetensors"
    folders = [str(folder) for folder in domains]
    command = ["train", "saycanpay", "can", "--domain-folder", *folders, "--epochs", "1", "--dim", "16"]
    assert run_command([*command, "--layers", "1", "--threads", "1", "--out", str(out)]) == 0
    embedder = load_embedder({})
    for folder in domains:
        kitchen = load_domain(folder)
        scorer = load_scorer(out, "can", embedder, "kitchen", kitchen.library, (kitchen.config.world, "build it"))
        assert scorer.meta["training"]["train_trajectories"] + scorer.meta["training"]["val_trajectories"] == 12
    with pytest.raises(InputError, match="--out is required"):
        run_command(command)

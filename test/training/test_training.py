"""Training data and mechanics of the SayCan adapter: what is scored, how families are drawn, the split model."""

from __future__ import annotations

import contextlib
import io
import random
import re
from collections import Counter
from pathlib import Path

import pytest
import torch
from language_model_doubles import WordEmbedder
from repo_paths import REPO_ROOT
from saycan_doubles import tiny_llama, word_tokenizer

from llm_planner_ros.cli.main import run_command
from llm_planner_ros.llm.lora import MODULE_PATHS, AdapterSpec, attach
from llm_planner_ros.paths import config_file
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt
from llm_planner_ros.planning.saycan.retrieval import ExampleRetriever
from llm_planner_ros.planning.saycan.training import dialog_text, encode
from llm_planner_ros.training.saycan_adapter import TopLayerTrainer, balanced_sample, neighbours

PROMPT = SayCanPrompt.from_yaml(config_file("saycan_grounded_prompt.yaml"))
EXAMPLE = PlanExample(
    "x",
    "deliver",
    "nl_verbs",
    "Bring me a coke.",
    "Scene: robot at the table, holding nothing.",
    ("find a coke", "pick up the coke", "done"),
    {},
    {},
)


def train(argv: list[str]) -> int:
    """``llm-planner train saycan-adapter ARGV`` in this process, its errors raised."""
    return run_command(["train", "saycan-adapter", *argv])


def test_the_dialog_starts_with_the_planners_first_prompt_and_marks_the_skills() -> None:
    text, spans = dialog_text(PROMPT, EXAMPLE)
    first_prompt = PROMPT.render(EXAMPLE.instruction, [], EXAMPLE.scene, examples=[])
    assert text == first_prompt + "find a coke, 2. pick up the coke, 3. done."
    assert [text[a:b] for a, b in spans] == list(EXAMPLE.steps)
    # Each later step's prefix is what the planner renders after the earlier steps ran.
    assert text.startswith(PROMPT.render(EXAMPLE.instruction, ["find a coke"], EXAMPLE.scene, examples=[]))


def test_only_skill_tokens_are_targets() -> None:
    text, _ = dialog_text(PROMPT, EXAMPLE)
    tokenizer = word_tokenizer([text])
    sequence = encode(tokenizer, PROMPT, EXAMPLE)
    scored = [tokenizer.convert_ids_to_tokens(sequence.ids[i]) for i in sequence.targets]
    assert scored == ["find", "a", "coke", "pick", "up", "the", "coke", "done"]


def test_balanced_sampling_draws_families_evenly() -> None:
    bank = [
        PlanExample(f"{family}{i}", "k", family, "x", "s", ("done",), {}, {})
        for family, n in (("big", 100), ("small", 5), ("mid", 30))
        for i in range(n)
    ]
    chosen = balanced_sample(bank, 30, random.Random(0))
    assert Counter(e.family for e in chosen) == {"big": 13, "mid": 12, "small": 5}
    assert len({e.id for e in chosen}) == 30


def test_the_split_model_computes_the_full_models_loss_and_trains_the_top() -> None:
    model = tiny_llama(layers=3)
    sequences = [encode_ids([4, 9, 16, 25, 36, 49], [3, 4, 5]), encode_ids([7, 8, 9, 10], [2, 3])]
    with torch.no_grad():
        terms = []
        for seq in sequences:
            log_probs = torch.log_softmax(model(input_ids=torch.tensor([seq.ids])).logits[0], -1)
            terms += [-log_probs[t - 1, seq.ids[t]].item() for t in seq.targets]
    trainer = TopLayerTrainer(model, split=2)
    hidden = trainer.bottom(sequences)
    assert abs(trainer.loss(hidden, sequences).item() - sum(terms) / len(terms)) < 1e-4
    wrapped = attach(model, AdapterSpec(layers=(2,), modules=("q_proj", "up_proj"), rank=4))
    optimizer = torch.optim.AdamW([p for m in wrapped.values() for p in (m.A, m.B)], lr=0.05)
    before = trainer.loss(hidden, sequences).item()
    for _ in range(40):
        loss = trainer.loss(hidden, sequences)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    assert trainer.loss(hidden, sequences).item() < before - 0.5


def encode_ids(ids: list[int], targets: list[int]):
    from llm_planner_ros.llm.training_sequences import TrainingSequence

    return TrainingSequence(tuple(ids), tuple(targets))


def test_each_dialog_is_shown_its_nearest_other_examples_most_similar_last(tmp_path: Path) -> None:
    bank = [
        PlanExample(str(i), "k", "f", text, "Scene: s.", ("done",), {}, {})
        for i, text in enumerate(["bring me a coke", "bring me the coke can", "throw away the coke", "go to the table"])
    ]
    retriever = ExampleRetriever(bank, WordEmbedder(), tmp_path / "v.npz")
    shown = neighbours(retriever, bank[:1], 2)[0]
    assert [example.human for example in shown] == ["throw away the coke", "bring me the coke can"]


@pytest.mark.model
def test_training_runs_in_stages_and_the_second_starts_from_the_first(tmp_path: Path) -> None:
    """Two tiny runs of the trainer on the embedded model: the second resumes the first's adapter, so its
    validation loss before training is the first's after training (same validation dialogs)."""
    from safetensors import safe_open

    first, second = tmp_path / "first.safetensors", tmp_path / "second.safetensors"
    common = [
        "--examples",
        "4",
        "--validation",
        "2",
        "--layers",
        "1",
        "--rank",
        "2",
        "--alpha",
        "4",
        "--batch",
        "2",
        "--lr",
        "1e-2",
        "--threads",
        "1",
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train([*common, "--out", str(first)]) == 0
        assert train([*common, "--resume", str(first), "--out", str(second)]) == 0
    losses = [float(value) for value in re.findall(r"validation loss (?:before|after): ([0-9.]+)", out.getvalue())]
    assert len(losses) == 4 and losses[1] < losses[0], out.getvalue()
    assert abs(losses[2] - losses[1]) < 0.02, out.getvalue()  # float16 storage of A and B rounds a little
    with safe_open(str(second), framework="pt") as handle:
        assert sorted(handle.keys()) == sorted(f"layers.29.{module}.{ab}" for module in MODULE_PATHS for ab in "AB")


@pytest.mark.model
def test_one_adapter_trains_on_programs_and_dialogs_together(tmp_path: Path) -> None:
    """``--method progprompt saycan zero_shot`` with a count each: every kind of sequence in one run, the
    validation dialogs shared out between the methods; a count list that does not match the methods is
    refused."""
    common = ["--validation", "3", "--layers", "1", "--rank", "2", "--batch", "2", "--threads", "1"]
    common += ["--method", "progprompt", "saycan", "zero_shot", "--program-examples", "none", "--scene-context"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train([*common, "--examples", "3", "2", "2", "--out", str(tmp_path / "both.safetensors")]) == 0
    assert "7 training dialogs" in out.getvalue(), out.getvalue()
    losses = re.findall(r"validation loss (?:before|after): ([0-9.]+)", out.getvalue())
    assert len(losses) == 2, out.getvalue()  # "nan" when no validation dialog was made
    assert (tmp_path / "both.safetensors").stat().st_size > 0
    with pytest.raises(SystemExit, match="one per --method \\(3\\), got 2"):
        train([*common, "--examples", "3", "2", "--out", str(tmp_path / "never.safetensors")])


@pytest.mark.model
def test_a_domains_adapter_trains_on_its_bank_in_its_own_prompts(tmp_path: Path) -> None:
    """``--domain``: ProgPrompt's programs, LLM-Planner's plans and zero-shot's steps (after the bank's
    demonstrations) are written in the office's vocabulary; ProgPrompt showing the kitchen's example
    programs is refused."""
    office = REPO_ROOT / "domains" / "office"
    common = ["--validation", "2", "--layers", "1", "--rank", "2", "--batch", "2", "--threads", "1"]
    common += ["--domain", str(office), "--bank", str(office / "bank.jsonl"), "--scene-context"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        methods = ["--method", "progprompt", "llm_planner", "zero_shot", "--program-examples", "none"]
        assert (
            train([*common, *methods, "--examples", "2", "2", "2", "--out", str(tmp_path / "office.safetensors")]) == 0
        )
    assert "6 training dialogs" in out.getvalue(), out.getvalue()
    with pytest.raises(SystemExit, match="--program-examples none only"):
        train([*common, "--method", "progprompt", "--examples", "2", "--out", str(tmp_path / "never.safetensors")])


@pytest.mark.model
def test_the_alfred_adapter_trains_on_the_alfred_training_set_alone(tmp_path: Path) -> None:
    """``--method alfred_hlp``: the ALFRED training set's plans (--examples of those not held out for
    validation), never mixed with kitchen methods; a validation share that leaves nothing to train on is
    refused."""
    common = "--layers 1 --rank 2 --batch 2 --lr 3e-3 --threads 1 --examples 4 --method alfred_hlp".split()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train([*common, "--validation", "2", "--out", str(tmp_path / "alfred.safetensors")]) == 0
    assert "4 training dialogs" in out.getvalue(), out.getvalue()
    losses = [float(value) for value in re.findall(r"validation loss (?:before|after): ([0-9.]+)", out.getvalue())]
    assert len(losses) == 2 and losses[1] < losses[0], out.getvalue()
    with pytest.raises(SystemExit, match="below the 100 ALFRED training examples"):
        train([*common, "--validation", "100", "--out", str(tmp_path / "never.safetensors")])
    with pytest.raises(SystemExit, match="trains alone"):
        train([*common, "saycan", "--validation", "5", "--out", str(tmp_path / "never.safetensors")])
    assert not (tmp_path / "never.safetensors").exists()


@pytest.mark.model
def test_the_virtualhome_adapter_trains_on_training_examples_and_validates_on_development_ones(tmp_path: Path) -> None:
    """``--virtualhome``: SayCan's dialogs and ProgPrompt's programs of VirtualHome's training examples, the
    validation loss on development examples; a method without a VirtualHome encoder is refused."""
    examples = str(REPO_ROOT / "data" / "virtualhome" / "examples.jsonl")
    common = ["--virtualhome", examples, "--validation", "2", "--layers", "1", "--rank", "2", "--batch", "2"]
    common += ["--threads", "1", "--examples", "3", "--neighbours", "3", "--program-examples", "none"]
    for method in ("saycan", "progprompt"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert train([*common, "--method", method, "--out", str(tmp_path / f"{method}.safetensors")]) == 0
        said = " ".join(out.getvalue().split())  # the log wraps long lines
        assert "3 training dialogs" in said, said
        losses = re.findall(r"validation loss (?:before|after): ([0-9.]+)", said)
        assert len(losses) == 2, said  # "nan" when no development example was encoded
    # --goal-subsets: each chosen program also asked for part of its goals, cut where they hold
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            train([*common, "--method", "saycan", "--goal-subsets", "2", "--out", str(tmp_path / "g.safetensors")]) == 0
        )
    said = " ".join(out.getvalue().split())
    made = re.search(r"goal subsets: 3/3 programs, (\d) made, (\d) left out", said)
    assert made is not None and int(made[1]) + int(made[2]) == 6 and int(made[1]) >= 4, said
    assert f"{3 + int(made[1])} training dialogs" in said, said
    with pytest.raises(SystemExit, match="--goal-subsets takes a count of 0 or more, with --virtualhome only"):
        train([*common, "--method", "saycan", "--goal-subsets", "-1", "--out", str(tmp_path / "never.safetensors")])
    with pytest.raises(SystemExit, match="--goal-subsets takes a count of 0 or more, with --virtualhome only"):
        train(["--method", "saycan", "--goal-subsets", "2", "--out", str(tmp_path / "never.safetensors")])
    with pytest.raises(SystemExit, match="trains saycan or progprompt"):
        train([*common, "--method", "llm_planner", "--out", str(tmp_path / "never.safetensors")])
    assert not (tmp_path / "never.safetensors").exists()

"""The replay backend (record, then replay deterministically) and the factory's configuration checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from llm_planner_ros.llm import load_embedder, load_language_model
from llm_planner_ros.llm.base import (
    NO_ADAPTER,
    UNKNOWN_ADAPTER,
    InvalidRequestError,
    ModelLoadError,
    RecordingNotFoundError,
)
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.hf_loading import load_causal_lm
from llm_planner_ros.llm.replay import ReplayLanguageModel

PROMPT = "Human: Bring me a coke.\nRobot: 1. "


def test_a_recording_replays_every_answer(tiny_lm: HFLanguageModel, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = ReplayLanguageModel(path, inner=tiny_lm)
    scores = recorder.score(PROMPT, ["find a coke", "done"])
    samples = [recorder.generate(PROMPT, n=2, max_tokens=5, temperature=1.0) for _ in range(2)]
    assert samples[0] != samples[1], "two sampled calls should differ"

    replay = ReplayLanguageModel(path)
    assert replay.name == tiny_lm.name
    assert replay.score(PROMPT, ["find a coke", "done"]) == scores
    assert replay.score(PROMPT, ["find a coke", "done"], per_token=True).log_probs == scores.log_probs
    # Identical calls get the recorded answers in order, then the last one again.
    assert [replay.generate(PROMPT, n=2, max_tokens=5, temperature=1.0) for _ in range(3)] == [*samples, samples[1]]


def test_an_unrecorded_request_is_a_clear_error(tiny_lm: HFLanguageModel, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    ReplayLanguageModel(path, inner=tiny_lm).score(PROMPT, ["done"])
    with pytest.raises(RecordingNotFoundError, match=r"score\(prompt='.*Robot: 1. ', 2 completions\).*re-record"):
        ReplayLanguageModel(path).score(PROMPT, ["done", "find a coke"])


def test_a_missing_or_broken_recording_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordingNotFoundError, match="no recording at .*replay_mode: record"):
        ReplayLanguageModel(tmp_path / "absent.jsonl")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"request": {}}\nnot json\n', encoding="utf-8")
    with pytest.raises(RecordingNotFoundError, match="broken.jsonl:1 is not a recording line"):
        ReplayLanguageModel(broken)


def test_replay_checks_requests_like_the_other_backends(tiny_lm: HFLanguageModel, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    ReplayLanguageModel(path, inner=tiny_lm).score(PROMPT, ["done"])
    with pytest.raises(InvalidRequestError, match="completions is empty"):
        ReplayLanguageModel(path).score(PROMPT, [])


@pytest.fixture
def restore_threads() -> Iterator[None]:
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("restore_threads")
def test_the_factory_records_a_model_folder_and_replays_it(tiny_model_dir: Path, tmp_path: Path) -> None:
    recording = tmp_path / "recording.jsonl"
    config = {"backend": "replay", "recording": str(recording), "model": str(tiny_model_dir), "threads": 1}
    recorder = load_language_model({**config, "replay_mode": "record", "record_backend": "hf"})
    recorded = recorder.score(PROMPT, ["find a coke", "done"])

    lines = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    assert [line["request"]["method"] for line in lines] == ["score"]
    replay = load_language_model(config)
    assert replay.score(PROMPT, ["find a coke", "done"]) == recorded
    assert torch.get_num_threads() == 1
    # The replay says which adapter the recorded model ran (none here), so its prompts are the recorded
    # run's (planning.domain_examples); a recording that does not say leaves it unknown.
    assert recorder.adapter == replay.adapter == NO_ADAPTER
    for line in lines:
        del line["adapter"]
    recording.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert load_language_model(config).adapter == UNKNOWN_ADAPTER


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"bakend": "hf"}, r"unknown key\(s\) \['bakend'\].*valid keys"),
        ({"backend": "gpt"}, "unknown LLM backend 'gpt': use one of hf, openai, replay"),
        ({"threads": "two"}, "threads must be of type int"),
        ({"model": "/nonexistent/model.gguf"}, "model file not found at /nonexistent/model.gguf.*make setup"),
        ({"device": "quantum"}, "unknown device 'quantum'"),
        ({"backend": "replay"}, "needs `recording`"),
        ({"backend": "replay", "recording": "x.jsonl", "replay_mode": "rewind"}, "unknown replay_mode"),
        ({"backend": "openai", "model": ""}, "needs `model`"),
        ({"backend": "openai", "model": "m", "api_key_env": "LLM_TEST_UNSET_KEY"}, "LLM_TEST_UNSET_KEY .* not set"),
    ],
)
def test_configuration_errors_say_what_to_fix(config: dict[str, Any], message: str) -> None:
    with pytest.raises((ModelLoadError, InvalidRequestError), match=message):
        load_language_model(config)


def test_a_folder_without_a_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="neither a .gguf file nor a model folder"):
        load_language_model({"model": str(tmp_path)})


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message of a CPU-only torch")
def test_cuda_without_cuda_is_refused() -> None:
    with pytest.raises(ModelLoadError, match="set device: cpu"):
        load_language_model({"device": "cuda"})


@pytest.mark.model
def test_converted_gguf_weights_are_reused(smollm2: Any, gguf_cache: Path, load_reports: list[str]) -> None:
    assert any("de-quantizing" in line for line in load_reports), "the session converted the GGUF once"
    reports: list[str] = []
    again = load_causal_lm("", "cpu", 0, gguf_cache, reports.append)

    assert any("converted earlier" in line for line in reports)
    ids = torch.tensor([smollm2.tokenizer("Robot: 1. find a coke")["input_ids"]])
    with torch.inference_mode():
        assert torch.equal(again.model(input_ids=ids).logits, smollm2.model(input_ids=ids).logits)


# ----- the embedder --------------------------------------------------------------------------------


@pytest.mark.model
def test_embeddings_are_unit_rows_that_rank_by_meaning(minilm: Any) -> None:
    vectors = minilm.embed(["pick up the coke", "grab the can of coke", "go to the trash can"])

    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similar, different = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert similar > different


@pytest.mark.model
def test_embedder_edge_cases(minilm: Any, tmp_path: Path) -> None:
    assert minilm.embed([]).shape == (0, 384)
    with pytest.raises(InvalidRequestError, match="not valid UTF-8"):
        minilm.embed(["caf\udce9"])
    with pytest.raises(ModelLoadError, match="embedding model folder not found"):
        load_embedder({"model": str(tmp_path / "absent")})

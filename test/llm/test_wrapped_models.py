"""A model that counts, remembers or checks the calls it passes on runs the adapter of the model it wraps, so
a planner shows the same prompt examples with or without it (planning.domain_examples.prompt_shows_examples)."""

from __future__ import annotations

from pathlib import Path

import pytest
from language_model_doubles import RecordingModel

from llm_planner_ros.evaluation.babyai_bench import MemoModel
from llm_planner_ros.evaluation.skill_scaling import RankCheckingModel
from llm_planner_ros.llm.base import NO_ADAPTER, LanguageModel, MergedAdapter
from llm_planner_ros.llm.counting_model import CountingModel


@pytest.mark.parametrize("wrapper", [CountingModel, MemoModel, RankCheckingModel])
def test_a_wrapper_is_named_and_runs_the_adapter_as_the_model_it_wraps(
    tmp_path: Path, wrapper: type[LanguageModel]
) -> None:
    adapter_file = tmp_path / "adapter.safetensors"
    adapter_file.write_bytes(b"weights")
    for adapter in (MergedAdapter.of_file(adapter_file), NO_ADAPTER):
        inner = RecordingModel(adapter)
        wrapped = wrapper(inner)  # type: ignore[call-arg]
        assert wrapped.adapter == adapter and wrapped.name == inner.name == "RecordingModel"
        assert wrapped.adapter.is_file(adapter_file) == adapter.is_file(adapter_file)

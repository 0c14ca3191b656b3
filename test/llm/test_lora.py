"""LoRA adapters: training starts from the base model, and a saved adapter merges to the same model."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from saycan_doubles import tiny_llama

from llm_planner_ros.llm.base import ModelLoadError
from llm_planner_ros.llm.lora import AdapterSpec, attach, load_adapter_into, merge_adapter, save_adapter

IDS = torch.tensor([[5, 17, 42, 99, 7, 250, 3]])


def _logits(model: torch.nn.Module) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids=IDS).logits


def _saved_adapter(spec: AdapterSpec, folder: Path) -> tuple[torch.nn.Module, Path]:
    """A tiny model with a trained-looking adapter of ``spec``, and the adapter saved to a file."""
    trained = tiny_llama()
    wrapped = attach(trained, spec)
    with torch.no_grad():
        for module in wrapped.values():
            # Values a float16 file stores exactly, so a reloaded adapter must match to float32 rounding.
            module.B.copy_(torch.randn_like(module.B).mul(0.2).half().float())
            module.A.copy_(module.A.half().float())
    path = folder / "adapter.safetensors"
    save_adapter(path, wrapped, spec, base="tiny")
    return trained, path


def test_an_attached_adapter_starts_as_the_base_model_and_only_it_trains() -> None:
    base, adapted = tiny_llama(), tiny_llama()
    wrapped = attach(adapted, AdapterSpec(layers=(1, 2), modules=("q_proj", "down_proj"), rank=4))
    assert sorted(wrapped) == ["layers.1.down_proj", "layers.1.q_proj", "layers.2.down_proj", "layers.2.q_proj"]
    assert torch.allclose(_logits(base), _logits(adapted), atol=1e-6)
    trainable = {name for name, p in adapted.named_parameters() if p.requires_grad}
    assert trainable and all(name.endswith((".A", ".B")) for name in trainable)


def test_a_saved_adapter_merges_into_a_fresh_model_with_the_same_outputs(tmp_path: Path) -> None:
    spec = AdapterSpec(layers=(2,), modules=("q_proj", "v_proj", "up_proj"), rank=4, alpha=8.0)
    trained, path = _saved_adapter(spec, tmp_path)
    fresh = tiny_llama()
    assert not torch.allclose(_logits(fresh), _logits(trained), atol=1e-3)
    assert merge_adapter(fresh, path, base="tiny") == 3
    assert torch.allclose(_logits(fresh), _logits(trained), atol=1e-4)


def test_merging_refuses_files_it_cannot_use(tmp_path: Path) -> None:
    model = tiny_llama()
    with pytest.raises(ModelLoadError, match="not found"):
        merge_adapter(model, tmp_path / "absent.safetensors")
    spec = AdapterSpec(layers=(2,), modules=("q_proj",))
    path = tmp_path / "a.safetensors"
    save_adapter(path, attach(tiny_llama(), spec), spec, base="tiny")
    with pytest.raises(ModelLoadError, match="trained on 'tiny'"):
        merge_adapter(model, path, base="SmolLM2")
    with pytest.raises(ModelLoadError, match="does not have"):
        merge_adapter(tiny_llama(layers=2), path)


def test_a_spec_with_unknown_modules_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown adapter module"):
        AdapterSpec(layers=(0,), modules=("qkv",))


def test_a_saved_adapter_resumes_training_where_it_stopped(tmp_path: Path) -> None:
    spec = AdapterSpec(layers=(1,), modules=("q_proj", "up_proj"), rank=4, alpha=8.0)
    trained, path = _saved_adapter(spec, tmp_path)
    resumed = tiny_llama()
    load_adapter_into(attach(resumed, spec, seed=5), path, spec)
    assert torch.allclose(_logits(resumed), _logits(trained), atol=1e-5)
    with pytest.raises(ValueError, match="--rank and --alpha"):
        load_adapter_into(
            attach(tiny_llama(), AdapterSpec(layers=(1,), modules=("q_proj", "up_proj"), rank=2)),
            path,
            AdapterSpec(layers=(1,), modules=("q_proj", "up_proj"), rank=2),
        )
    wider = AdapterSpec(layers=(1, 2), modules=("q_proj", "up_proj"), rank=4, alpha=8.0)
    with pytest.raises(ValueError, match="--layers and --modules"):
        load_adapter_into(attach(tiny_llama(), wider), path, wider)

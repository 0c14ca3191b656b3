"""Low-rank adapters (LoRA) for the ``hf`` backend's causal LM: train, save, and merge into the weights.

An adapter adds ``scale * B @ A`` (A: rank x in, B: out x rank, scale = alpha / rank) to chosen linear
layers of chosen decoder layers. Training wraps those layers (``attach``) and learns only A and B;
``save_adapter`` writes them with their settings to one safetensors file; ``merge_adapter`` adds the
products into the frozen weights, so a loaded adapter costs nothing at inference and every scoring
path (prefix-shared, naive, sampling) sees the adapted model unchanged.

File layout: tensors ``layers.<i>.<module>.A`` / ``.B``; metadata ``rank``, ``alpha``, ``base`` (the
model it was trained on) and ``format`` = ``llm_planner_ros.lora.v1``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from llm_planner_ros.llm.base import ModelLoadError

FORMAT = "llm_planner_ros.lora.v1"
# Where each adaptable linear layer sits in a Llama-style decoder layer.
MODULE_PATHS = {
    "q_proj": "self_attn.q_proj",
    "k_proj": "self_attn.k_proj",
    "v_proj": "self_attn.v_proj",
    "o_proj": "self_attn.o_proj",
    "gate_proj": "mlp.gate_proj",
    "up_proj": "mlp.up_proj",
    "down_proj": "mlp.down_proj",
}


class LoRALinear(nn.Module):
    """A frozen linear layer plus a trainable low-rank update; B starts at zero, so training starts
    from the base model exactly."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float, generator: torch.Generator | None = None) -> None:
        super().__init__()
        self.base = base
        self.scale = alpha / rank
        bound = 1.0 / base.in_features**0.5
        self.A = nn.Parameter((torch.rand(rank, base.in_features, generator=generator) * 2 - 1) * bound)
        self.B = nn.Parameter(torch.zeros(base.out_features, rank))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (x @ self.A.T @ self.B.T) * self.scale

    def delta(self) -> torch.Tensor:
        """The update this adapter adds to the base weight."""
        return (self.B @ self.A) * self.scale


@dataclass(frozen=True)
class AdapterSpec:
    """Which decoder layers and linear modules get a rank-``rank`` update scaled by ``alpha / rank``."""

    layers: tuple[int, ...]
    modules: tuple[str, ...]
    rank: int = 8
    alpha: float = 16.0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.modules) - set(MODULE_PATHS))
        if unknown:
            raise ValueError(f"unknown adapter module(s) {unknown}; choose from {sorted(MODULE_PATHS)}")
        if self.rank < 1:
            raise ValueError(f"rank must be at least 1, got {self.rank}")


def attach(model: Any, spec: AdapterSpec, seed: int = 0) -> dict[str, LoRALinear]:
    """Freeze ``model`` and wrap the spec's linear layers in LoRALinear; returns them by name
    ("layers.<i>.<module>"). ValueError when a layer index is outside the model."""
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    layers = _decoder_layers(model)
    generator = torch.Generator().manual_seed(seed)
    wrapped: dict[str, LoRALinear] = {}
    for index in spec.layers:
        if not 0 <= index < len(layers):
            raise ValueError(f"layer {index} is outside the model's {len(layers)} decoder layers")
        for name in spec.modules:
            parent, attribute = _parent(layers[index], MODULE_PATHS[name])
            module = LoRALinear(getattr(parent, attribute), spec.rank, spec.alpha, generator)
            setattr(parent, attribute, module)
            wrapped[f"layers.{index}.{name}"] = module
    return wrapped


def save_adapter(path: str | Path, wrapped: Mapping[str, LoRALinear], spec: AdapterSpec, base: str) -> None:
    """Write the adapter's A and B tensors (float16, to keep the file small) and its settings."""
    from safetensors.torch import save_file

    tensors = {}
    for name, module in wrapped.items():
        tensors[f"{name}.A"] = module.A.detach().to(torch.float16).contiguous()
        tensors[f"{name}.B"] = module.B.detach().to(torch.float16).contiguous()
    metadata = {"format": FORMAT, "rank": str(spec.rank), "alpha": str(spec.alpha), "base": base}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata=metadata)


def load_adapter_into(wrapped: Mapping[str, LoRALinear], path: str | Path, spec: AdapterSpec) -> None:
    """Set the A and B of ``wrapped`` (from ``attach``) to a saved adapter's, to train it further.

    ValueError (with the fix) unless the file adapts exactly the wrapped layers with the spec's rank
    and alpha: continuing another adapter's training under other settings would silently rescale it.
    """
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        metadata = handle.metadata() or {}
        settings = (metadata.get("format"), metadata.get("rank"), metadata.get("alpha"))
        if settings != (FORMAT, str(spec.rank), str(spec.alpha)):
            raise ValueError(
                f"{path} has format/rank/alpha {settings}, not {(FORMAT, str(spec.rank), str(spec.alpha))}: "
                "resume with the --rank and --alpha it was trained with"
            )
        names = sorted({key.rsplit(".", 1)[0] for key in handle.keys()})
        if names != sorted(wrapped):
            raise ValueError(
                f"{path} adapts {len(names)} linear layers, the run wraps {len(wrapped)}: "
                "resume with the --layers and --modules it was trained with"
            )
        with torch.no_grad():
            for name, module in wrapped.items():
                module.A.copy_(handle.get_tensor(f"{name}.A").float())
                module.B.copy_(handle.get_tensor(f"{name}.B").float())


def merge_adapter(model: Any, path: str | Path, base: str | None = None) -> int:
    """Add the adapter's updates into ``model``'s weights in place; returns how many layers changed.

    ModelLoadError (with the fix) when the file is missing, is not an adapter of this format, was
    trained on another model than ``base`` (when given), or names layers the model does not have.
    """
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise ModelLoadError(
            f"adapter file not found at {path}: train one (llm-planner train saycan-adapter) or leave `adapter` empty"
        )
    with safe_open(str(path), framework="pt") as handle:
        metadata = handle.metadata() or {}
        if metadata.get("format") != FORMAT:
            raise ModelLoadError(f"{path} is not an adapter of format {FORMAT}: give a file written by save_adapter")
        if base is not None and metadata.get("base") != base:
            raise ModelLoadError(
                f"{path} was trained on {metadata.get('base')!r}, not on {base!r}: "
                "retrain it for this model or load the model it was made for"
            )
        scale = float(metadata["alpha"]) / float(metadata["rank"])
        tensors = {key: handle.get_tensor(key) for key in handle.keys()}
    layers = _decoder_layers(model)
    names = sorted({key.rsplit(".", 1)[0] for key in tensors})
    with torch.no_grad():
        for name in names:
            _, index, module = name.split(".")
            if not 0 <= int(index) < len(layers) or module not in MODULE_PATHS:
                raise ModelLoadError(
                    f"{path} adapts {name}, which this model does not have: it was made for another model"
                )
            parent, attribute = _parent(layers[int(index)], MODULE_PATHS[module])
            linear = getattr(parent, attribute)
            delta = tensors[f"{name}.B"].float() @ tensors[f"{name}.A"].float() * scale
            linear.weight += delta.to(linear.weight.dtype)
    return len(names)


def _decoder_layers(model: Any) -> Sequence[nn.Module]:
    inner = getattr(model, "model", None)
    layers = getattr(inner, "layers", None)
    if layers is None:
        raise ValueError(f"{type(model).__name__} has no model.layers: adapters support Llama-style causal LMs")
    return layers


def _parent(layer: nn.Module, dotted: str) -> tuple[nn.Module, str]:
    *path, attribute = dotted.split(".")
    parent = layer
    for part in path:
        parent = getattr(parent, part)
    return parent, attribute

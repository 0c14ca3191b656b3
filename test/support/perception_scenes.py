"""Helpers of the perception tests: tiny random-weight OWL-ViT/OWLv2 folders and rendered scenes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.perception.geometry import Intrinsics
from llm_planner_ros.perception.synthetic import Frame, random_scene, render

CAMERA = Intrinsics.from_fov(320, 240, 70.0)


def save_tiny_owl(folder: Path, kind: str) -> Path:
    """A randomly initialised OWL-ViT (``owlvit``) or OWLv2 (``owlv2``) with a 64x64 input and a
    character-level tokenizer, saved like a real model folder; no weights are downloaded."""
    import torch
    from transformers import (
        CLIPTokenizer,
        Owlv2Config,
        Owlv2ForObjectDetection,
        OwlViTConfig,
        OwlViTForObjectDetection,
    )

    vocab = {"!": 0}
    for char in "abcdefghijklmnopqrstuvwxyz0123456789-":
        vocab[char] = len(vocab)
        vocab[f"{char}</w>"] = len(vocab)
    # The end token has the largest id: the text model pools at the argmax of the ids.
    vocab["<|startoftext|>"] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    tokenizer = CLIPTokenizer(vocab=vocab, merges=[], pad_token="!")
    text = {
        "vocab_size": len(vocab),
        "hidden_size": 32,
        "intermediate_size": 37,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
        "max_position_embeddings": 16,
    }
    vision = {
        "hidden_size": 32,
        "intermediate_size": 37,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
        "image_size": 64,
        "patch_size": 16,
    }
    config_class, model_class = (
        (OwlViTConfig, OwlViTForObjectDetection) if kind == "owlvit" else (Owlv2Config, Owlv2ForObjectDetection)
    )
    torch.manual_seed(0)
    model = model_class(config_class(text_config=text, vision_config=vision, projection_dim=32)).eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def kitchen_places() -> dict[str, tuple[float, float]]:
    return {name: (p.x, p.y) for name, p in load_domain_files().config.locations.items()}


def scene_frame(seed: int, labels: list[str] | None = None, split: str = "eval", **kwargs: int) -> Frame:
    """A rendered eval-stream scene (``labels``: the labels objects are drawn from; default all)."""
    labels = labels or list(load_domain_files().config.labels)
    spec = random_scene(seed, split, labels, kitchen_places(), **kwargs)
    return render(spec, CAMERA, seed)


def empty_frame(seed: int) -> Frame:
    """A support with nothing on it."""
    spec = random_scene(seed, "eval", ["coke"], kitchen_places(), max_objects=1)
    spec = type(spec)(**{**spec.__dict__, "objects": ()})
    return render(spec, CAMERA, seed)


def truth_centres(frame: Frame) -> dict[str, np.ndarray]:
    return {obj.id: np.asarray(obj.centre) for obj in frame.spec.objects}

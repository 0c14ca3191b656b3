"""The embedded detector's region encoder: a region's colour and shape into the sentence-embedding space.

In the spirit of ViLD (Gu et al., "Open-vocabulary Object Detection via Vision and Language Knowledge
Distillation", arXiv 2104.13921): a region's embedding is trained to match the text embedding of its
object's name, so labelling is a cosine similarity to any text query. Here the region is described by
hand-made features (hue-saturation and value histograms, the mean colour of five height slices, the
metric extent from depth) and a small MLP maps them to the 384-d space of all-MiniLM-L6-v2. As in ViLD,
an encoder may also learn a background embedding: a region nearer to it than to every query is no object.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import nn

from llm_planner_ros.perception.detection import DetectorError, View
from llm_planner_ros.perception.geometry import rotate

HUE_BINS, SAT_BINS, VALUE_BINS, SLICES = 12, 3, 4, 5
FEATURES = HUE_BINS * SAT_BINS + VALUE_BINS + SLICES * 3 + 4


def region_features(view: View, mask: np.ndarray) -> np.ndarray | None:
    """The FEATURES-long description of the pixels of ``mask`` with depth, or None with fewer than 10."""
    valid = mask & np.isfinite(view.depth) & (view.depth > 0)
    if int(valid.sum()) < 10:
        return None
    rays = view.intrinsics.rays()[valid]
    points = rotate(rays * view.depth[valid][:, None], view.camera.rotation) + view.camera.translation
    rgb = view.rgb[valid].astype(np.uint8)
    hsv = cv2.cvtColor(rgb[None], cv2.COLOR_RGB2HSV_FULL)[0].astype(np.float32) / 255.0
    hue_sat, _, _ = np.histogram2d(
        hsv[:, 0], hsv[:, 1], bins=(HUE_BINS, SAT_BINS), range=((0, 1), (0, 1)), weights=hsv[:, 2]
    )
    value, _ = np.histogram(hsv[:, 2], bins=VALUE_BINS, range=(0, 1))
    low, high = np.percentile(points, 2, axis=0), np.percentile(points, 98, axis=0)
    fraction = np.clip((points[:, 2] - low[2]) / max(high[2] - low[2], 1e-3), 0, 0.999)
    colour = rgb.astype(np.float32) / 255.0
    slices = []
    for index in range(SLICES):
        inside = (fraction * SLICES).astype(int) == index
        slices.append(colour[inside].mean(axis=0) if inside.any() else colour.mean(axis=0))
    footprint = sorted(high[:2] - low[:2], reverse=True)
    height = high[2] - low[2]
    shape = np.array([footprint[0], footprint[1], height, height / max(footprint[0], 1e-3) / 10.0]) * 10.0
    return np.concatenate(
        [hue_sat.ravel() / max(hue_sat.sum(), 1e-6), value / value.sum(), np.concatenate(slices), shape]
    ).astype(np.float32)


@dataclass(frozen=True)
class EncoderShape:
    """The encoder's sizes, stored next to its weights; ``background``: it has a learned background
    embedding (encoders trained before it existed have none)."""

    features: int = FEATURES
    hidden: int = 256
    embedding: int = 384
    background: bool = False


class RegionEncoder(nn.Module):
    """Region features to a unit-length embedding in the text embedder's space."""

    def __init__(self, shape: EncoderShape) -> None:
        super().__init__()
        self.shape = shape
        self.net = nn.Sequential(
            nn.Linear(shape.features, shape.hidden),
            nn.ReLU(),
            nn.Linear(shape.hidden, shape.hidden),
            nn.ReLU(),
            nn.Linear(shape.hidden, shape.embedding),
        )
        if shape.background:
            self.background = nn.Parameter(torch.randn(shape.embedding) / shape.embedding**0.5)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return nn.functional.normalize(self.net(features), dim=-1)

    def embed(self, features: np.ndarray) -> np.ndarray:
        """(N, FEATURES) float32 to (N, embedding) unit vectors, computed in numpy: for a handful of
        regions torch's and BLAS's thread start-up costs more than the arithmetic on a loaded machine."""
        x = np.asarray(features, dtype=np.float32)
        layers = [m for m in self.net if isinstance(m, nn.Linear)]
        for index, layer in enumerate(layers):
            weight, bias = layer.weight.detach().numpy(), layer.bias.detach().numpy()
            x = np.einsum("nf,hf->nh", x, weight) + bias
            if index < len(layers) - 1:
                x = np.maximum(x, 0.0)
        return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)

    def background_embedding(self) -> np.ndarray | None:
        """The unit-length background embedding, or None for an encoder without one."""
        if not self.shape.background:
            return None
        vector = self.background.detach().numpy()
        return vector / max(float(np.linalg.norm(vector)), 1e-12)

    def save(self, path: Path, info: dict[str, object]) -> None:
        """Weights to ``path`` (safetensors) and sizes plus ``info`` to the ``.json`` beside it."""
        path.parent.mkdir(parents=True, exist_ok=True)
        save_file({k: v.contiguous() for k, v in self.state_dict().items()}, str(path))
        path.with_suffix(".json").write_text(json.dumps({"shape": asdict(self.shape), **info}, indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> RegionEncoder:
        """The encoder stored at ``path``; DetectorError naming the fix when it is missing or broken."""
        meta_path = path.with_suffix(".json")
        if not path.is_file() or not meta_path.is_file():
            raise DetectorError(
                f"region encoder not found at {path} (+ .json): train it with "
                "`llm-planner train region-encoder` (docs/perception.md) or give `encoder_path`"
            )
        try:
            shape = EncoderShape(**json.loads(meta_path.read_text())["shape"])
            encoder = cls(shape)
            encoder.load_state_dict(load_file(str(path)))
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            raise DetectorError(f"region encoder at {path} cannot be loaded ({error}): retrain it") from error
        return encoder.eval()

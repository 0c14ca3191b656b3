"""OWL-ViT and OWLv2 open-vocabulary detectors (transformers), loaded from a local folder.

Minderer et al., "Simple Open-Vocabulary Object Detection with Vision Transformers" (arXiv 2205.06230)
and "Scaling Open-Vocabulary Object Detection" (arXiv 2306.09683). The folder is a transformers save
(``config.json``, weights, tokenizer files), e.g. google/owlvit-base-patch32 or google/owlv2-base-patch16
downloaded elsewhere; nothing is fetched. Pixels are prepared here (resize, CLIP normalisation; OWLv2
pads to a square first), so no image processor files or torchvision are needed. Each predicted box's
score for a query is the sigmoid of its class logit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import torch

from llm_planner_ros.perception.detection import Detection, DetectorError, View

CLIP_MEAN = np.array([0.48145466, 0.4578275, 0.40821073], dtype=np.float32)
CLIP_STD = np.array([0.26862954, 0.26130258, 0.27577711], dtype=np.float32)


class OwlDetector:
    """An OWL-ViT (``model_type`` owlvit) or OWLv2 (owlv2) model from ``model_dir``; boxes whose best
    query score is at least ``threshold`` after non-maximum suppression, at most ``max_detections``."""

    def __init__(
        self,
        model_dir: str | Path,
        threshold: float = 0.1,
        max_detections: int = 20,
        template: str = "a photo of a {}",
    ) -> None:
        from transformers import AutoConfig, AutoTokenizer, Owlv2ForObjectDetection, OwlViTForObjectDetection

        folder = Path(model_dir).expanduser()
        if not (folder / "config.json").is_file():
            raise DetectorError(
                f"OWL-ViT/OWLv2 model not found at {folder} (no config.json): give `model_dir`, a folder saved "
                "with transformers' save_pretrained (model and tokenizer)"
            )
        try:
            config = AutoConfig.from_pretrained(folder, local_files_only=True)
            classes = {"owlvit": OwlViTForObjectDetection, "owlv2": Owlv2ForObjectDetection}
            if config.model_type not in classes:
                raise DetectorError(f"{folder} holds a {config.model_type!r} model, not owlvit or owlv2")
            self._model = classes[config.model_type].from_pretrained(folder, local_files_only=True).eval()
            self._tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        except (OSError, ValueError) as error:
            raise DetectorError(f"could not load the detector in {folder}: {error}") from error
        self._kind = config.model_type
        self._size = int(config.vision_config.image_size)
        self._max_tokens = int(config.text_config.max_position_embeddings)
        self._threshold = threshold
        self._max_detections = max_detections
        self._template = template

    @property
    def name(self) -> str:
        return self._kind

    def detect(self, view: View, queries: Sequence[str]) -> list[Detection]:
        if not queries:
            return []
        pixels, scale = self._pixels(view.rgb)
        texts = [self._template.format(query) for query in queries]
        tokens = self._tokenizer(
            texts, padding="max_length", max_length=self._max_tokens, truncation=True, return_tensors="pt"
        )
        with torch.no_grad():
            out = self._model(
                input_ids=tokens["input_ids"], attention_mask=tokens["attention_mask"], pixel_values=pixels
            )
        scores = torch.sigmoid(out.logits[0]).numpy()
        boxes = out.pred_boxes[0].numpy() * scale
        height, width = view.rgb.shape[:2]
        corners = np.stack(
            [
                boxes[:, 0] - boxes[:, 2] / 2,
                boxes[:, 1] - boxes[:, 3] / 2,
                boxes[:, 0] + boxes[:, 2] / 2,
                boxes[:, 1] + boxes[:, 3] / 2,
            ],
            axis=1,
        )
        # At least one pixel inside the image: a box thinner than a pixel still marks where to look.
        low = np.clip(np.floor(corners[:, :2]), 0, [width - 1, height - 1])
        high = np.clip(np.ceil(corners[:, 2:]), low + 1, [width, height])
        corners = np.concatenate([low, high], axis=1).astype(int)
        best = scores.max(axis=1)
        keep = np.flatnonzero(best >= self._threshold)
        if keep.size == 0:
            return []
        rects = [[int(c[0]), int(c[1]), int(c[2] - c[0]), int(c[3] - c[1])] for c in corners[keep]]
        chosen = cv2.dnn.NMSBoxes(rects, best[keep].tolist(), self._threshold, 0.5, top_k=self._max_detections)
        return [
            Detection(tuple(int(v) for v in corners[keep[i]]), scores[keep[i]], tuple(queries))  # type: ignore[arg-type]
            for i in np.asarray(chosen).reshape(-1)[: self._max_detections]
        ]

    def _pixels(self, rgb: np.ndarray) -> tuple[torch.Tensor, np.ndarray]:
        """The model's input and the factor from its normalised boxes to image pixels (x, y, w, h)."""
        height, width = rgb.shape[:2]
        image = rgb.astype(np.float32) / 255.0
        if self._kind == "owlv2":
            # OWLv2 sees the image padded to a square (bottom and right, grey); boxes are relative to it.
            side = max(height, width)
            square = np.full((side, side, 3), 0.5, dtype=np.float32)
            square[:height, :width] = image
            image, scale = square, np.array([side, side, side, side], dtype=np.float32)
        else:
            scale = np.array([width, height, width, height], dtype=np.float32)
        resized = cv2.resize(image, (self._size, self._size), interpolation=cv2.INTER_LINEAR)
        normalised = (resized - CLIP_MEAN) / CLIP_STD
        return torch.from_numpy(normalised.transpose(2, 0, 1)[None].copy()), scale

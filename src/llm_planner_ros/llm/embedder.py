"""Sentence embeddings with sentence-transformers; the default is the embedded all-MiniLM-L6-v2.

Models load from a local folder only (``local_files_only``), so nothing is fetched from the hub.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import llm_planner_ros.llm.model_files as model_files
from llm_planner_ros.llm.base import Embedder, ModelLoadError, check_texts_to_embed


class SentenceTransformerEmbedder(Embedder):
    """Unit-length float32 embeddings from a sentence-transformers folder (None: the embedded MiniLM)."""

    def __init__(self, model_dir: str | Path | None = None, device: str = "cpu") -> None:
        from sentence_transformers import SentenceTransformer

        folder = encoder_folder(model_dir)
        try:
            self._model = SentenceTransformer(str(folder), device=device, local_files_only=True)
        except (OSError, ValueError, RuntimeError) as error:
            raise ModelLoadError(f"could not load the embedding model in {folder}: {error}") from error
        self._name = encoder_name(model_dir)
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        check_texts_to_embed(texts)
        if not texts:
            return np.zeros((0, self._model.get_embedding_dimension()), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(
                list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def encoder_folder(model_dir: str | Path | None) -> Path:
    """The sentence-transformers folder ``model_dir`` names (None or "": the embedded all-MiniLM-L6-v2);
    ModelLoadError with the fix when it is not there."""
    folder = Path(model_dir).expanduser() if model_dir else model_files.minilm_dir()
    if not folder.is_dir():
        raise ModelLoadError(
            f"embedding model folder not found at {folder}: give a sentence-transformers folder, or leave "
            "`model` empty for the embedded all-MiniLM-L6-v2 (run make setup)"
        )
    return folder


def encoder_name(model_dir: str | Path | None) -> str:
    return Path(model_dir).expanduser().name if model_dir else "all-MiniLM-L6-v2"

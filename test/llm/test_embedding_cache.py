"""The store of embedded texts (llm/embedding_cache.py): a process loads the sentence encoder only for a
text no process embedded before, and gets the vectors the encoder gives."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import llm_planner_ros.llm.embedding_cache as embedding_cache
from llm_planner_ros.llm import model_files
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.llm.embedder import SentenceTransformerEmbedder
from llm_planner_ros.llm.embedding_cache import CachedEmbedder, EmbeddingStore, model_fingerprint
from llm_planner_ros.llm.factory import load_embedder

pytestmark = pytest.mark.model

TEXTS = ["bring me a coke", "stop", "wipe the desk", "stop"]

# A new process (as a planner node is): which texts it embeds, and whether it had to load the encoder.
PROCESS = """
import sys
from llm_planner_ros.llm.factory import load_embedder
embedder = load_embedder({"cache_dir": sys.argv[1]})
vectors = embedder.embed(sys.argv[2:])
print("loaded" if embedder.loaded else "not loaded", vectors.shape)
"""


def in_a_new_process(cache: Path, *texts: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROCESS, str(cache), *texts], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_second_process_answers_known_texts_without_loading_the_encoder_and_the_same_vectors(
    tmp_path: Path,
) -> None:
    first = load_embedder({"cache_dir": str(tmp_path)})
    vectors = first.embed(TEXTS)
    assert first.loaded and first.name == "all-MiniLM-L6-v2"
    np.testing.assert_allclose(vectors, SentenceTransformerEmbedder().embed(TEXTS), atol=1e-6)

    assert in_a_new_process(tmp_path, *TEXTS[:3]) == "not loaded (3, 384)"
    assert in_a_new_process(tmp_path, "stop", "open the door") == "loaded (2, 384)"

    second = load_embedder({"cache_dir": str(tmp_path)})
    np.testing.assert_array_equal(second.embed(TEXTS), vectors)
    assert not second.loaded
    assert second.embed([]).shape == (0, 384)


class Counting(Embedder):
    """A deterministic stand-in encoder that counts the texts it is asked to embed (store mechanics)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.asked += texts
        return np.array([[len(text), text.count("e")] for text in texts], dtype=np.float32).reshape(-1, 2)


def cached(store: EmbeddingStore, fingerprint: str = "model-a") -> tuple[CachedEmbedder, Counting]:
    encoder = Counting()
    return CachedEmbedder(lambda: encoder, "counting", fingerprint, store), encoder


def test_vectors_of_another_model_are_never_answered(tmp_path: Path) -> None:
    store = EmbeddingStore(tmp_path / "store.sqlite")
    cached(store, "model-a")[0].embed(["stop"])
    other, encoder = cached(store, "model-b")
    other.embed(["stop"])
    assert encoder.asked == ["stop"]

    # A model folder whose files changed has another fingerprint.
    folder = tmp_path / "encoder"
    shutil.copytree(model_files.minilm_dir(), folder, ignore=shutil.ignore_patterns("*.safetensors"))
    before = model_fingerprint(folder, "cpu")
    assert model_fingerprint(folder, "cuda") != before
    (folder / "config.json").write_text((folder / "config.json").read_text() + "\n")
    assert model_fingerprint(folder, "cpu") != before


def test_the_store_keeps_its_newest_rows_when_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding_cache, "MAX_ROWS", 4)
    store = EmbeddingStore(tmp_path / "store.sqlite")
    embedder, _ = cached(store)
    for index in range(5):
        embedder.embed([f"text {index}"])
    # Five rows are more than four: the oldest three go (all but the newest two).
    assert sorted(store.get("model-a", [f"text {index}" for index in range(5)])) == ["text 3", "text 4"]


def test_an_unusable_store_is_reported_once_and_embedding_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "store.sqlite"
    broken.write_bytes(b"not a database" * 100)
    embedder, encoder = cached(EmbeddingStore(broken))
    with caplog.at_level(logging.WARNING):
        first = embedder.embed(["stop", "go"])
        second = embedder.embed(["stop"])
    np.testing.assert_array_equal(first[:1], second)
    assert encoder.asked == ["stop", "go", "stop"]
    (warning,) = [record.getMessage() for record in caplog.records if "embedding store" in record.getMessage()]
    assert str(broken) in warning and "delete the file" in warning

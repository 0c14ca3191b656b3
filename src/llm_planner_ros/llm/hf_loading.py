"""Loading the ``hf`` backend's causal LM: a model folder, a GGUF file, or the embedded SmolLM2.

GGUF weights are de-quantized to float32 by transformers, which takes ~17 s for SmolLM2-135M on two
cores. The converted model (safetensors + tokenizer, via ``save_pretrained``) is written once to the
user cache (``$XDG_CACHE_HOME/llm_planner_ros/gguf/<name>-<size>-<mtime>``, or ``cache_dir``) and
later starts load it in about a second. The folder is written under a temporary name and renamed,
so concurrent first starts never see half a model. Everything loads with ``local_files_only``: no
model download is ever attempted.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llm_planner_ros.llm.model_files as model_files
from llm_planner_ros.llm.base import ModelLoadError

Report = Callable[[str], None]


@dataclass(frozen=True)
class LoadedModel:
    """A model in eval mode on its device, its tokenizer, and a short name for results and logs."""

    model: Any
    tokenizer: Any
    name: str


def limit_openmp_spinning() -> None:
    """Let torch's OpenMP workers spin only briefly before they sleep; call before torch is imported.

    Why: between two operators of a forward pass the workers wait a few microseconds, and waking a
    sleeping worker costs more than that, so sleeping at once (OMP_WAIT_POLICY=PASSIVE) slowed an
    idle SayCan step from 0.26 to 0.32 s on the 2-core development machine. Spinning long (libgomp's
    default) starves other processes on a shared CPU: a step took 3.9 s instead of 0.8 s under load.
    A spin of 3000 iterations measured 0.26 s idle, 0.59 s beside two busy loops (PASSIVE: 0.79 s)
    and 0.64 s beside a second model process (PASSIVE: 0.49 s; one model process per machine is the
    design: planners share llm_service). An OMP_WAIT_POLICY or GOMP_SPINCOUNT already set wins.
    """
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("GOMP_SPINCOUNT", "3000")


def load_causal_lm(model: str, device: str, threads: int, cache_dir: Path | None, report: Report) -> LoadedModel:
    """Load ``model`` ("" = the embedded SmolLM2, a path to a .gguf file, or a model folder) in float32.

    ``threads`` sets torch's CPU threads for the process (0: every CPU this process may use).
    ModelLoadError (with the fix) for a missing path, an unknown format, an unusable device, or a
    model transformers cannot load.
    """
    import torch

    torch_device = _device(device)
    torch.set_num_threads(threads or len(os.sched_getaffinity(0)))
    started = time.monotonic()
    path, is_gguf, name = _source(model)
    if is_gguf:
        lm, tokenizer = _load_gguf(path, (cache_dir or model_files.user_cache_dir()) / "gguf", report)
    else:
        report(f"loading {name} from {path}")
        lm, tokenizer = _load_folder(path)
    lm = lm.to(torch_device).eval()
    report(f"model {name} ready on {torch_device} in {time.monotonic() - started:.1f} s")
    return LoadedModel(lm, tokenizer, name)


def _source(model: str) -> tuple[Path, bool, str]:
    """(path, whether it is a GGUF file, short name) of the configured ``model``."""
    if not model:
        gguf = model_files.smollm2_gguf()
        return gguf, True, gguf.name.removesuffix(".gguf")
    path = Path(model).expanduser()
    if not path.exists():
        raise ModelLoadError(
            f"model file not found at {path}: give a .gguf file or a model folder (config.json, weights, "
            "tokenizer), or leave `model` empty for the embedded SmolLM2 (run make setup)"
        )
    if path.is_file() and path.suffix == ".gguf":
        return path, True, path.stem
    if path.is_dir() and (path / "config.json").is_file():
        return path, False, path.name
    raise ModelLoadError(f"{path} is neither a .gguf file nor a model folder with config.json: point `model` at one")


def _device(device: str) -> Any:
    import torch

    try:
        torch_device = torch.device(device)
    except RuntimeError:
        raise ModelLoadError(f"unknown device {device!r}: use cpu, cuda or cuda:N") from None
    if torch_device.type == "cuda" and not torch.cuda.is_available():
        raise ModelLoadError(f"device {device} requested but this torch has no usable CUDA: set device: cpu")
    if torch_device.type not in ("cpu", "cuda"):
        raise ModelLoadError(f"device {device!r} is not supported: use cpu, cuda or cuda:N")
    return torch_device


def _load_folder(folder: Path) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, local_files_only=True)
    except (OSError, ValueError, KeyError) as error:
        raise ModelLoadError(f"could not load the model in {folder}: {error}") from error
    return model, tokenizer


def _load_gguf(gguf: Path, cache_root: Path, report: Report) -> tuple[Any, Any]:
    stat = gguf.stat()
    converted = cache_root / f"{gguf.stem}-{stat.st_size}-{stat.st_mtime_ns}"
    if converted.is_dir():
        report(f"loading {gguf.name} converted earlier, from {converted}")
        return _load_folder(converted)
    report(f"de-quantizing {gguf.name} to float32 (once, about 20 s; cached at {converted})")
    model, tokenizer = _convert_gguf(gguf)
    try:
        _save_converted(model, tokenizer, converted)
    except OSError as error:
        report(f"could not cache the converted weights at {converted} ({error}): the next start converts again")
    return model, tokenizer


def _convert_gguf(gguf: Path) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            gguf.parent, gguf_file=gguf.name, dtype=torch.float32, local_files_only=True
        )
    except (OSError, ValueError, KeyError, ImportError) as error:
        raise ModelLoadError(
            f"could not read the GGUF file {gguf}: {error} (needs the gguf package: run make setup)"
        ) from error
    # The tensors are plain float32 now; without the GGUF marker, save_pretrained writes them as such.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    return model, tokenizer


def _save_converted(model: Any, tokenizer: Any, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-"))
    try:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        os.rename(staging, target)
    except OSError:
        if not target.is_dir():
            raise
        # Another process finished the same conversion first; its copy is as good as ours.
    finally:
        shutil.rmtree(staging, ignore_errors=True)

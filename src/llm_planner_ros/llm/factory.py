"""Building a LanguageModel or an Embedder from a flat configuration mapping.

The keys are the fields of :class:`LLMConfig` and :class:`EmbedderConfig` (each with its default and
help text); ``llm_service`` declares one ROS parameter per field, and YAML files under
``config/`` set them. Keys of a backend other than the chosen one are ignored; unknown keys are an
error, so a typo never silently falls back to a default.

    model = load_language_model({"backend": "hf"})                       # the embedded SmolLM2
    model = load_language_model({"backend": "openai", "base_url": "http://gpu:8000/v1", "model": "..."})
    model = load_language_model({"backend": "replay", "recording": "run.jsonl"})
    embedder = load_embedder({})                                          # the embedded MiniLM
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.domain_folder import adapter_path, built_files_folder, serving_adapter_parameter
from llm_planner_ros.llm.base import Embedder, LanguageModel, ModelLoadError
from llm_planner_ros.paths import default_domain, packaged_path

BACKENDS = ("hf", "openai", "replay")
AUTO_ADAPTER = "auto"
# ``adapter: <method>`` names the default domain's adapter of that method (``adapters/<method>.safetensors``
# of its folder: the SayCan adapter, trained by llm_planner_ros.training.saycan_adapter, and the generative
# methods' ones trained further on their prompts; docs/benchmarks.md, "The SayCan adapter"); a benchmark's
# adapter is named the same way: ALFRED-HLP's base model trained on LLM-Planner's ALFRED training plans.
METHOD_ADAPTER_NAMES = ("saycan", "progprompt", "llm_planner", "zero_shot")
BENCHMARK_ADAPTERS = {"alfred_hlp": Path("data/alfred_hlp/alfred_hlp_adapter.safetensors")}
REPLAY_MODES = ("replay", "record")

_log = logging.getLogger(__name__)


def _option(default: Any, help: str, choices: tuple[str, ...] = ()) -> Any:
    # ``choices``: the only values a node parameter of this field accepts (llm_planner_ros.ros.parameters).
    return field(default=default, metadata={"help": help, "choices": choices})


@dataclass(frozen=True)
class LLMConfig:
    """How to build a LanguageModel (see ``load_language_model``)."""

    backend: str = _option(
        "hf", "hf (local model) | openai (OpenAI-compatible server) | replay (JSONL recording)", BACKENDS
    )
    model: str = _option(
        "", "hf: a .gguf file or model folder, empty = embedded SmolLM2-135M-Instruct; openai: served model id"
    )
    device: str = _option("cpu", "hf: cpu, cuda or cuda:N")
    threads: int = _option(0, "hf: torch CPU threads, 0 = every CPU this process may use")
    seed: int = _option(0, "hf: seed of the sampling generator")
    context_window: int = _option(0, "hf: context window in tokens, 0 = the model's max_position_embeddings")
    cache_slots: int = _option(
        4, "hf: prompts whose K/V cache is kept between calls (one per robot sharing the model; 1 = batch robots)"
    )
    cache_dir: str = _option("", "hf: cache of converted GGUF weights, empty = $XDG_CACHE_HOME/llm_planner_ros")
    adapter: str = _option(
        AUTO_ADAPTER,
        "hf: LoRA adapter file merged into the weights (llm.lora); auto = the default domain's SayCan "
        "adapter (adapters/saycan.safetensors of its folder) with the embedded model, none with any other; "
        "progprompt, llm_planner, zero_shot = the default domain's adapter of that method; alfred_hlp; "
        "none or empty = no adapter",
    )
    base_url: str = _option("http://localhost:8000/v1", "openai: API base URL, including /v1")
    api_key_env: str = _option("", "openai: environment variable holding the API key, empty = no key")
    timeout_s: float = _option(60.0, "openai: read timeout of one HTTP request, seconds")
    connect_timeout_s: float = _option(5.0, "openai: connect timeout, seconds")
    max_retries: int = _option(2, "openai: retries after a timeout, connection failure, HTTP 429 or 5xx")
    backoff_s: float = _option(0.5, "openai: first retry delay, doubled for each further retry")
    tokenizer: str = _option("", "openai: folder with the served model's tokenizer (needed for logit_bias)")
    structured_outputs: str = _option(
        "none",
        "openai: how the server takes a grammar: none (constrained generation refused) | vllm (structured_outputs)",
        ("none", "vllm"),
    )
    recording: str = _option("", "replay: the JSONL recording file")
    replay_mode: str = _option(
        "replay", "replay: replay (answer from the recording) | record (append to it)", REPLAY_MODES
    )
    record_backend: str = _option(
        "hf", "replay_mode record: the backend whose answers are recorded (hf | openai)", ("hf", "openai")
    )


@dataclass(frozen=True)
class EmbedderConfig:
    """How to build an Embedder (see ``load_embedder``)."""

    model: str = _option("", "sentence-transformers folder, empty = embedded all-MiniLM-L6-v2")
    device: str = _option("cpu", "cpu, cuda or cuda:N")
    cache_dir: str = _option(
        "", "folder of the store of embedded texts (llm/embedding_cache.py), empty = $XDG_CACHE_HOME/llm_planner_ros"
    )


ConfigT = TypeVar("ConfigT", LLMConfig, EmbedderConfig)


def parse_config(kind: type[ConfigT], config: Mapping[str, Any]) -> ConfigT:
    """``kind`` from a mapping: values converted to each field's type; ModelLoadError on unknown keys
    or values that do not convert."""
    fields = {f.name: f for f in dataclasses.fields(kind)}
    unknown = sorted(set(config) - set(fields))
    if unknown:
        raise ModelLoadError(f"unknown key(s) {unknown} in the {kind.__name__}: valid keys are {sorted(fields)}")
    values: dict[str, Any] = {}
    for name, value in config.items():
        target = type(fields[name].default)
        try:
            if target is int and (isinstance(value, bool) or float(value) != int(value)):
                raise ValueError
            values[name] = target(value)
        except (TypeError, ValueError):
            raise ModelLoadError(f"{name} must be of type {target.__name__}, got {value!r}") from None
    return kind(**values)


def load_language_model(config: Mapping[str, Any], report: Callable[[str], None] | None = None) -> LanguageModel:
    """The LanguageModel ``config`` describes; ``report`` receives loading progress (default: the log).

    ModelLoadError (with the fix) when the configuration is wrong or the model cannot load.
    """
    settings = parse_config(LLMConfig, config)
    report = report or _log.info
    if settings.backend == "hf":
        return _hf_model(settings, report)
    if settings.backend == "openai":
        return _openai_model(settings)
    if settings.backend == "replay":
        return _replay_model(settings, config, report)
    raise ModelLoadError(f"unknown LLM backend {settings.backend!r}: use one of {', '.join(BACKENDS)}")


def load_embedder(config: Mapping[str, Any]) -> Embedder:
    """The Embedder ``config`` describes (``{}``: the embedded all-MiniLM-L6-v2 on the CPU). The encoder
    itself loads on the first text that its store of embedded texts lacks (``llm.embedding_cache``)."""
    import llm_planner_ros.llm.model_files as model_files
    from llm_planner_ros.llm.embedder import SentenceTransformerEmbedder, encoder_folder, encoder_name
    from llm_planner_ros.llm.embedding_cache import STORE_FILE, CachedEmbedder, EmbeddingStore, model_fingerprint

    settings = parse_config(EmbedderConfig, config)
    model = settings.model or None
    store_dir = Path(settings.cache_dir).expanduser() if settings.cache_dir else model_files.user_cache_dir()
    return CachedEmbedder(
        lambda: SentenceTransformerEmbedder(model, settings.device),
        encoder_name(model),
        model_fingerprint(encoder_folder(model), settings.device),
        EmbeddingStore(store_dir / STORE_FILE),
    )


def _hf_model(settings: LLMConfig, report: Callable[[str], None]) -> LanguageModel:
    from llm_planner_ros.llm.hf import HFLanguageModel
    from llm_planner_ros.llm.hf_loading import load_causal_lm

    if settings.cache_slots < 1:
        raise ModelLoadError(f"cache_slots must be at least 1, got {settings.cache_slots}")
    cache_dir = Path(settings.cache_dir).expanduser() if settings.cache_dir else None
    loaded = load_causal_lm(settings.model, settings.device, settings.threads, cache_dir, report)
    name = loaded.name
    adapter = adapter_file(settings)
    if adapter is not None:
        from llm_planner_ros.llm.lora import merge_adapter

        report(f"merged the adapter {adapter} into {merge_adapter(loaded.model, adapter, loaded.name)} layers")
        name = f"{loaded.name}+{adapter.stem}"
    return HFLanguageModel(
        loaded.model,
        loaded.tokenizer,
        name,
        settings.context_window or None,
        settings.seed,
        cache_slots=settings.cache_slots,
        adapter=adapter,
    )


def adapter_file(settings: LLMConfig) -> Path | None:
    """The adapter the hf backend merges: ``auto`` gives the embedded model its SayCan adapter and any
    other model none (an adapter only fits the weights it was trained on); relative paths are packaged
    files (``llm_planner_ros.paths.repo_path``: the checkout's, else the install's share folder), so a
    node started from another folder finds the same file."""
    from llm_planner_ros.paths import repo_path

    if settings.adapter == AUTO_ADAPTER:
        return None if settings.model else default_domain_adapter("saycan")
    if settings.adapter in METHOD_ADAPTER_NAMES:
        return default_domain_adapter(settings.adapter)
    if settings.adapter in BENCHMARK_ADAPTERS:
        return repo_path(BENCHMARK_ADAPTERS[settings.adapter])
    if settings.adapter in ("", "none"):
        return None
    return repo_path(Path(settings.adapter).expanduser())


def default_domain_adapter(method: str) -> Path:
    """The default domain's adapter file for ``method`` (it may not exist yet)."""
    return adapter_path(packaged_path(default_domain()), method)


def method_llm_config(config: Mapping[str, Any], method: str, kitchen: Domain | None = None) -> dict[str, Any]:
    """``config`` for a model service that serves ``method`` only (a bench run, a demo's one goal) in
    ``kitchen``'s domain (default: the default domain). The embedded model gets the adapter trained for that
    method in that domain (``domain_adapter_file``: the folder's ``adapters/<method>.safetensors``, or the
    one its ``adapters/shared.yaml`` lends it), else the general one shipped for that method
    (``domain_folder.general_adapter_file``), else none, unless ``config`` names an adapter, another model
    or another backend; a benchmark's method (``alfred_hlp``) gets its benchmark's adapter."""
    # A recording of the embedded model's answers records what the bench runs without one.
    records_embedded = config.get("replay_mode") == "record" and config.get("record_backend", "hf") == "hf"
    backend = config.get("backend", "hf")
    embedded = (backend == "hf" or (backend == "replay" and records_embedded)) and not config.get("model")
    if not embedded or "adapter" in config:
        return dict(config)
    if method in BENCHMARK_ADAPTERS:
        return {**config, "adapter": method}
    folder = built_files_folder(kitchen) if kitchen is not None else packaged_path(default_domain())
    return {**config, "adapter": serving_adapter_parameter(folder, method or "saycan")}


def _openai_model(settings: LLMConfig) -> LanguageModel:
    from llm_planner_ros.llm.openai_compat import OpenAICompatibleModel

    api_key = None
    if settings.api_key_env:
        api_key = os.environ.get(settings.api_key_env)
        if not api_key:
            raise ModelLoadError(
                f"environment variable {settings.api_key_env} (api_key_env) is not set: export the API key"
            )
    return OpenAICompatibleModel(
        settings.base_url,
        settings.model,
        timeout_s=settings.timeout_s,
        connect_timeout_s=settings.connect_timeout_s,
        max_retries=settings.max_retries,
        backoff_s=settings.backoff_s,
        api_key=api_key,
        tokenizer=settings.tokenizer,
        structured_outputs=settings.structured_outputs,
    )


def _replay_model(settings: LLMConfig, config: Mapping[str, Any], report: Callable[[str], None]) -> LanguageModel:
    from llm_planner_ros.llm.replay import ReplayLanguageModel

    if not settings.recording:
        raise ModelLoadError("backend replay needs `recording`: the JSONL file to replay or to record to")
    if settings.replay_mode == "replay":
        return ReplayLanguageModel(settings.recording)
    if settings.replay_mode != "record":
        raise ModelLoadError(f"unknown replay_mode {settings.replay_mode!r}: use one of {', '.join(REPLAY_MODES)}")
    if settings.record_backend == "replay":
        raise ModelLoadError("record_backend cannot be replay: record the answers of hf or openai")
    inner = load_language_model({**config, "backend": settings.record_backend}, report)
    return ReplayLanguageModel(settings.recording, inner)

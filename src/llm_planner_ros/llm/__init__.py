r"""The language-model layer: one interface, several backends, prefix-shared scoring.

    from llm_planner_ros.llm import load_language_model, load_embedder
    model = load_language_model({"backend": "hf"})            # embedded SmolLM2-135M-Instruct
    model.score(prompt, ["find a coke", "done"]).log_probs
    model.generate(prompt, n=3, temperature=0.7, stop=["\n"]).texts
    load_embedder({}).embed(["find a coke"])                   # unit rows (all-MiniLM-L6-v2)

Modules: ``base`` (interfaces, results, errors), ``factory`` (config -> backend), ``hf``/``hf_loading``
(local model), ``openai_compat`` (HTTP server), ``replay`` (JSONL), ``embedder`` (sentence-transformers),
``tokenization`` (the prompt/completion token boundary), ``tree_cache`` + ``prefix_scorer`` (scoring
that shares the prompt's K/V cache), ``sampling`` (generation on the same cache), ``naive`` (reference),
``limits`` (the size limits of one request that ``llm_service`` enforces).
Importing this package does not import torch or transformers.
"""

from llm_planner_ros.llm.base import (
    BackendUnavailableError,
    Embedder,
    GenerationResult,
    InvalidRequestError,
    LanguageModel,
    LLMError,
    ModelLoadError,
    RecordingNotFoundError,
    ScoreResult,
    UnsupportedRequestError,
)
from llm_planner_ros.llm.factory import EmbedderConfig, LLMConfig, load_embedder, load_language_model

__all__ = [
    "BackendUnavailableError",
    "Embedder",
    "EmbedderConfig",
    "GenerationResult",
    "InvalidRequestError",
    "LLMConfig",
    "LLMError",
    "LanguageModel",
    "ModelLoadError",
    "RecordingNotFoundError",
    "ScoreResult",
    "UnsupportedRequestError",
    "load_embedder",
    "load_language_model",
]

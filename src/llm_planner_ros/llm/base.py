"""The language-model layer's interfaces, result types and errors (ROS-free, no torch import).

Every planner talks to a :class:`LanguageModel` (score completions, sample continuations) and, when it
needs sentence similarity, to an :class:`Embedder`. Backends (``hf``, ``openai``, ``replay``) implement
them; ``llm_planner_ros.llm.factory`` builds one from a configuration mapping.

Errors are :class:`LLMError` subclasses whose message says what went wrong and how to fix it:

- :class:`InvalidRequestError`: the call itself is wrong (empty prompt or candidate list, an empty
  candidate, text that is not valid UTF-8, a prompt longer than the context window, a bad sampling
  argument). Retrying the same call fails the same way.
- :class:`ModelLoadError`: the model could not be loaded (missing file, missing package, no CUDA).
- :class:`BackendUnavailableError`: a server did not answer in time or at all, after the retries.
- :class:`UnsupportedRequestError`: the backend cannot do this call (e.g. a server that does not
  return prompt log-probs, which scoring needs, or one without grammar-constrained generation).
- :class:`RecordingNotFoundError`: the replay backend has no recorded answer for the call.
"""

from __future__ import annotations

import functools
import hashlib
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


class LLMError(RuntimeError):
    """Base of every error of the language-model layer; the message carries the fix."""


class InvalidRequestError(LLMError, ValueError):
    """The request is malformed; the same request will always fail."""


class ModelLoadError(LLMError):
    """The configured model could not be loaded."""


class BackendUnavailableError(LLMError):
    """The backend's server could not be reached or did not answer within its timeout."""


class UnsupportedRequestError(LLMError):
    """The backend lacks a capability the call needs."""


class RecordingNotFoundError(LLMError):
    """The replay backend has no recording for this request (or no recording file at all)."""


@dataclass(frozen=True)
class ScoreResult:
    """Scores of completions under a prompt, in the order they were given.

    ``log_probs[i]`` is log p(completions[i] | prompt) in nats, summed over the completion's tokens;
    ``token_counts[i]`` is how many tokens that sum has; ``token_log_probs[i]`` (only when per-token
    scores were asked for, else None) holds the ``token_counts[i]`` individual terms.
    """

    log_probs: tuple[float, ...]
    token_counts: tuple[int, ...]
    token_log_probs: tuple[tuple[float, ...], ...] | None = None

    @classmethod
    def from_token_log_probs(cls, per_completion: Sequence[Sequence[float]], per_token: bool) -> ScoreResult:
        terms = tuple(tuple(float(v) for v in values) for values in per_completion)
        return cls(
            log_probs=tuple(math.fsum(values) for values in terms),
            token_counts=tuple(len(values) for values in terms),
            token_log_probs=terms if per_token else None,
        )


@dataclass(frozen=True)
class GenerationResult:
    """Sampled continuations of a prompt.

    ``texts[i]`` is a continuation cut before the first stop string (the stop string is not part of
    it). ``mean_log_probs[i]`` is the mean log-probability of its tokens under the model (without the
    logit bias, temperature or top-p), NaN when the backend cannot report token log-probs.
    """

    texts: tuple[str, ...]
    mean_log_probs: tuple[float, ...]


@dataclass(frozen=True)
class RankRequest:
    """One ranking: ``weights[i]`` (>= 0, finite) multiplies ``p(completions[i] | prompt)``; the
    ``keep`` best by that product must come back exact."""

    prompt: str
    completions: Sequence[str]
    weights: Sequence[float]
    keep: int = 1


@dataclass(frozen=True)
class RankedScores:
    """The answer to a RankRequest, in the candidates' order.

    ``log_probs[i]``: log p(completions[i] | prompt) in nats, or None when the candidate was not scored
    because it cannot be among the ``keep`` best; ``token_log_probs[i]`` its per-token terms (None
    likewise); ``computed_tokens``: tokens the model ran for this answer (0 when the backend does not
    say), ``scored_tokens``: completion tokens whose log-prob was read.
    """

    log_probs: tuple[float | None, ...]
    token_log_probs: tuple[tuple[float, ...] | None, ...]
    computed_tokens: int = 0

    @property
    def scored(self) -> int:
        return sum(value is not None for value in self.log_probs)

    @property
    def scored_tokens(self) -> int:
        return sum(len(terms) for terms in self.token_log_probs if terms is not None)


def check_rank_request(request: RankRequest) -> None:
    """The score checks plus: one finite, non-negative weight per candidate and ``keep`` >= 1."""
    check_score_request(request.prompt, request.completions)
    if len(request.weights) != len(request.completions):
        raise InvalidRequestError(
            f"{len(request.weights)} weights for {len(request.completions)} completions: give one weight per completion"
        )
    for index, weight in enumerate(request.weights):
        if not math.isfinite(weight) or weight < 0:
            raise InvalidRequestError(f"weight {index} is {weight}: weights must be finite and >= 0")
    if request.keep < 1:
        raise InvalidRequestError(f"keep must be at least 1, got {request.keep}")


@dataclass(frozen=True)
class MergedAdapter:
    """Which LoRA adapter a model runs with, as far as it can say: the file's ``digest`` (sha256; "" for
    no adapter) and ``path`` (for messages) where ``known``; not ``known`` for a model that cannot say (a
    test double, a replay of a recording that does not record it). A method's prompt leaves its examples
    out only for the adapter trained on them (``planning.domain_examples``); the digest makes that
    comparison hold wherever the files lie (a recording made in another checkout)."""

    known: bool
    digest: str = ""
    path: str = ""

    @classmethod
    def of_file(cls, path: Path | None) -> MergedAdapter:
        """The adapter in the file ``path`` (None: no adapter)."""
        return cls(True, file_digest(path), str(path)) if path is not None else NO_ADAPTER

    def is_file(self, path: Path | None) -> bool:
        """Whether this is the adapter in ``path`` (None: no adapter); False when not known."""
        return self.known and self.digest == (file_digest(path) if path is not None else "")

    def to_json(self) -> dict[str, Any]:
        return {"known": self.known, "digest": self.digest, "path": self.path}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MergedAdapter:
        return cls(bool(data.get("known")), str(data.get("digest", "")), str(data.get("path", "")))


@functools.cache
def _digest(path: Path, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    """The sha256 of the file at ``path`` (read once per size and modification time)."""
    status = path.stat()
    return _digest(path.resolve(), status.st_size, status.st_mtime_ns)


UNKNOWN_ADAPTER = MergedAdapter(known=False)
NO_ADAPTER = MergedAdapter(known=True)


class LanguageModel(ABC):
    """A causal language model as the planners use it: score fixed completions, sample new text.

    Implementations are safe to call from several threads (calls are serialised where the backend
    needs it). ``name`` identifies the model in results and logs; ``adapter`` says which LoRA adapter its
    weights carry (``MergedAdapter``; unknown unless the backend says).
    """

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def adapter(self) -> MergedAdapter:
        return UNKNOWN_ADAPTER

    @abstractmethod
    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        """Log p(completion | prompt) for every completion (see :class:`ScoreResult`).

        Raises InvalidRequestError for an empty prompt, an empty candidate list, an empty candidate,
        non-UTF-8 text or a prompt plus candidate longer than the context window.
        """

    def score_ranked(self, requests: Sequence[RankRequest]) -> list[RankedScores]:
        """For each request, the exact scores of every candidate that can be among its ``keep`` best by
        ``p(completion | prompt) x weight``, None for the others (``llm.ranking``). This default scores
        every candidate (``score``), which is exact; backends that can prune (``hf``) or serve several
        requests in one forward override it. Raises what ``score`` raises, and InvalidRequestError for
        weights that are negative, not finite or not one per candidate.
        """
        answers = []
        for request in requests:
            check_rank_request(request)
            result = self.score(request.prompt, request.completions, per_token=True)
            assert result.token_log_probs is not None
            answers.append(RankedScores(result.log_probs, result.token_log_probs))
        return answers

    @abstractmethod
    def generate(
        self,
        prompt: str,
        n: int = 1,
        max_tokens: int = 64,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
        logit_bias: Mapping[str, float] | None = None,
        grammar: str | None = None,
    ) -> GenerationResult:
        """``n`` continuations of ``prompt`` of at most ``max_tokens`` tokens each.

        ``temperature`` 0 is greedy decoding; ``top_p`` is nucleus sampling; ``stop`` strings end a
        continuation; ``logit_bias`` maps words to a value added to the logits of their tokens (the
        word's tokens with and without a leading space). ``grammar`` (Lark syntax, llm.grammar) makes
        every continuation a sentence of the grammar, or a prefix of one when ``max_tokens`` ran out;
        a backend that cannot enforce it raises UnsupportedRequestError, a malformed grammar
        InvalidRequestError.
        """


class Embedder(ABC):
    """Sentence embeddings: ``embed(texts)`` gives one unit-length float32 row per text (a
    (len(texts), dim) array), so a dot product of two rows is their cosine similarity."""

    @property
    def name(self) -> str:
        return type(self).__name__

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


# ----- request checks shared by every backend -----------------------------------------------------------


def check_text(text: str, what: str) -> None:
    """InvalidRequestError unless ``text`` is a str that encodes as UTF-8 (no lone surrogates, which
    is what undecodable bytes become under Python's surrogateescape)."""
    if not isinstance(text, str):
        raise InvalidRequestError(f"{what} must be a str, got {type(text).__name__}: decode bytes as UTF-8 first")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidRequestError(
            f"{what} is not valid UTF-8 text (character {error.start}): decode the input as UTF-8 "
            "with errors='replace' before sending it"
        ) from None


def check_texts_to_embed(texts: Sequence[str]) -> None:
    """What every Embedder.embed checks first: a list (a single str is a mistake: TypeError) of valid texts."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a list of texts, got a single str: wrap it in a list")
    for index, text in enumerate(texts):
        check_text(text, f"text {index}")


def check_prompt(prompt: str) -> None:
    check_text(prompt, "prompt")
    if not prompt:
        raise InvalidRequestError("prompt is empty: the model needs text to condition on")


def check_score_request(prompt: str, completions: Sequence[str]) -> None:
    """The checks every backend's ``score`` applies before doing any work."""
    check_prompt(prompt)
    if isinstance(completions, str):
        raise InvalidRequestError("completions must be a list of strings, got a single str: wrap it in a list")
    if len(completions) == 0:
        raise InvalidRequestError("completions is empty: give at least one candidate text to score")
    for index, completion in enumerate(completions):
        check_text(completion, f"completion {index}")
        if not completion:
            raise InvalidRequestError(f"completion {index} is empty: every candidate needs at least one character")


def check_generate_request(
    prompt: str,
    n: int,
    max_tokens: int,
    temperature: float,
    top_p: float,
    stop: Sequence[str],
    logit_bias: Mapping[str, float] | None,
    grammar: str | None = None,
) -> None:
    """The checks every backend's ``generate`` applies before doing any work (a grammar's syntax is
    checked where it is compiled: llm.grammar)."""
    check_prompt(prompt)
    if grammar is not None:
        check_text(grammar, "grammar")
        if not grammar.strip():
            raise InvalidRequestError("the grammar is blank: pass None for unconstrained generation")
    if n < 1:
        raise InvalidRequestError(f"n must be at least 1, got {n}")
    if max_tokens < 1:
        raise InvalidRequestError(f"max_tokens must be at least 1, got {max_tokens}")
    if not math.isfinite(temperature) or temperature < 0:
        raise InvalidRequestError(f"temperature must be >= 0 (0 is greedy), got {temperature}")
    if not math.isfinite(top_p) or not 0 < top_p <= 1:
        raise InvalidRequestError(f"top_p must be in (0, 1], got {top_p}")
    if isinstance(stop, str):
        raise InvalidRequestError("stop must be a list of strings, got a single str: wrap it in a list")
    for index, text in enumerate(stop):
        check_text(text, f"stop string {index}")
        if not text:
            raise InvalidRequestError(f"stop string {index} is empty: it would end every continuation at once")
    for word, value in (logit_bias or {}).items():
        check_text(word, "logit_bias word")
        if not word.strip():
            raise InvalidRequestError("a logit_bias word is blank: give words with at least one visible character")
        if not math.isfinite(value):
            raise InvalidRequestError(f"logit_bias for {word!r} must be a finite number, got {value}")


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, int | None]:
    """``text`` up to the earliest occurrence of any stop string, and that position (None: no stop)."""
    positions = [found for found in (text.find(s) for s in stop) if found >= 0]
    if not positions:
        return text, None
    cut = min(positions)
    return text[:cut], cut

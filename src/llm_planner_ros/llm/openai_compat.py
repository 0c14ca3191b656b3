"""The ``openai`` backend: a model behind an OpenAI-compatible ``/v1/completions`` HTTP endpoint.

Works with vLLM, llama.cpp's server, Ollama and ``transformers serve`` for generation. Scoring needs
the server to return log-probs of the prompt's own tokens (``echo: true`` with ``logprobs``), which
vLLM does and llama.cpp's server, Ollama and ``transformers serve`` do not: against those, ``score``
raises UnsupportedRequestError saying so. All candidates of a call go in one request, as a list of
prompts ``prompt + completion``; the server tokenizes them jointly, and a token that straddles the
join counts as the completion's (the same boundary policy as the ``hf`` backend, in characters).

Every request has a connect and a read timeout. Connection failures, timeouts, HTTP 429 and 5xx are
retried ``max_retries`` times with exponential backoff (``backoff_s``, doubling, at most 30 s); then
BackendUnavailableError names the URL and the last failure. Other 4xx answers are not retried.
So a call takes at most about (max_retries + 1) * (connect_timeout_s + timeout_s) plus the backoffs.

Generation: servers that ignore ``n`` are asked again until ``n`` texts are in; texts are cut at the
first stop string (some servers keep it); ``mean_log_probs`` is NaN when the server sends no
token log-probs. ``logit_bias`` words are mapped to token ids with ``tokenizer`` (a folder holding the
served model's tokenizer), because the API takes token ids. A ``grammar`` is sent only to a server
configured to take one (``structured_outputs: vllm``: vLLM's ``structured_outputs: {"grammar": ...}``
field, which replaced ``guided_grammar`` in vLLM 0.12); with ``none`` (the default) constrained
generation raises UnsupportedRequestError, because a server that does not know the field ignores it
and would answer unconstrained text.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import requests

from llm_planner_ros.llm.base import (
    BackendUnavailableError,
    GenerationResult,
    InvalidRequestError,
    LanguageModel,
    ScoreResult,
    UnsupportedRequestError,
    check_generate_request,
    check_score_request,
    cut_at_stop,
)
from llm_planner_ros.llm.grammar import check_grammar
from llm_planner_ros.llm.tokenization import bias_token_ids

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0
SCORING_NEEDS = (
    "scoring needs a server that returns the log-probs of the prompt's own tokens for a list of prompts "
    "(echo=true, logprobs=1), as vLLM does; or use the hf backend"
)
# How a server takes a grammar: not at all (refuse), or vLLM's structured-outputs field.
STRUCTURED_OUTPUTS = ("none", "vllm")


class OpenAICompatibleModel(LanguageModel):
    """Client of ``{base_url}/completions`` (``base_url`` includes the API prefix, e.g. http://host:8000/v1).

    ``model`` is the id the server serves; ``api_key`` goes in a Bearer header when given;
    ``structured_outputs`` says how the server takes a grammar (module docstring).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 5.0,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        api_key: str | None = None,
        tokenizer: str = "",
        structured_outputs: str = "none",
    ) -> None:
        if structured_outputs not in STRUCTURED_OUTPUTS:
            raise InvalidRequestError(
                f"structured_outputs must be one of {', '.join(STRUCTURED_OUTPUTS)}, got {structured_outputs!r}"
            )
        if not base_url:
            raise InvalidRequestError("the openai backend needs base_url, e.g. http://localhost:8000/v1")
        if not model:
            raise InvalidRequestError(f"the openai backend needs `model`: an id the server lists at {base_url}/models")
        self._url = base_url.rstrip("/") + "/completions"
        self._model = model
        self._timeout = (connect_timeout_s, timeout_s)
        self._max_retries = max_retries
        self._backoff_s = backoff_s
        self._tokenizer_path = tokenizer
        self._tokenizer: Any = None
        self._structured_outputs = structured_outputs
        self._session = requests.Session()
        if api_key:
            self._session.headers["Authorization"] = f"Bearer {api_key}"

    @property
    def name(self) -> str:
        return self._model

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        check_score_request(prompt, completions)
        texts = [prompt + completion for completion in completions]
        body = {"model": self._model, "prompt": texts, "max_tokens": 1, "temperature": 0, "echo": True, "logprobs": 1}
        choices = self._choices(self._post(body, hint=SCORING_NEEDS))
        if len(choices) != len(texts):
            raise UnsupportedRequestError(
                f"the server at {self._url} answered {len(choices)} choices for {len(texts)} prompts: {SCORING_NEEDS}"
            )
        terms = [
            self._completion_terms(choice, len(prompt), len(text)) for choice, text in zip(choices, texts, strict=False)
        ]
        return ScoreResult.from_token_log_probs(terms, per_token)

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
        check_generate_request(prompt, n, max_tokens, temperature, top_p, stop, logit_bias, grammar)
        if grammar is not None and self._structured_outputs == "none":
            raise UnsupportedRequestError(
                f"the openai backend does not send grammars to {self._url} (structured_outputs: none): a server "
                "without structured generation would ignore the grammar; set structured_outputs: vllm for a vLLM "
                "server, or use the hf backend"
            )
        check_grammar(grammar)
        body: dict[str, Any] = {
            "model": self._model,
            "prompt": prompt,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_p": top_p,
            "logprobs": 1,
        }
        if stop:
            body["stop"] = list(stop)
        if grammar is not None:
            body["structured_outputs"] = {"grammar": grammar}
        if logit_bias:
            body["logit_bias"] = {
                str(token): value for token, value in bias_token_ids(self._tokens(), logit_bias).items()
            }
        texts: list[str] = []
        means: list[float] = []
        while len(texts) < n:
            body["n"] = n - len(texts)
            for choice in self._choices(self._post(body, hint=""))[: n - len(texts)]:
                texts.append(cut_at_stop(str(choice.get("text", "")), stop)[0])
                means.append(_mean_token_log_prob(choice))
        return GenerationResult(tuple(texts), tuple(means))

    def _completion_terms(self, choice: Mapping[str, Any], boundary: int, length: int) -> list[float]:
        """Log-probs of the echoed tokens that reach past the prompt (``boundary``) in a text of ``length``."""
        log_probs = choice.get("logprobs") or {}
        offsets, values = log_probs.get("text_offset"), log_probs.get("token_logprobs")
        if not offsets or not values or len(offsets) != len(values):
            raise UnsupportedRequestError(f"the server at {self._url} returned no prompt log-probs: {SCORING_NEEDS}")
        ends = [min(end, length) for end in [*offsets[1:], length]]
        inside = [
            k for k, (start, end) in enumerate(zip(offsets, ends, strict=False)) if start < length and end > boundary
        ]
        if not inside:
            raise UnsupportedRequestError(f"the server at {self._url} did not echo the prompt: {SCORING_NEEDS}")
        if values[inside[0]] is None:
            raise InvalidRequestError(
                "the completion starts at the text's first token, leaving nothing to condition on: end the prompt "
                "at a word boundary"
            )
        return [float(values[k]) for k in inside]

    def _choices(self, answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        choices = answer.get("choices")
        if not isinstance(choices, list) or not choices:
            raise UnsupportedRequestError(f"the server at {self._url} answered without choices: {str(answer)[:200]}")
        return sorted(choices, key=lambda choice: int(choice.get("index", 0)))

    def _post(self, body: Mapping[str, Any], hint: str) -> Mapping[str, Any]:
        last = ""
        for attempt in range(self._max_retries + 1):
            if attempt:
                # Give a restarting or overloaded server time before asking again.
                time.sleep(min(self._backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S))
            try:
                response = self._session.post(self._url, json=body, timeout=self._timeout)
            except requests.Timeout:
                last = f"no answer within {self._timeout[1]:g} s"
                continue
            except requests.ConnectionError as error:
                last = f"cannot connect ({type(error).__name__})"
                continue
            if response.status_code in RETRYABLE_STATUS:
                last = f"HTTP {response.status_code}: {response.text[:200]}"
                continue
            if response.status_code >= 400:
                detail = (
                    f"the server at {self._url} rejected the request "
                    f"(HTTP {response.status_code}: {response.text[:200]})"
                )
                raise UnsupportedRequestError(f"{detail}: {hint}" if hint else detail)
            try:
                return response.json()
            except ValueError:
                raise UnsupportedRequestError(
                    f"the server at {self._url} answered with non-JSON: {response.text[:200]}"
                ) from None
        raise BackendUnavailableError(
            f"the LLM server at {self._url} failed {self._max_retries + 1} attempts (last: {last}): start it, "
            "check base_url, or raise timeout_s"
        )

    def _tokens(self) -> Any:
        if not self._tokenizer_path:
            raise UnsupportedRequestError(
                "logit_bias needs the served model's tokenizer to map words to token ids: set `tokenizer` to a "
                "folder holding its tokenizer.json"
            )
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            try:
                self._tokenizer = AutoTokenizer.from_pretrained(self._tokenizer_path, local_files_only=True)
            except (OSError, ValueError) as error:
                raise UnsupportedRequestError(
                    f"could not load the tokenizer at {self._tokenizer_path}: {error}"
                ) from error
        return self._tokenizer


def _mean_token_log_prob(choice: Mapping[str, Any]) -> float:
    values = [v for v in ((choice.get("logprobs") or {}).get("token_logprobs") or []) if v is not None]
    return math.fsum(values) / len(values) if values else math.nan

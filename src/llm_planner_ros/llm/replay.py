"""The ``replay`` backend: answers from a JSONL recording, or records another backend's answers.

Recording (``inner`` given): every call goes to the inner model and one line is appended to the file:
``{"request": {...}, "response": {...}, "model": name}``, with ``"adapter"`` where the inner model knows
its adapter (a replay then reports it, so its prompts are the recorded run's). Scores are always recorded per token, so
one recording answers both ``per_token`` settings.

Replaying (no ``inner``): a call is looked up by its request (method and every argument). The k-th
identical call gets the k-th recorded answer to it, and the last one once they run out, so a
replay of a recorded run is answered exactly as it was. A request that was never recorded raises
RecordingNotFoundError with a short description of it: re-record with the inner backend.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from llm_planner_ros.llm.base import (
    UNKNOWN_ADAPTER,
    GenerationResult,
    LanguageModel,
    MergedAdapter,
    RecordingNotFoundError,
    ScoreResult,
    check_generate_request,
    check_score_request,
)


class ReplayLanguageModel(LanguageModel):
    """Replays ``path`` (no ``inner``), or records ``inner``'s answers to it."""

    def __init__(self, path: str | Path, inner: LanguageModel | None = None) -> None:
        self._path = Path(path)
        self._inner = inner
        self._lock = threading.Lock()
        self._answers: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        self._served: dict[str, int] = defaultdict(int)
        self._name = inner.name if inner is not None else "replay"
        self._adapter = inner.adapter if inner is not None else UNKNOWN_ADAPTER
        if inner is None:
            self._load()

    @property
    def name(self) -> str:
        return self._name

    @property
    def adapter(self) -> MergedAdapter:
        """The recorded model's adapter: a replay must build the prompts the recorded run built."""
        return self._adapter

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        check_score_request(prompt, completions)
        request = {"method": "score", "prompt": prompt, "completions": list(completions)}
        if self._inner is not None:
            result = self._inner.score(prompt, completions, per_token=True)
            self._append(request, {"token_log_probs": result.token_log_probs})
        else:
            result = ScoreResult.from_token_log_probs(self._lookup(request)["token_log_probs"], per_token=True)
        return ScoreResult(result.log_probs, result.token_counts, result.token_log_probs if per_token else None)

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
        request = {
            "method": "generate",
            "prompt": prompt,
            "n": n,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_p": top_p,
            "stop": list(stop),
            "logit_bias": dict(logit_bias or {}),
        }
        if grammar is not None:
            # Part of the request's identity; left out when absent so recordings made before grammars match.
            request["grammar"] = grammar
        if self._inner is not None:
            result = self._inner.generate(prompt, n, max_tokens, temperature, top_p, stop, logit_bias, grammar)
            self._append(request, {"texts": result.texts, "mean_log_probs": result.mean_log_probs})
            return result
        answer = self._lookup(request)
        return GenerationResult(tuple(answer["texts"]), tuple(float(v) for v in answer["mean_log_probs"]))

    def _load(self) -> None:
        if not self._path.is_file():
            raise RecordingNotFoundError(
                f"no recording at {self._path}: record one first (backend replay with replay_mode: record)"
            )
        with self._path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    self._answers[_key(entry["request"])].append(entry["response"])
                    self._name = str(entry.get("model", self._name))
                    if "adapter" in entry:
                        self._adapter = MergedAdapter.from_json(entry["adapter"])
                except (ValueError, KeyError, TypeError) as error:
                    raise RecordingNotFoundError(
                        f"{self._path}:{number} is not a recording line ({error}): re-record the file"
                    ) from None

    def _lookup(self, request: Mapping[str, Any]) -> Mapping[str, Any]:
        key = _key(request)
        with self._lock:
            answers = self._answers.get(key)
            if not answers:
                raise RecordingNotFoundError(
                    f"no recorded answer in {self._path} for {_describe(request)}: re-record with replay_mode: record"
                )
            served = self._served[key]
            self._served[key] = served + 1
        return answers[min(served, len(answers) - 1)]

    def _append(self, request: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        entry: dict[str, Any] = {"request": request, "response": response, "model": self._name}
        if self._adapter.known:
            entry["adapter"] = self._adapter.to_json()
        line = json.dumps(entry, ensure_ascii=False)
        with self._lock:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as out:
                out.write(line + "\n")


def _key(request: Mapping[str, Any]) -> str:
    return json.dumps(request, sort_keys=True, ensure_ascii=False)


def _describe(request: Mapping[str, Any]) -> str:
    prompt = str(request.get("prompt", ""))
    tail = prompt[-60:].replace("\n", "\\n")
    if request.get("method") == "score":
        return f"score(prompt='...{tail}', {len(request.get('completions', []))} completions)"
    return f"generate(prompt='...{tail}', n={request.get('n')}, temperature={request.get('temperature')})"

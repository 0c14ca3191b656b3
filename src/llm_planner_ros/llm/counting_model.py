"""A LanguageModel wrapper that counts what a plan cost: calls, scored candidates and their tokens."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from llm_planner_ros.llm.base import (
    GenerationResult,
    LanguageModel,
    MergedAdapter,
    RankedScores,
    RankRequest,
    ScoreResult,
)


@dataclass
class LLMUsage:
    """Counters since the last ``reset``: score and generate calls, candidates scored, completion
    tokens scored (of a ranked call, only the candidates it scored), continuations generated."""

    score_calls: int = 0
    generate_calls: int = 0
    candidates: int = 0
    scored_tokens: int = 0
    generations: int = 0

    @property
    def calls(self) -> int:
        return self.score_calls + self.generate_calls


class CountingModel(LanguageModel):
    """Delegates every call to ``inner`` and adds it to ``usage``; thread-safe."""

    def __init__(self, inner: LanguageModel) -> None:
        self.inner = inner
        self.usage = LLMUsage()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def adapter(self) -> MergedAdapter:
        return self.inner.adapter

    def reset(self) -> LLMUsage:
        """Start counting afresh; returns the counts so far."""
        with self._lock:
            usage, self.usage = self.usage, LLMUsage()
        return usage

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        result = self.inner.score(prompt, completions, per_token)
        with self._lock:
            self.usage.score_calls += 1
            self.usage.candidates += len(completions)
            self.usage.scored_tokens += sum(result.token_counts)
        return result

    def score_ranked(self, requests: Sequence[RankRequest]) -> list[RankedScores]:
        answers = self.inner.score_ranked(requests)
        with self._lock:
            self.usage.score_calls += len(requests)
            self.usage.candidates += sum(answer.scored for answer in answers)
            self.usage.scored_tokens += sum(answer.scored_tokens for answer in answers)
        return answers

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
        result = self.inner.generate(prompt, n, max_tokens, temperature, top_p, stop, logit_bias, grammar)
        with self._lock:
            self.usage.generate_calls += 1
            self.usage.generations += len(result.texts)
        return result

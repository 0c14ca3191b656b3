"""The tests' language models and embedder, each written once: stand-ins for the model where a test is
about a planner's decision rule, its prompts or its control flow, never about what a model says.

``RecordingModel`` is the base: it keeps every prompt, and a kind of request a double does not answer
fails the test with the double's name (a scoring planner that generates, a generating one that scores).
Its subclasses answer by rule:

- ``ScoringOnlyModel``: one log-probability per completion from ``log_prob(prompt, completion)``;
  ``PreferringModel`` (a fixed order of completions), ``FixedModel`` (fixed log-probabilities) and
  ``StepPreferenceModel`` (an order per step of the prompt's plan so far, and optionally one text for
  every ``generate``) are its rules.
- ``ScriptedModel``: ``generate`` answers from a script, one entry per call, in order.
- ``ProgramModel``: ``generate`` returns one program for every prompt; ``score`` answers ProgPrompt's
  assert question by ``answer(prompt)``.

``WordEmbedder`` is a bag-of-words embedder that records what it embedded.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_planner_ros.llm.base import (
    UNKNOWN_ADAPTER,
    Embedder,
    GenerationResult,
    LanguageModel,
    MergedAdapter,
    ScoreResult,
)


@dataclass
class GenerateCall:
    """One ``generate`` request a double received."""

    prompt: str
    kwargs: dict[str, Any]


class RecordingModel(LanguageModel):
    """Records every request; ``_score`` and ``_generate`` answer them, and by default fail the test.

    ``prompts`` holds every prompt in order, ``score_prompts`` those of ``score``, ``calls`` the
    ``generate`` requests with their arguments; ``adapter`` is the adapter it claims to run.
    """

    def __init__(self, adapter: MergedAdapter = UNKNOWN_ADAPTER) -> None:
        self._adapter = adapter
        self.prompts: list[str] = []
        self.score_prompts: list[str] = []
        self.calls: list[GenerateCall] = []

    @property
    def adapter(self) -> MergedAdapter:
        return self._adapter

    @property
    def generate_prompts(self) -> list[str]:
        return [call.prompt for call in self.calls]

    @property
    def grammars(self) -> list[str | None]:
        return [call.kwargs["grammar"] for call in self.calls]

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        self.prompts.append(prompt)
        self.score_prompts.append(prompt)
        return self._score(prompt, completions, per_token)

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
        self.prompts.append(prompt)
        kwargs = {
            "n": n,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_p": top_p,
            "stop": tuple(stop),
            "logit_bias": logit_bias,
            "grammar": grammar,
        }
        self.calls.append(GenerateCall(prompt, kwargs))
        return self._generate(prompt, n)

    def _score(self, prompt: str, completions: Sequence[str], per_token: bool) -> ScoreResult:
        raise AssertionError(f"{type(self).__name__} only generates; the planner under test must not score")

    def _generate(self, prompt: str, n: int) -> GenerationResult:
        raise AssertionError(f"{type(self).__name__} only scores; the planner under test must not generate")


class ScoringOnlyModel(RecordingModel):
    """For planners that only score (SayCan, SayCanPay's action strategies): each completion gets the
    single-token log-probability ``log_prob(prompt, completion)`` (completion stripped)."""

    def log_prob(self, prompt: str, completion: str) -> float:
        raise NotImplementedError

    def _score(self, prompt: str, completions: Sequence[str], per_token: bool) -> ScoreResult:
        return ScoreResult.from_token_log_probs([[self.log_prob(prompt, c.strip())] for c in completions], per_token)


def preference_log_prob(order: Sequence[str], completion: str) -> float:
    """Earlier in ``order`` is likelier (-0.1, -0.6, ...); a completion not in it comes after all of them."""
    rank = order.index(completion) if completion in order else len(order) + 5
    return -0.5 * rank - 0.1


class PreferringModel(ScoringOnlyModel):
    """Scores each candidate by its rank in ``preferred`` (earlier = likelier; unknown texts last)."""

    def __init__(self, preferred: Sequence[str]) -> None:
        super().__init__()
        self.preferred = list(preferred)

    def log_prob(self, prompt: str, completion: str) -> float:
        return preference_log_prob(self.preferred, completion)


class StepPreferenceModel(ScoringOnlyModel):
    """Like ``PreferringModel``, with one order per step: ``preferred[k]`` ranks the candidates when the
    prompt's last "Robot:" line already holds k steps (the last order is reused after the end)."""

    def __init__(self, preferred: Sequence[Sequence[str]], generated: str | None = None) -> None:
        super().__init__()
        self.preferred = [list(order) for order in preferred]
        self.generated = generated

    def log_prob(self, prompt: str, completion: str) -> float:
        steps_done = prompt.rsplit("Robot:", 1)[-1].count(",")
        order = self.preferred[min(steps_done, len(self.preferred) - 1)] if self.preferred else []
        return preference_log_prob(order, completion)

    def _generate(self, prompt: str, n: int) -> GenerationResult:
        if self.generated is None:
            return super()._generate(prompt, n)
        return GenerationResult((self.generated,) * n, (-0.3,) * n)


class FixedModel(ScoringOnlyModel):
    """Gives each completion a fixed log-probability (``log_probs``; others -40 nats): a model far surer
    of its first choice than of anything else, as the adapted 135M model is."""

    def __init__(self, log_probs: Mapping[str, float]) -> None:
        super().__init__()
        self.log_probs = dict(log_probs)

    def log_prob(self, prompt: str, completion: str) -> float:
        return self.log_probs.get(completion, -40.0)


class ScriptedModel(RecordingModel):
    """Answers ``generate`` calls with the scripted results, in order; a call past the script fails.

    A script entry is a list of texts (mean log-prob -0.5 each) or a list of (text, mean log-prob) pairs.
    """

    def __init__(self, script: list[Sequence[str | tuple[str, float]]]) -> None:
        super().__init__()
        self.script = script

    def _generate(self, prompt: str, n: int) -> GenerationResult:
        if len(self.calls) > len(self.script):
            raise AssertionError(f"unscripted generate call {len(self.calls)}; prompt:\n{prompt}")
        entries = [(e, -0.5) if isinstance(e, str) else e for e in self.script[len(self.calls) - 1]]
        return GenerationResult(tuple(t for t, _ in entries), tuple(float(lp) for _, lp in entries))


class ProgramModel(RecordingModel):
    """ProgPrompt's model: ``generate`` returns ``completion`` (the program body) for any prompt and
    grammar; ``score`` of the assert question's two answers prefers " Yes" when ``answer(prompt)``."""

    def __init__(self, completion: str, answer: Callable[[str], bool] = lambda _prompt: True) -> None:
        super().__init__()
        self.completion = completion
        self.answer = answer

    def _generate(self, prompt: str, n: int) -> GenerationResult:
        return GenerationResult((self.completion,) * n, (-0.25,) * n)

    def _score(self, prompt: str, completions: Sequence[str], per_token: bool) -> ScoreResult:
        assert list(completions) == [" Yes", " No"], completions
        return ScoreResult((-0.1, -3.0) if self.answer(prompt) else (-3.0, -0.1), (1, 1))


class WordEmbedder(Embedder):
    """Unit bag-of-words vectors (words hashed into ``dim`` buckets): texts sharing no word are
    orthogonal, identical texts have similarity 1. ``embedded`` lists every text it was asked for."""

    def __init__(self, dim: int = 1024) -> None:
        self.dim = dim
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                row[zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)

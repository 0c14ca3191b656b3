"""Test doubles of the generative-planner tests: a scripted language model, a bag-of-words embedder that
counts its calls, and a kitchen environment that perceives only the places the robot has been to."""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kitchen_domain.world import World
from llm_planner_ros.llm.base import Embedder, GenerationResult, LanguageModel, ScoreResult, UnsupportedRequestError
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment


@dataclass
class GenerateCall:
    """One ``generate`` request the scripted model received."""

    prompt: str
    kwargs: dict[str, Any]


@dataclass
class ScriptedModel(LanguageModel):
    """Answers ``generate`` calls with the scripted results, in order; records every call.

    A script entry is a list of texts (mean log-prob -0.5 each) or a list of (text, mean log-prob) pairs.
    """

    script: list[Sequence[str | tuple[str, float]]]
    calls: list[GenerateCall] = field(default_factory=list)

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        raise UnsupportedRequestError("the scripted model only generates")

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
        self.calls.append(
            GenerateCall(
                prompt,
                {
                    "n": n,
                    "max_tokens": max_tokens,
                    "temperature": temperature,
                    "top_p": top_p,
                    "stop": tuple(stop),
                    "logit_bias": logit_bias,
                    "grammar": grammar,
                },
            )
        )
        if len(self.calls) > len(self.script):
            raise AssertionError(f"unscripted generate call {len(self.calls)}; prompt:\n{prompt}")
        entries = [(e, -0.5) if isinstance(e, str) else e for e in self.script[len(self.calls) - 1]]
        return GenerationResult(tuple(t for t, _ in entries), tuple(float(lp) for _, lp in entries))


class WordEmbedder(Embedder):
    """Unit bag-of-words vectors (words hashed into 1024 buckets): texts sharing no word are orthogonal,
    identical texts have similarity 1. ``embedded`` lists every text it was asked for."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        rows = np.zeros((len(texts), 1024), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                row[zlib.crc32(word.encode()) % 1024] += 1.0
            norm = np.linalg.norm(row)
            if norm > 0:
                row /= norm
        return rows


class PartiallyObservedKitchen(SimulatedEnvironment):
    """A simulated kitchen whose perception reports only objects lying at places the robot has visited
    (what a camera would have seen), instead of every object of the scene."""

    def __init__(self, world: World) -> None:
        super().__init__(world)

    def observed_objects(self) -> list[str]:
        seen = set(self.world.visited)
        labels = (obj.label for obj in self.world.objects if obj.at in seen or obj.held)
        return list(dict.fromkeys(labels))

"""The temperature of SayCan's language-model term, fitted to how often the model's ranking is right.

SayCan ranks skills by p_LLM x affordance. With ``llm_temperature`` T the language-model term is
p_LLM^(1/T): T > 1 flattens a model that is far surer than it is right, so that an affordance can
overturn its first choice before the affordance is near 0. ``fit_temperature`` chooses T by maximum
likelihood: at each step of a set of (generated) tasks, softmax(log p_LLM / T) over the admissible
skills should put its mass on the skills that start a shortest plan (``StepSample.right``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_TEMPERATURE = 0.05
MAX_TEMPERATURE = 100.0


@dataclass(frozen=True)
class StepSample:
    """One planning step: the log-probability of every admissible skill (nats) and which are right."""

    log_probs: tuple[float, ...]
    right: tuple[bool, ...]

    def __post_init__(self) -> None:
        if len(self.log_probs) != len(self.right) or not any(self.right):
            raise ValueError("a step sample needs one flag per skill and at least one right skill")


def mean_log_likelihood(samples: Sequence[StepSample], temperature: float) -> float:
    """Mean over steps of log sum_{right i} softmax(log_probs / T)_i (0 is a model always sure and right)."""
    total = 0.0
    for sample in samples:
        scaled = np.asarray(sample.log_probs, dtype=np.float64) / temperature
        top = scaled.max()
        normaliser = top + math.log(float(np.exp(scaled - top).sum()))
        right = scaled[np.asarray(sample.right, dtype=bool)]
        total += float(right.max() + math.log(float(np.exp(right - right.max()).sum()))) - normaliser
    return total / len(samples)


def fit_temperature(samples: Sequence[StepSample], grid: int = 241) -> float:
    """The T of a log-spaced grid over [MIN_TEMPERATURE, MAX_TEMPERATURE] (steps of about 3 %) that
    maximises ``mean_log_likelihood``; a grid because with several right skills per step the
    likelihood need not be unimodal in T."""
    if not samples:
        raise ValueError("no step samples to fit a temperature on: generate tasks first")
    temperatures = np.geomspace(MIN_TEMPERATURE, MAX_TEMPERATURE, grid)
    return float(max(temperatures, key=lambda t: mean_log_likelihood(samples, float(t))))


def overturn_affordance(log_prob_gap: float, temperature: float, second_affordance: float = 1.0) -> float:
    """The affordance below which the model's first choice loses to a second choice ``log_prob_gap``
    nats behind it with affordance ``second_affordance``: exp(-gap / T) x second_affordance."""
    return math.exp(-log_prob_gap / temperature) * second_affordance

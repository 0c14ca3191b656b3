"""Seeded injected skill failures, for execution-success measurements (off unless switched on)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

from llm_planner_ros.domain.skill import Skill


class FailureInjector:
    """Decides whether one attempt of a skill fails, with a per-family probability.

    The outcome of the n-th attempt of a skill text in an episode depends only on (seed, episode, skill
    text, n), not on what else ran before it: two planners that attempt "pick up the coke" for the
    first time in the same episode see the same outcome, so their execution success is compared on
    the same luck. ``reset(episode)`` starts an episode's attempt counts afresh. With ``enabled``
    False (the default) nothing ever fails.
    """

    def __init__(self, probabilities: Mapping[str, float], seed: int = 0, enabled: bool = False) -> None:
        for family, p in probabilities.items():
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"failure probability of {family!r} must be in [0, 1], got {p}")
        self.probabilities = dict(probabilities)
        self.seed = seed
        self.enabled = enabled
        self._episode = ""
        self._attempts: Counter[str] = Counter()

    def reset(self, episode: str = "") -> None:
        self._episode = episode
        self._attempts.clear()

    def probability(self, skill: Skill) -> float:
        return self.probabilities.get(skill.family, 0.0) if self.enabled else 0.0

    def attempt_fails(self, skill: Skill) -> bool:
        """Count one attempt of ``skill`` and say whether it fails."""
        self._attempts[skill.text] += 1
        p = self.probability(skill)
        if p <= 0.0:
            return False
        # String seeds are hashed with SHA-512, so draws are identical across runs and processes.
        draw = random.Random(f"{self.seed}|{self._episode}|{skill.text}|{self._attempts[skill.text]}").random()
        return draw < p

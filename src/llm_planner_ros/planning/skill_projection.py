"""Free text onto the skill vocabulary by sentence-embedding cosine similarity.

Generative methods (SayCan's generative ablation, the zero-shot planner's semantic translation,
LLM-Planner's subgoal mapping) let the model write a step in its own words and then need the admissible
skill it means. Skill texts are embedded once per vocabulary and cached: the vocabulary of a scene does
not change while a plan runs, so only the generated text is embedded at each step.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.llm.base import Embedder


class SkillProjector:
    """Cosine similarities between texts and skills; embeddings of each skill vocabulary are cached.

    The embedder returns unit rows, so a dot product is the cosine similarity.
    """

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._skill_vectors: dict[tuple[str, ...], np.ndarray] = {}

    def similarities(self, texts: Sequence[str], skills: Sequence[Skill]) -> np.ndarray:
        """A (len(texts), len(skills)) matrix of cosine similarities."""
        return np.asarray(self._embedder.embed(list(texts))) @ self.skill_vectors(skills).T

    def skill_vectors(self, skills: Sequence[Skill]) -> np.ndarray:
        key = tuple(skill.text for skill in skills)
        if key not in self._skill_vectors:
            self._skill_vectors[key] = np.asarray(self._embedder.embed(list(key)))
        return self._skill_vectors[key]

    def nearest(self, text: str, skills: Sequence[Skill]) -> tuple[Skill, float]:
        """The skill most similar to ``text`` (ties: the first listed) and its similarity."""
        row = self.similarities([text], skills)[0]
        best = int(np.argmax(row))
        return skills[best], float(row[best])


def require_skill_texts(texts: Iterable[str], kitchen: Domain, source: str) -> None:
    """Raise ValueError naming every text of ``texts`` that is no skill of the kitchen's library (drawer
    skills included); example plans are written in skill texts, and a typo would teach the model a step
    the robot does not have."""
    unknown = sorted({text for text in texts if kitchen.library.find(text) is None})
    if unknown:
        raise ValueError(
            f"{source}: steps that are no kitchen skill (fix the spelling): {', '.join(map(repr, unknown))}"
        )

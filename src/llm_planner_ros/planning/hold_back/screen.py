"""The hold-back decision on a request, before any skill: plan it, or end with nothing done and why.

``RequestScreen.decide`` classifies a request in its domain (``classifier.HoldBackModel``) and answers
None for a task, else a ``HoldBack``: STOP ends the goal ``nothing_to_do``, OUT_OF_SCOPE and UNSAFE end it
``refused``, each with a message that says why and, for OUT_OF_SCOPE, what the robot can do. The robot
holds back when the model gives the request a probability of at least ``min_confidence`` of being no task
(the kind is then the likeliest of the three); below it the request is planned, since a false refusal
costs a person a task and a method's own ``done`` can still end a plan that needs nothing.
MISSING is not decided here: the instruction check grounds the request's names in the scene.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.skill import TERMINATE
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.paths import repo_path
from llm_planner_ros.planning.hold_back.classifier import DomainScope, HoldBackModel, features
from llm_planner_ros.planning.hold_back.requests import DomainVocabulary, RequestKind, of_names

DEFAULT_MODEL = "data/hold_back/hold_back.npz"
HELD_KINDS = (RequestKind.STOP, RequestKind.OUT_OF_SCOPE, RequestKind.UNSAFE)


@dataclass(frozen=True)
class HoldBack:
    """A request the robot holds back on: its ``kind`` (STOP, OUT_OF_SCOPE or UNSAFE), the model's
    ``probability`` of it, and the ``message`` a person reads."""

    kind: RequestKind
    probability: float
    message: str


def domain_vocabulary(kitchen: Domain, tasks: Iterable[str]) -> DomainVocabulary:
    """The domain's names for the generator and the scope: object labels and synonyms, category names
    (their synonyms read "something to drink", no name to put "the" before), places and their synonyms,
    every skill's text (but ``done``) and ``requests``; ``tasks``: whole requests it serves."""
    config = kitchen.config
    rules = [rule for rule in kitchen.library.rules if rule.skill.family != TERMINATE]
    return of_names(
        (
            *(name for label in config.labels for name in config.names(label)),
            *config.categories,
        ),
        (name for place in config.places(with_drawer=True) if place != "user" for name in config.names(place)),
        (text for rule in rules for text in (rule.skill.text, *rule.requests)),
        tasks,
    )


class RequestScreen:
    """The hold-back model of one domain: its scope embedded once, one embedding per request after."""

    def __init__(self, kitchen: Domain, embedder: Embedder, model: HoldBackModel, min_confidence: float) -> None:
        if not 0.0 < min_confidence <= 1.0:
            raise ValueError(f"min_confidence {min_confidence} must be in (0, 1]")
        self._embedder = embedder
        self._model = model
        self._min_confidence = min_confidence
        self._vocabulary = domain_vocabulary(kitchen, ())
        self._scope = DomainScope(embedder, self._vocabulary.skill_phrases)

    @classmethod
    def load(
        cls, kitchen: Domain, embedder: Embedder, min_confidence: float, path: str | Path = DEFAULT_MODEL
    ) -> RequestScreen:
        """The screen with the model at ``path`` (a relative path: the checkout's or the install's);
        HoldBackModelError names the file and the command that trains it."""
        return cls(kitchen, embedder, HoldBackModel.load(repo_path(path)), min_confidence)

    def decide(self, text: str) -> HoldBack | None:
        """None: plan ``text``; else how and why the robot holds back."""
        (classification,) = self._model.classify(features(self._embedder, [text], self._scope))
        held = 1.0 - classification.probability(RequestKind.TASK)
        if held < self._min_confidence:
            return None
        kind = max(HELD_KINDS, key=classification.probability)
        return HoldBack(kind, held, self._message(text, kind, held))

    def _message(self, text: str, kind: RequestKind, probability: float) -> str:
        certainty = f"hold-back model p={probability:.2f}"
        if kind == RequestKind.STOP:
            return f"{text!r} asks for nothing to be done ({certainty}): no skill was run"
        if kind == RequestKind.UNSAFE:
            return (
                f"{text!r} could hurt someone or damage something ({certainty}): no skill was run; "
                "ask for something safe"
            )
        return f"{text!r} is beyond this robot's skills ({certainty}): no skill was run; it can {self.abilities()}"

    def abilities(self, examples: int = 6) -> str:
        """What the robot can do, as a person reads it: a few of its skill texts, one per first word."""
        shown: dict[str, str] = {}
        for phrase in self._vocabulary.skill_phrases:
            shown.setdefault(phrase.split()[0], phrase)
        return ", ".join(f"'{phrase}'" for phrase in list(shown.values())[:examples])

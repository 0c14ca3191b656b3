"""The learned Can and Pay models of SayCanPay (arXiv 2308.12682, section 6) and their weight files.

The paper feeds ``<Goal> g <History> o_0, a_1 .. a_{t-1} <NXT> a_t`` to a fine-tuned BERT. Here the same
input is cut into sentences (the goal, each sentence of the initial observation, each step, the next
action), each sentence is embedded once by the project's sentence encoder (all-MiniLM-L6-v2, kept
frozen, so training embeds every distinct sentence once), and a small transformer over that short
sequence of sentence vectors, with a learned role (goal, state, step, next) and position per
sentence, reads one logit at a leading summary slot. The step order is kept, which the encoder's
pooled vector of the whole text would lose. Each sentence vector is extended by the sentence's words
as a 0/1 vector over the training plans' vocabulary: the encoder's vectors of "pick up blue key" and
"pick up green key" are close, and feasibility turns on exactly that colour matching the key held or
the room the agent is in. A model whose architecture has ``locate`` (the shipped Can models) also gets,
after the next action, the observation sentence that names the action's object (``object_sentence``).
Can's output is p(preconditions of a_t hold), Pay's the estimated discounted payoff in [0, 1]; both
are the sigmoid of that logit.

Two domains (``DOMAINS``): BabyAI pickup, whose observation is sentences ("Room 1 has grey ball."), and
the kitchen, whose observation is the lines of ``World.summary()`` ("far counter: coke (coke_1)"); each
line or sentence is one unit.

A weight file (safetensors) carries its ``kind`` (can or pay), its domain, the encoder's name and
dimension, the head's architecture and how it was trained in its metadata; ``load_scorer`` refuses a
file of the other kind or domain, of another encoder or with tensors that do not fit, naming the fix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import nn

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.skill_library import SkillLibrary
from llm_planner_ros.llm.base import Embedder

KINDS = ("can", "pay")
DOMAINS = ("babyai", "kitchen")
ROLES = ("summary", "goal", "state", "step", "next")
_WORD = re.compile(r"[a-z0-9]+")
_UNIT_END = re.compile(r"[.\n]")  # a BabyAI sentence ends with a full stop, a kitchen state line with a newline


class CanPayScorer(Protocol):
    """What the planner asks of a Can or Pay model, wherever it runs (in process, or served): one value
    in [0, 1] per action (feasibility for can, payoff for pay) after the goal, the initial observation
    and the plan so far."""

    def probabilities(
        self, goal: str, initial_state: str, history: Sequence[str], actions: Sequence[str]
    ) -> list[float]: ...


def words(text: str) -> list[str]:
    """The lower-case words and numbers of a sentence (the lexical channel's tokens)."""
    return _WORD.findall(text.lower())


class ScorerLoadError(RuntimeError):
    """A Can/Pay weight file is missing, of the other kind, or does not fit the architecture."""


def model_units(
    goal: str,
    initial_state: str,
    history: Sequence[str],
    action: str,
    locate: bool = False,
    domain: str = "babyai",
    library: SkillLibrary | None = None,
) -> list[tuple[int, str]]:
    """The input as (role, sentence) pairs: goal, each observation sentence, each step, next action;
    with ``locate``, then the observation sentence that names the action's object (``object_sentence``,
    ``kitchen_sentence`` in the kitchen or a domain of its format, whose skills ``library`` holds)."""
    state = [s.strip() + "." for s in _UNIT_END.split(initial_state) if s.strip()]
    located = None
    if locate:
        located = kitchen_sentence(state, action, library) if domain == "kitchen" else object_sentence(state, action)
    return [
        (ROLES.index("goal"), goal.strip()),
        *((ROLES.index("state"), sentence) for sentence in state),
        *((ROLES.index("step"), step) for step in history),
        (ROLES.index("next"), action),
        *([(ROLES.index("next"), located)] if located else []),
    ]


def object_sentence(state: Sequence[str], action: str) -> str | None:
    """The first observation sentence naming the action's object ("pick up red key": "red key"; a door
    is opened by the key of its colour, so "toggle red door": "red key"), or None.

    A text lookup, not a rule: it puts where the object was (its room, and "agent" when the agent was
    there) next to the action, which a Can model trained without it did not learn to find among the
    observation's sentences (it scored the key in the agent's room and the one behind a locked door
    alike)."""
    parts = words(action)
    if len(parts) < 2:
        return None
    phrase = f"{parts[-2]} {'key' if parts[-1] == 'door' else parts[-1]}"
    return next((sentence for sentence in state if phrase in sentence.lower()), None)


def kitchen_sentence(state: Sequence[str], action: str, library: SkillLibrary | None = None) -> str | None:
    """The first kitchen state line naming the skill's object or place as words ("pick up the coke":
    "far counter: coke (coke_1)." or, when it is held, the robot's line), or None (skills without an
    argument, and text that is no skill of ``library``: a domain's skills, None for the SayCan kitchen's).
    The kitchen's counterpart of ``object_sentence``."""
    rule = (library or _kitchen_skills()).find(action)
    argument = rule.skill.argument if rule is not None else None
    if argument is None:
        return None
    named = re.compile(rf"\b{re.escape(argument)}\b")
    return next((sentence for sentence in state if named.search(sentence)), None)


@lru_cache(maxsize=1)
def _kitchen_skills() -> SkillLibrary:
    return load_domain_files().library


@dataclass(frozen=True)
class ScorerConfig:
    """Architecture of the head over sentence vectors of ``input_dim`` (encoder dimension plus the
    vocabulary's size); ``locate``: the input carries the action's object sentence (``model_units``);
    ``domain``: the world whose texts it reads (one of DOMAINS; files written before the kitchen read
    BabyAI); ``world``: for the kitchen's format, the domain folder's world it was trained in ("": the
    SayCan kitchen)."""

    input_dim: int = 384
    dim: int = 64
    layers: int = 2
    heads: int = 4
    max_units: int = 48
    locate: bool = False
    domain: str = "babyai"
    world: str = ""


class ScorerNetwork(nn.Module):
    """Projected sentence vectors plus role and position embeddings, a transformer encoder, and one
    logit read at the leading summary slot."""

    def __init__(self, config: ScorerConfig) -> None:
        super().__init__()
        self.config = config
        self.project = nn.Linear(config.input_dim, config.dim)
        self.roles = nn.Embedding(len(ROLES), config.dim)
        self.positions = nn.Embedding(config.max_units, config.dim)
        layer = nn.TransformerEncoderLayer(
            config.dim, config.heads, dim_feedforward=4 * config.dim, dropout=0.1, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, config.layers, enable_nested_tensor=False)
        self.head = nn.Linear(config.dim, 1)

    def forward(self, vectors: torch.Tensor, roles: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(vectors.shape[1], device=vectors.device)
        hidden = self.project(vectors) + self.roles(roles) + self.positions(positions)[None]
        hidden = self.encoder(hidden, src_key_padding_mask=padding)
        return self.head(hidden[:, 0]).squeeze(-1)


class SentenceCache:
    """Sentence vectors by text (the encoder's vector, then the 0/1 word vector over ``vocabulary``),
    embedding each distinct sentence once (the encoder is frozen)."""

    def __init__(self, embedder: Embedder, vocabulary: Sequence[str]) -> None:
        self.embedder = embedder
        self.vocabulary = list(vocabulary)
        self._index = {word: i for i, word in enumerate(self.vocabulary)}
        self._vectors: dict[str, np.ndarray] = {}

    def add(self, texts: Sequence[str]) -> None:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        for start in range(0, len(missing), 256):
            chunk = missing[start : start + 256]
            for text, vector in zip(chunk, self.embedder.embed(chunk), strict=True):
                lexical = np.zeros(len(self.vocabulary), dtype=np.float32)
                lexical[[self._index[w] for w in words(text) if w in self._index]] = 1.0
                self._vectors[text] = np.concatenate([vector, lexical])

    def __getitem__(self, text: str) -> np.ndarray:
        return self._vectors[text]


class Scorer:
    """A Can or Pay model ready to score: ``probabilities(goal, state, history, actions)`` gives one
    value in [0, 1] per action (feasibility for can, payoff for pay)."""

    def __init__(
        self,
        kind: str,
        network: ScorerNetwork,
        sentences: SentenceCache,
        meta: dict[str, Any],
        library: SkillLibrary | None = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown scorer kind {kind!r}; choose one of {', '.join(KINDS)}")
        self.kind = kind
        self.network = network
        self.sentences = sentences
        self.meta = meta
        self.library = library  # a domain's skills (kitchen format); None: the SayCan kitchen's

    @classmethod
    def fresh(
        cls,
        kind: str,
        embedder: Embedder,
        vocabulary: Sequence[str],
        config: ScorerConfig,
        seed: int,
        library: SkillLibrary | None = None,
    ) -> Scorer:
        """An untrained scorer (the start of training)."""
        torch.manual_seed(seed)
        return cls(kind, ScorerNetwork(config), SentenceCache(embedder, vocabulary), {}, library)

    def batch(self, inputs: Sequence[list[tuple[int, str]]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Padded (vectors, roles, padding mask) with the summary slot first; inputs longer than
        ``max_units`` keep their goal and their last units (the next action and the latest steps)."""
        self.sentences.add([text for units in inputs for _, text in units])
        limit = self.network.config.max_units - 1
        rows = [units if len(units) <= limit else [units[0], *units[len(units) - limit + 1 :]] for units in inputs]
        width = max(len(row) for row in rows) + 1
        vectors = torch.zeros((len(rows), width, self.network.config.input_dim))
        roles = torch.zeros((len(rows), width), dtype=torch.long)
        padding = torch.ones((len(rows), width), dtype=torch.bool)
        for i, row in enumerate(rows):
            vectors[i, 1 : len(row) + 1] = torch.from_numpy(np.stack([self.sentences[text] for _, text in row]))
            roles[i, 1 : len(row) + 1] = torch.tensor([role for role, _ in row])
            padding[i, : len(row) + 1] = False
        return vectors, roles, padding

    def logits(self, inputs: Sequence[list[tuple[int, str]]]) -> torch.Tensor:
        return self.network(*self.batch(inputs))

    @torch.no_grad()
    def probabilities(
        self, goal: str, initial_state: str, history: Sequence[str], actions: Sequence[str]
    ) -> list[float]:
        if not actions:
            return []
        self.network.eval()
        config = self.network.config
        inputs = [
            model_units(goal, initial_state, history, action, config.locate, config.domain, self.library)
            for action in actions
        ]
        return torch.sigmoid(self.logits(inputs)).tolist()

    def save(self, path: str | Path, training: dict[str, Any]) -> None:
        """Weights plus kind, encoder, architecture and ``training`` (data, command, seconds, metrics)."""
        from safetensors.torch import save_file

        meta = {
            "kind": self.kind,
            "encoder": self.sentences.embedder.name,
            "vocabulary": json.dumps(self.sentences.vocabulary),
            "config": json.dumps(asdict(self.network.config)),
            "training": json.dumps(training),
        }
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        state = {name: tensor.contiguous() for name, tensor in self.network.state_dict().items()}
        save_file(state, str(path), metadata=meta)


def load_scorer(
    path: str | Path,
    kind: str,
    embedder: Embedder,
    domain: str | None = None,
    library: SkillLibrary | None = None,
    world: tuple[str, str] | None = None,
) -> Scorer:
    """The ``kind`` (can | pay) model saved at ``path``, of ``domain`` when given (None: of any domain, as a
    server of one file reads it), reading sentences with ``embedder``; ScorerLoadError says what is wrong
    and the fix. In a domain folder of the kitchen's format, ``library`` is its skills and ``world`` its
    world's name and the command that trains its models: a file trained in another world is refused."""
    from safetensors import safe_open

    path = Path(path)
    option = f"{kind}_model" if domain in (None, "babyai") else f"{domain}_{kind}_model"
    retrain = (
        f"train it with `{world[1]}`"
        if world is not None
        else f"train it with `llm-planner train saycanpay {kind} --domain {domain or 'DOMAIN'} ...` (docs/saycanpay.md)"
    )
    if not path.is_file():
        raise ScorerLoadError(f"{kind} model not found at {path}: {retrain}")
    try:
        with safe_open(str(path), framework="pt") as handle:
            meta = handle.metadata() or {}
            state = {name: handle.get_tensor(name) for name in handle.keys()}
    except Exception as error:  # safetensors raises its own error types for a corrupt file
        raise ScorerLoadError(f"{path} is not a readable safetensors file ({error}): {retrain}") from error
    if meta.get("kind") != kind:
        raise ScorerLoadError(
            f"{path} holds a {meta.get('kind') or 'unlabelled'} model, not a {kind} model: point the "
            f"{option} option at the {kind} weights, or {retrain}"
        )
    if meta.get("encoder") != embedder.name:
        raise ScorerLoadError(
            f"{path} was trained on {meta.get('encoder')!r} sentence vectors, the planner has {embedder.name!r}: "
            f"use that encoder, or {retrain}"
        )
    try:
        config = ScorerConfig(**json.loads(meta["config"]))
        vocabulary = json.loads(meta["vocabulary"])
    except (KeyError, TypeError, ValueError) as error:
        raise ScorerLoadError(f"{path} lacks a valid architecture or vocabulary ({error}): {retrain}") from error
    if domain is not None and config.domain != domain:
        raise ScorerLoadError(
            f"{path} holds a {config.domain} {kind} model, not a {domain} one: point the {option} option at "
            f"the {domain} weights, or {retrain}"
        )
    # Models written before 0.9 recorded no world; they are not checked.
    if world is not None and config.world and config.world != world[0]:
        raise ScorerLoadError(
            f"{path} holds a {kind} model trained in the world {config.world!r}, not in {world[0]!r}: {retrain}"
        )
    network = ScorerNetwork(config)
    try:
        network.load_state_dict(state)
    except RuntimeError as error:
        raise ScorerLoadError(f"{path}: the weights do not fit the {kind} architecture ({error}): {retrain}") from error
    network.eval()
    training = {"training": json.loads(meta.get("training", "{}"))}
    return Scorer(kind, network, SentenceCache(embedder, vocabulary), training, library)

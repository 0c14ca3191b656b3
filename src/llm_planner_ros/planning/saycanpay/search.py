"""SayCanPay's decoding over actions (arXiv 2308.12682, section 5): Greedy-Action and Beam-Action.

Both expand a partial plan with the ``m`` actions the Say model rates most likely among the
admissible ones, score each by the decoding score (Say, SayCan or SayCanPay: the log of the product of
the probabilities used) and keep the ``k`` best partial plans by their accumulated score divided by
their length (beams of different lengths compete); a plan is finished when it chose the done action.
The search stops when all kept plans are finished or ``max_actions`` is reached and returns the
finished plan with the best length-normalised score (none finished: the best unfinished one).
Greedy-Action is the case k = 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

SCORES = ("say", "say_can", "say_can_pay")
_TINY = 1e-12  # a probability of 0 would make the log -inf and every plan through it equal


@dataclass(frozen=True)
class ActionScores:
    """One candidate's Say log-probability, Can probability, Pay payoff, and the decoding score."""

    action: str
    say: float
    can: float
    pay: float
    combined: float


@dataclass(frozen=True)
class Beam:
    """A partial plan, its accumulated decoding score, and each step's candidate table."""

    actions: tuple[str, ...]
    total: float
    tables: tuple[tuple[ActionScores, ...], ...]
    finished: bool

    @property
    def normalized(self) -> float:
        return self.total / max(len(self.actions), 1)


# (histories) -> for each history, the Say model's top candidates with their log-probabilities (any
# order; more than m are cut to the m best). One call per search step serves all beams.
SayFunction = Callable[[Sequence[Sequence[str]]], list[list[tuple[str, float]]]]
# (history, actions) -> one probability per action
ModelFunction = Callable[[Sequence[str], Sequence[str]], list[float]]


def decoding_score(score: str, say: float, can: float, pay: float) -> float:
    """log(p_say [x p_can [x p_pay]]) for the decoding score ``score``."""
    if score not in SCORES:
        raise ValueError(f"unknown decoding score {score!r}; choose one of {', '.join(SCORES)}")
    total = say
    if score in ("say_can", "say_can_pay"):
        total += math.log(max(can, _TINY))
    if score == "say_can_pay":
        total += math.log(max(pay, _TINY))
    return total


def beam_search(
    say: SayFunction,
    can: ModelFunction | None,
    pay: ModelFunction | None,
    *,
    done: str,
    score: str,
    candidates: int,
    beam_size: int,
    max_actions: int,
) -> Beam:
    """The best plan found (see the module docstring). ``can``/``pay`` may be None when ``score``
    does not use them; ``candidates`` is m, ``beam_size`` k (m >= k >= 1)."""
    if not 1 <= beam_size <= candidates:
        raise ValueError(f"need 1 <= beam size k <= candidates m, got k={beam_size}, m={candidates}")
    if score != "say" and can is None or score == "say_can_pay" and pay is None:
        raise ValueError(f"the {score} score needs the Can{' and Pay' if score == 'say_can_pay' else ''} model")
    beams = [Beam((), 0.0, (), False)]
    for _ in range(max_actions):
        pool = [beam for beam in beams if beam.finished]
        open_beams = [beam for beam in beams if not beam.finished]
        for beam, proposals in zip(open_beams, say([b.actions for b in open_beams]), strict=True):
            table = expand(beam.actions, proposals, can, pay, score=score, candidates=candidates)
            pool += [
                Beam((*beam.actions, s.action), beam.total + s.combined, (*beam.tables, table), s.action == done)
                for s in table
            ]
        beams = sorted(pool, key=lambda b: b.normalized, reverse=True)[:beam_size]
        if all(beam.finished for beam in beams):
            break
    finished = [beam for beam in beams if beam.finished]
    return max(finished or beams, key=lambda b: b.normalized)


def expand(
    history: Sequence[str],
    proposals: Sequence[tuple[str, float]],
    can: ModelFunction | None,
    pay: ModelFunction | None,
    *,
    score: str,
    candidates: int,
) -> tuple[ActionScores, ...]:
    """The ``candidates`` actions of ``proposals`` (action, Say log-probability) the Say model rates
    highest after ``history``, each with its scores, best decoding score first."""
    proposals = sorted(proposals, key=lambda item: item[1], reverse=True)[:candidates]
    actions = [action for action, _ in proposals]
    cans = can(history, actions) if can is not None and score != "say" else [1.0] * len(actions)
    pays = pay(history, actions) if pay is not None and score == "say_can_pay" else [1.0] * len(actions)
    table = [
        ActionScores(action, log_p, c, p, decoding_score(score, log_p, c, p))
        for (action, log_p), c, p in zip(proposals, cans, pays, strict=True)
    ]
    return tuple(sorted(table, key=lambda s: s.combined, reverse=True))

"""Command-line option parsing shared by the ``llm-planner`` sub-commands."""

from __future__ import annotations

import argparse
import math


def parse_key_values(pairs: list[str], option: str = "--llm") -> dict[str, str]:
    """``["backend=replay", "recording=a.jsonl"]`` -> ``{"backend": "replay", "recording": "a.jsonl"}``;
    SystemExit naming ``option`` for an entry without ``=`` or without a key."""
    values = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"{option} takes KEY=VALUE, got {pair!r}")
        values[key.strip()] = value.strip()
    return values


UINT32_MAX = 2**32 - 1


def step_budget(text: str) -> int:
    """Argparse type of ``--max-steps``: a whole number that fits the goal's uint32 ``max_steps`` (0: the
    planner's default). Anything else is an argparse error, so no goal is sent: a negative number would
    otherwise fail while the goal is built, or wrap around to billions of steps."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of steps, got {text!r}") from None
    if not 0 <= value <= UINT32_MAX:
        raise argparse.ArgumentTypeError(f"must be from 0 (the planner's default) to {UINT32_MAX}, got {value}")
    return value


def finite_float(text: str) -> float:
    """Argparse type of every real-valued option: a finite number. ``float`` alone takes "nan" and "inf",
    which pass every ``<``/``>`` bound check and fail much later (after a model has loaded, or as a
    temperature that turns every score into nan)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """Argparse type of a rate or factor where 0 has a meaning of its own and below 0 none: a finite
    number >= 0, refused before any node starts (the node would refuse it only after the graph is up)."""
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {text!r}")
    return value

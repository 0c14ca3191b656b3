"""Command-line option parsing shared by the ``llm-planner`` sub-commands."""

from __future__ import annotations


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

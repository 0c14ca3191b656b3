"""The files of test/data: the valid sample episode file and the malformed ones with their expected errors.

Each malformed file in test/data/bad_episodes starts with comment lines naming the expected problem:
``# field: <dotted field>``, ``# message: <text the problem must contain>`` and, when the problem
belongs to one episode, ``# episode: <id>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from repo_paths import TEST_DATA

SAMPLE_EPISODES = TEST_DATA / "sample_episodes.yaml"
BAD_EPISODES = TEST_DATA / "bad_episodes"


@dataclass(frozen=True)
class Expectation:
    """What a bad episode file's header says its error must name: the field, the message, the episode."""

    path: Path
    field: str
    message: str
    episode: str | None


def bad_episode_expectations() -> list[Expectation]:
    found = []
    for path in sorted(BAD_EPISODES.glob("*.yaml")):
        header: dict[str, str] = {}
        for line in path.read_text().splitlines():
            if not line.startswith("# "):
                break
            key, _, value = line[2:].partition(":")
            header[key.strip()] = value.strip()
        found.append(Expectation(path, header["field"], header["message"], header.get("episode")))
    return found

"""The SayCan example bank's file: one dialog per JSON line (request, scene line, plan, origin).

The planner reads a bank to retrieve prompt examples (``retrieval``); ``llm_planner_ros.training.saycan_bank``
generates banks with the request generator and the oracle.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.paths import default_domain, repo_path

BANK_FILE = default_domain() / "bank.jsonl"


@dataclass(frozen=True)
class PlanExample:
    """One dialog of the bank: the request, the scene line, the plan's skill texts (ending in done), and
    what it came from (task kind and family, initial block and goal in episode-file YAML) so it can be
    checked again."""

    id: str
    kind: str
    family: str
    instruction: str
    scene: str
    steps: tuple[str, ...]
    initial: dict[str, Any]
    goal: dict[str, Any]

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "steps": list(self.steps)}, ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> PlanExample:
        data = json.loads(line)
        return cls(**{**data, "steps": tuple(data["steps"])})


def save_bank(examples: Iterable[PlanExample], path: str | Path) -> int:
    """Write examples as JSON lines; returns how many."""
    resolved = repo_path(path)
    resolved.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with resolved.open("w", encoding="utf-8") as out:
        for example in examples:
            out.write(example.to_json() + "\n")
            written += 1
    return written


def load_bank(path: str | Path = BANK_FILE) -> list[PlanExample]:
    """The examples of a bank file; FileNotFoundError says how to generate it."""
    resolved = repo_path(path)
    if not resolved.is_file():
        raise FileNotFoundError(
            f"no SayCan example bank at {resolved}: generate it with `llm-planner train saycan-bank --out {path}`"
        )
    with resolved.open(encoding="utf-8") as lines:
        return [PlanExample.from_json(line) for line in lines if line.strip()]

"""The shipped office domain copied into a test's own folder, so that what a test builds there (a bank,
its cached vectors, adapters, SayCanPay models) never touches the shipped files."""

from __future__ import annotations

import shutil
from pathlib import Path

from repo_paths import REPO_ROOT

OFFICE = REPO_ROOT / "domains" / "office"


def copy_domain(tmp_path: Path, bank: bool) -> Path:
    """The office's world, skills and episode files (and its bank, with ``bank``) in ``tmp_path/office``."""
    folder = tmp_path / "office"
    folder.mkdir()
    for name in ("world.yaml", "skills.yaml", "episodes.yaml", "train.yaml", *(("bank.jsonl",) if bank else ())):
        shutil.copy(OFFICE / name, folder / name)
    return folder

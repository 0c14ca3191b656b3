"""Where the tests find the repository's files, wherever a test module sits in the mirrored tree."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = REPO_ROOT / "test" / "data"
DEV_SUITE = REPO_ROOT / "domains" / "saycan_kitchen" / "dev.yaml"

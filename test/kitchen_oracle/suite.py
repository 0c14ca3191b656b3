"""Where the development suite lives."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEV_SUITE = REPO_ROOT / "benchmarks" / "kitchen" / "dev.yaml"

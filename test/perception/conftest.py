"""Fixtures of the perception tests: tiny random-weight OWL-ViT/OWLv2 folders (built once per run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from perception_scenes import save_tiny_owl


@pytest.fixture(scope="session")
def tiny_owlvit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_owl(tmp_path_factory.mktemp("owlvit"), "owlvit")


@pytest.fixture(scope="session")
def tiny_owlv2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_owl(tmp_path_factory.mktemp("owlv2"), "owlv2")

"""Where the project's YAML configuration lives, in a source checkout and in a colcon install."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = "llm_planner_ros"

# src/kitchen_domain/paths.py -> repository root; the editable install (make setup) runs from here.
_SOURCE_CONFIG = Path(__file__).resolve().parents[2] / "config"


def config_dir() -> Path:
    """The config folder: the checkout's ``config/`` or the installed ``share/llm_planner_ros/config``."""
    if _SOURCE_CONFIG.is_dir():
        return _SOURCE_CONFIG
    for prefix in (Path(sys.prefix), *_ament_prefixes()):
        candidate = prefix / "share" / PACKAGE / "config"
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"no config folder: neither {_SOURCE_CONFIG} nor share/{PACKAGE}/config under the install prefixes; "
        "reinstall the package (make setup, or colcon build)"
    )


def config_file(name: str) -> Path:
    """A file of the config folder, e.g. ``config_file("kitchen_world.yaml")``."""
    return config_dir() / name


def repo_path(path: str | Path) -> Path:
    """``path`` as given when absolute, else relative to the checkout (the folder that holds config/)."""
    path = Path(path)
    return path if path.is_absolute() else config_dir().parent / path


def resolve_config(path: str | Path | None, default_name: str) -> Path:
    """``path`` when given (a node parameter or CLI flag), else the default file of the config folder."""
    return Path(path) if path else config_file(default_name)


def _ament_prefixes() -> list[Path]:
    return [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]

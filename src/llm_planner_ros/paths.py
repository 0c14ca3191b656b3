"""Where the files the package reads live (config/, data/, benchmarks/), in a source checkout and in an install.

One rule for every packaged file (configuration, the SayCan adapter and bank, the lexicon, prompt and
example files, episode suites): an absolute path is taken as given; a relative one is read from the
checkout when running from one (``make setup``'s editable install), else from ``share/llm_planner_ros/``
of the install prefixes, where package/setup.py's ``data_files`` put them (``colcon build``, ``pip install``).
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.yaml_text import load_yaml

PACKAGE = "llm_planner_ros"

_MODULE = Path(__file__).resolve()
# src/llm_planner_ros/paths.py -> the repository root, when this module runs from a checkout.
_CHECKOUT = _MODULE.parents[2]


class PackagedFileNotFoundError(FileNotFoundError):
    """A relative packaged path found neither in a checkout nor under any install prefix's share folder."""


def checkout_root() -> Path | None:
    """The checkout this module runs from (the folder holding src/ and config/), None in an install."""
    if _MODULE.parents[1].name == "src" and (_CHECKOUT / "config").is_dir():
        return _CHECKOUT
    return None


def install_shares() -> list[Path]:
    """``share/llm_planner_ros`` of each install prefix in lookup order: AMENT_PREFIX_PATH (a sourced
    colcon workspace, overlays first), then sys.prefix (a pip install into this environment)."""
    prefixes = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    return list(dict.fromkeys(prefix / "share" / PACKAGE for prefix in [*prefixes, Path(sys.prefix)]))


def repo_path(path: str | Path) -> Path:
    """A path a user gave: ``path`` when absolute or when it exists relative to the current folder (a
    user's own episode file), else ``packaged_path(path)``."""
    path = Path(path)
    if path.is_absolute():
        return path
    if path.exists():
        return path.resolve()  # absolute: it may be handed to a node started in another folder
    return packaged_path(path)


DOMAINS_FILE = "domains.yaml"


@functools.cache
def _domain_settings() -> dict[str, Any]:
    """config/domains.yaml: the default domain folder and the packaged files that moved."""
    path = config_file(DOMAINS_FILE)
    try:
        settings = load_yaml(path.read_text(encoding="utf-8"), str(path))
    except (OSError, yaml.YAMLError) as error:
        raise PackagedFileNotFoundError(f"{path} cannot be read ({error}): run `make setup` in a checkout") from error
    return settings


def default_domain() -> Path:
    """The domain folder the stack plans in when nothing names another (config/domains.yaml ``default``),
    relative to the checkout or install share: a setting, read like any user's folder."""
    return Path(_domain_settings()["default"])


def _moved(path: Path) -> Path:
    """``path``, or where it moved (config/domains.yaml ``moved``), with a FutureWarning naming the new path."""
    new = _domain_settings().get("moved", {}).get(path.as_posix())
    if new is None:
        return path
    warnings.warn(f"{path} moved to {new}: use the new path (the old one works until 0.10)", FutureWarning, 3)
    return Path(new)


def packaged_path(path: str | Path) -> Path:
    """A file the package ships, never looked up in the current folder (a ``config/`` there is someone
    else's): the checkout's file when running from a checkout (whether or not it exists yet: callers
    report a missing file with their own fix), else the first install share folder that has it.
    PackagedFileNotFoundError names the places tried and the fix. A path that moved (config/domains.yaml)
    gives the new one, with a FutureWarning."""
    path = Path(path)
    if path not in (Path("config"), Path("config") / DOMAINS_FILE):  # the moves table itself lies there
        path = _moved(path)
    checkout = checkout_root()
    if checkout is not None:
        return checkout / path
    shares = install_shares()
    for share in shares:
        if (share / path).exists():
            return share / path
    tried = ", ".join(str(share / path) for share in shares)
    raise PackagedFileNotFoundError(
        f"{path} not found: not running from a checkout (no {_CHECKOUT / 'config'}) and not in the install "
        f"share folders ({tried}); run `make setup` in a checkout, or `colcon build` and source install/setup.bash "
        "(package/setup.py's data_files install config/, data/ and benchmarks/)"
    )


def config_dir() -> Path:
    """The config folder: the checkout's ``config/`` or the installed ``share/llm_planner_ros/config``, never
    a ``config/`` of the current folder."""
    return packaged_path("config")


def config_file(name: str) -> Path:
    """A file of the config folder, e.g. ``config_file("planners.yaml")``."""
    return config_dir() / name


def default_domain_file(name: str) -> Path:
    """A file of the default domain's folder (``default_domain()``), e.g. ``default_domain_file("world.yaml")``."""
    return packaged_path(default_domain() / name)


def resolve_config(path: str | Path | None, default_name: str) -> Path:
    """``path`` when given (a node parameter or option; relative ones by ``repo_path``), else the default
    file of the config folder."""
    return repo_path(path) if path else config_file(default_name)


def read_config_yaml(path: str | Path | None, default_name: str, what: str, fix: str) -> tuple[Path, Any]:
    """The file ``resolve_config`` names and its parsed YAML; a missing one raises FileNotFoundError
    "``what`` <file> not found: ``fix``"."""
    source = resolve_config(path, default_name)
    try:
        return source, load_yaml(source.read_text(), str(source))
    except FileNotFoundError as error:
        raise FileNotFoundError(f"{what} {source} not found: {fix}") from error

"""A domain as a folder a user writes (docs/domains.md): ``world.yaml`` and ``skills.yaml``, and
optionally ``params.yaml`` (ROS parameters of the graph's nodes in this domain, keyed by node name:
its allow-list, which executor runs on which backend) and ``episodes.yaml``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.kitchen_domain.kitchen import Kitchen, load_kitchen
from llm_planner_ros.kitchen_domain.validation import InputError

WORLD_FILE = "world.yaml"
SKILLS_FILE = "skills.yaml"
PARAMS_FILE = "params.yaml"
EPISODES_FILE = "episodes.yaml"


class DomainFolderError(InputError, ValueError):
    """A domain folder that is not there or lacks one of its two required files."""


@dataclass(frozen=True)
class DomainFolder:
    """The files of one domain folder; ``params`` and ``episodes`` are None where the folder has none."""

    path: Path
    world: Path
    skills: Path
    params: Path | None
    episodes: Path | None


def domain_folder(path: str | Path) -> DomainFolder:
    """The domain folder at ``path``; DomainFolderError says what is missing."""
    folder = Path(path).expanduser().resolve()
    if not folder.is_dir():
        raise DomainFolderError(
            f"domain {folder} is not a folder: give the folder that holds {WORLD_FILE} and {SKILLS_FILE}"
        )
    missing = [name for name in (WORLD_FILE, SKILLS_FILE) if not (folder / name).is_file()]
    if missing:
        raise DomainFolderError(
            f"domain folder {folder} has no {' and no '.join(missing)}: a domain folder holds {WORLD_FILE} "
            f"(places, objects, facts) and {SKILLS_FILE} (families, executors, skills); docs/domains.md"
        )

    def optional(name: str) -> Path | None:
        return folder / name if (folder / name).is_file() else None

    world, skills = folder / WORLD_FILE, folder / SKILLS_FILE
    return DomainFolder(folder, world, skills, optional(PARAMS_FILE), optional(EPISODES_FILE))


def load_domain(path: str | Path) -> Kitchen:
    """The domain of the folder at ``path``, checked (DomainFolderError, or ConfigError with every problem)."""
    folder = domain_folder(path)
    return load_kitchen(folder.world, folder.skills)

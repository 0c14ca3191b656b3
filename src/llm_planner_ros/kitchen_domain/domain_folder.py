"""A domain as a folder a user writes (docs/domains.md): ``world.yaml`` and ``skills.yaml``, and
optionally ``params.yaml`` (ROS parameters of the graph's nodes in this domain, keyed by node name:
its allow-list, which executor runs on which backend), ``episodes.yaml`` (held-out evaluation episodes),
``dev.yaml`` (development episodes: what a domain's options and training are chosen on) and ``train.yaml``
(the episodes its example bank is built from). What ``llm-planner domain build`` makes from the folder lies
beside them: ``bank.jsonl`` (the methods' prompt examples) and ``adapters/<method>.safetensors``.

The packaged SayCan kitchen (world ``saycan_kitchen``) keeps its built files under ``data/``: its bank,
the methods' adapters and the models trained on its rollouts were made for it and for no other world."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.kitchen_domain.kitchen import Kitchen, load_kitchen
from llm_planner_ros.kitchen_domain.paths import PackagedFileNotFoundError, packaged_path
from llm_planner_ros.kitchen_domain.validation import InputError

WORLD_FILE = "world.yaml"
SKILLS_FILE = "skills.yaml"
PARAMS_FILE = "params.yaml"
EPISODES_FILE = "episodes.yaml"
TRAIN_FILE = "train.yaml"
DEV_FILE = "dev.yaml"
BANK_FILE = "bank.jsonl"
ADAPTERS_FOLDER = "adapters"
SAYCANPAY_FOLDER = "saycanpay"
# The world the packaged bank, adapters, value functions and SayCanPay kitchen models were built for.
PACKAGED_WORLD = "saycan_kitchen"


class DomainFolderError(InputError, ValueError):
    """A domain folder that is not there or lacks one of its two required files."""


@dataclass(frozen=True)
class DomainFolder:
    """The files of one domain folder; ``params``, ``episodes`` and ``development`` are None where the
    folder has none."""

    path: Path
    world: Path
    skills: Path
    params: Path | None
    episodes: Path | None
    development: Path | None = None


def domain_folder(path: str | Path) -> DomainFolder:
    """The domain folder at ``path`` (a relative one not found here may be a packaged one, such as
    ``domains/office`` in an install); DomainFolderError says what is missing."""
    folder = _packaged_or_given(Path(path).expanduser())
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
    return DomainFolder(folder, world, skills, optional(PARAMS_FILE), optional(EPISODES_FILE), optional(DEV_FILE))


def _packaged_or_given(path: Path) -> Path:
    if path.is_absolute() or path.exists():
        return path.resolve()
    try:
        packaged = packaged_path(path)
    except PackagedFileNotFoundError:
        return path.resolve()
    return packaged.resolve() if packaged.is_dir() else path.resolve()


def load_domain(path: str | Path) -> Kitchen:
    """The domain of the folder at ``path``, checked (DomainFolderError, or ConfigError with every problem)."""
    folder = domain_folder(path)
    return load_kitchen(folder.world, folder.skills)


def is_packaged_world(kitchen: Kitchen) -> bool:
    """Whether ``kitchen`` is the world the packaged bank and adapters were built for (the SayCan kitchen)."""
    return kitchen.config.world == PACKAGED_WORLD


def built_files_folder(kitchen: Kitchen) -> Path:
    """The folder of ``kitchen``'s world file: where a domain's built bank and adapters lie."""
    return Path(kitchen.config.source).resolve().parent


def domain_bank_file(kitchen: Kitchen) -> Path:
    """The example bank ``llm-planner domain build`` writes for ``kitchen``'s domain (it may not exist yet)."""
    return built_files_folder(kitchen) / BANK_FILE


def domain_adapter_file(kitchen: Kitchen, method: str) -> Path | None:
    """The adapter trained for ``method`` in ``kitchen``'s domain, None where the folder has none."""
    return folder_adapter_file(built_files_folder(kitchen), method)


def folder_adapter_file(folder: Path, method: str) -> Path | None:
    """The adapter ``llm-planner domain build`` trained for ``method`` in the domain folder ``folder``."""
    path = folder / ADAPTERS_FOLDER / f"{method}.safetensors"
    return path if path.is_file() else None


def domain_scorer_file(folder: Path, kind: str) -> Path:
    """Where ``llm-planner domain build --saycanpay`` writes SayCanPay's ``kind`` (can | pay) model of the
    domain folder ``folder`` (it may not exist yet)."""
    return folder / SAYCANPAY_FOLDER / f"{kind}.safetensors"


def build_command(kitchen: Kitchen) -> str:
    """The command that builds ``kitchen``'s domain files, for error messages."""
    return f"llm-planner domain build {built_files_folder(kitchen)}"

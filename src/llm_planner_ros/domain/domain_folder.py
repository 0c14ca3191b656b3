"""A domain as a folder a user writes (docs/domains.md): ``world.yaml`` and ``skills.yaml``, and
optionally ``params.yaml`` (ROS parameters of the graph's nodes in this domain, keyed by node name:
its allow-list, which executor runs on which backend), ``episodes.yaml`` (held-out evaluation episodes),
``dev.yaml`` (development episodes: what a domain's options and training are chosen on) and ``train.yaml``
(the episodes its example bank is built from). What ``llm-planner domain build`` makes from the folder lies
beside them: ``bank.jsonl`` (the methods' prompt examples), ``adapters/<method>.safetensors`` (with
``adapters/shared.yaml``, a method that uses another's adapter) and ``saycanpay/{can,pay}.safetensors``.
Every domain, the packaged default one included (``paths.default_domain``), is such a folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.validation import InputError, ValidationError, read_yaml
from llm_planner_ros.paths import PackagedFileNotFoundError, packaged_path

WORLD_FILE = "world.yaml"
SKILLS_FILE = "skills.yaml"
PARAMS_FILE = "params.yaml"
EPISODES_FILE = "episodes.yaml"
TRAIN_FILE = "train.yaml"
DEV_FILE = "dev.yaml"
BANK_FILE = "bank.jsonl"
ADAPTERS_FOLDER = "adapters"
SAYCANPAY_FOLDER = "saycanpay"
# Optional: the learned value functions of the domain (`llm-planner train value-functions`).
VALUE_FUNCTIONS_FILE = "value_functions.npz"
# Optional: the methods' own example files (examples/<method>.yaml: progprompt, zero_shot, llm_planner),
# written for the domain; a method without one takes its examples from the bank.
EXAMPLES_FOLDER = "examples"
# Optional, in ADAPTERS_FOLDER: methods without an adapter of their own -> the method whose adapter they use
# (SayCanPay's Say prompt is SayCan's: `saycanpay: saycan`).
SHARED_ADAPTERS_FILE = "shared.yaml"
# The adapters shipped for any domain, trained across generated domains (data/general_adapters/README.md):
# what a method runs in a folder that has no adapter of its own.
GENERAL_ADAPTERS_FOLDER = Path("data") / "general_adapters"


class DomainFolderError(InputError, ValueError):
    """A domain folder that is not there, lacks one of its two required files, or has a file that cannot be
    read from it (a link out of the folder or to nowhere)."""


class DomainFileError(DomainFolderError, ValidationError):
    """A file of a domain folder that is not UTF-8 YAML text (a binary file, a syntax error, with its line)."""


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
    ``domains/office`` in an install). Each of its YAML files must lie in the folder and be YAML text:
    DomainFolderError says what is missing or wrong, with its line and the fix, before anything reads them."""
    try:
        folder = _packaged_or_given(Path(path).expanduser())
    except (OSError, RuntimeError) as error:  # Path.resolve raises RuntimeError for a link loop
        raise DomainFolderError(
            f"domain {path} cannot be opened ({error}): give the folder itself, not a broken link"
        ) from error
    if not folder.is_dir():
        raise DomainFolderError(
            f"domain {folder} is not a folder: give the folder that holds {WORLD_FILE} and {SKILLS_FILE}"
        )
    names = (WORLD_FILE, SKILLS_FILE, PARAMS_FILE, EPISODES_FILE, DEV_FILE, TRAIN_FILE)
    files = {name: _domain_file(folder, name) for name in names}
    missing = [name for name in (WORLD_FILE, SKILLS_FILE) if files[name] is None]
    if missing:
        raise DomainFolderError(
            f"domain folder {folder} has no {' and no '.join(missing)}: a domain folder holds {WORLD_FILE} "
            f"(places, objects, facts) and {SKILLS_FILE} (families, executors, skills); docs/domains.md"
        )
    world, skills = folder / WORLD_FILE, folder / SKILLS_FILE
    return DomainFolder(folder, world, skills, files[PARAMS_FILE], files[EPISODES_FILE], files[DEV_FILE])


def _domain_file(folder: Path, name: str) -> Path | None:
    """``folder/name``, checked to be YAML text that lies in ``folder`` (the resolved folder); None when the
    folder has no such entry. A link that leaves the folder is refused unread: the messages about a file
    quote its text, and no text from outside the folder (a link to /etc/passwd) is ever shown."""
    path = folder / name
    if not path.is_symlink() and not path.exists():
        return None
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError) as error:
        raise DomainFolderError(
            f"{path} is a link that leads nowhere ({error}): replace it with the file itself"
        ) from error
    if not real.is_relative_to(folder):
        raise DomainFolderError(
            f"{path} is a link to {real}, outside the domain folder: copy the file into {folder} (a domain's "
            "files are read only from inside its folder)"
        )
    if not real.is_file():
        raise DomainFolderError(f"{path} is not a file: {name} of a domain folder is a YAML file (docs/domains.md)")
    read_yaml(path, DomainFileError, f"make {name} a YAML file the user running llm-planner can read")
    return path


def _packaged_or_given(path: Path) -> Path:
    if path.is_absolute() or path.exists():
        return path.resolve()
    try:
        packaged = packaged_path(path)
    except PackagedFileNotFoundError:
        return path.resolve()
    return packaged.resolve() if packaged.is_dir() else path.resolve()


def load_domain(path: str | Path) -> Domain:
    """The domain of the folder at ``path``, checked (DomainFolderError, or ConfigError with every problem)."""
    folder = domain_folder(path)
    return load_domain_files(folder.world, folder.skills)


def built_files_folder(kitchen: Domain) -> Path:
    """The folder of ``kitchen``'s world file: where a domain's built bank and adapters lie."""
    return Path(kitchen.config.source).resolve().parent


def domain_bank_file(kitchen: Domain) -> Path:
    """The example bank ``llm-planner domain build`` writes for ``kitchen``'s domain (it may not exist yet)."""
    return built_files_folder(kitchen) / BANK_FILE


def domain_adapter_file(kitchen: Domain, method: str) -> Path | None:
    """The adapter trained for ``method`` in ``kitchen``'s domain, None where the folder has none."""
    return folder_adapter_file(built_files_folder(kitchen), method)


def adapter_path(folder: Path, method: str) -> Path:
    """Where ``llm-planner domain build`` writes the adapter of ``method`` in the domain folder ``folder``."""
    return _method_adapter(folder / ADAPTERS_FOLDER, method)


def _method_adapter(adapters: Path, method: str) -> Path:
    """The file of ``method``'s own adapter in the folder of adapters ``adapters``."""
    return adapters / f"{method}.safetensors"


def folder_adapter_file(folder: Path, method: str) -> Path | None:
    """The adapter ``method`` uses in the domain folder ``folder``: its own, else the one
    ``adapters/shared.yaml`` lends it; None where there is neither."""
    return _adapter_in(folder / ADAPTERS_FOLDER, method)


def general_adapter_file(method: str) -> Path | None:
    """The adapter shipped for ``method`` in any domain (its own file in GENERAL_ADAPTERS_FOLDER, else the one
    the folder's ``shared.yaml`` lends it), None where none is shipped for it."""
    try:
        folder = packaged_path(GENERAL_ADAPTERS_FOLDER)
    except PackagedFileNotFoundError:
        return None
    return _adapter_in(folder, method)


def _adapter_in(adapters: Path, method: str) -> Path | None:
    """``method``'s adapter in the folder of adapters ``adapters``: ``<method>.safetensors``, else the file of
    the method its ``shared.yaml`` (a map of method: method) names; None where there is neither."""
    own = _method_adapter(adapters, method)
    if own.is_file():
        return own
    shared_file = adapters / SHARED_ADAPTERS_FILE
    if not shared_file.is_file():
        return None
    _, shared = read_yaml(shared_file, DomainFileError, f"make {shared_file} a map of method: method")
    lender = shared.get(method) if isinstance(shared, dict) else None
    if not isinstance(lender, str) or lender == method:
        return None
    lent = _method_adapter(adapters, lender)
    return lent if lent.is_file() else None


def general_scorer_file(kind: str) -> Path | None:
    """SayCanPay's ``kind`` (can | pay) model shipped for any domain (trained across generated domains,
    ``GENERAL_ADAPTERS_FOLDER/saycanpay/<kind>.safetensors``), None where none is shipped."""
    try:
        path = packaged_path(GENERAL_ADAPTERS_FOLDER / SAYCANPAY_FOLDER / f"{kind}.safetensors")
    except PackagedFileNotFoundError:
        return None
    return path if path.is_file() else None


def serving_adapter_file(folder: Path, method: str) -> Path | None:
    """The adapter the embedded model runs for ``method`` in the domain folder ``folder``: the folder's
    (``folder_adapter_file``), else the general one shipped for that method, else None."""
    return folder_adapter_file(folder, method) or general_adapter_file(method)


def serving_adapter_parameter(folder: Path, method: str) -> str:
    """``serving_adapter_file`` as a model service's ``adapter`` parameter: the file's path, or ``none``."""
    serving = serving_adapter_file(folder, method)
    return str(serving) if serving is not None else "none"


def domain_scorer_file(folder: Path, kind: str) -> Path:
    """Where ``llm-planner domain build --saycanpay`` writes SayCanPay's ``kind`` (can | pay) model of the
    domain folder ``folder`` (it may not exist yet)."""
    return folder / SAYCANPAY_FOLDER / f"{kind}.safetensors"


def domain_examples_file(kitchen: Domain, method: str) -> Path | None:
    """The example file the domain folder holds for ``method`` (``examples/<method>.yaml``), None where it
    has none."""
    path = built_files_folder(kitchen) / EXAMPLES_FOLDER / f"{method}.yaml"
    return path if path.is_file() else None


def domain_value_functions_file(kitchen: Domain) -> Path:
    """Where the domain's learned value functions lie (it may not exist: the analytic backend needs none)."""
    return built_files_folder(kitchen) / VALUE_FUNCTIONS_FILE


def build_command(kitchen: Domain) -> str:
    """The command that builds ``kitchen``'s domain files, for error messages."""
    return f"llm-planner domain build {built_files_folder(kitchen)}"

"""The test tree mirrors the source tree, so the tests of a module are found where the module is.

Every folder under test/ names a package of src/ (``llm_planner_ros``'s subpackages by their path below it,
``affordance_servers``, ``skill_executors``) or a folder of the repository its tests build or start
(``launch/``, ``robot_interfaces/``); ``support/`` holds the doubles and harness shared by all tests,
``foundation/`` the project-wide checks and ``data/`` the tests' input files.
"""

from __future__ import annotations

from repo_paths import REPO_ROOT

TEST = REPO_ROOT / "test"
SRC = REPO_ROOT / "src"
OWN_FOLDERS = {"support", "foundation", "data"}


def _test_folders() -> list[str]:
    return sorted(
        str(path.relative_to(TEST))
        for path in TEST.rglob("*")
        if path.is_dir() and path.name != "__pycache__" and path.relative_to(TEST).parts[0] not in OWN_FOLDERS
    )


def _mirrors(folder: str) -> bool:
    return any(
        (root / folder / "__init__.py").is_file() or (root / folder).is_dir() and root == REPO_ROOT
        for root in (SRC / "llm_planner_ros", SRC, REPO_ROOT)
    )


def test_every_test_folder_names_a_source_package_or_a_repository_folder() -> None:
    strays = [folder for folder in _test_folders() if not _mirrors(folder)]
    assert not strays, f"test folders without a package of src/ to mirror: {strays} (name them after what they test)"


def test_test_modules_are_plain_modules_not_packages() -> None:
    # A test folder with __init__.py would be importable under its own name (`perception`, `llm`), shadowing
    # or shadowed by a package of the same name; test modules are imported by file name instead.
    packages = sorted(str(path.relative_to(REPO_ROOT)) for path in TEST.rglob("__init__.py"))
    assert not packages, f"remove {packages}: test modules are imported by their file names"


def test_test_file_names_are_unique() -> None:
    names: dict[str, list[str]] = {}
    for path in TEST.rglob("test_*.py"):
        names.setdefault(path.name, []).append(str(path.relative_to(REPO_ROOT)))
    clashes = {name: paths for name, paths in names.items() if len(paths) > 1}
    assert not clashes, f"test modules share a file name, which pytest imports by: {clashes}"

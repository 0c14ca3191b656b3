"""Where a command will write, checked before it does any work.

A plan that runs for minutes (and, without ``--plan-only``, moves the robot) must not end in a traceback
because ``--json`` names a folder that cannot hold a file: the record of what the robot did would be lost.
``check_output_paths`` tries every output option of a parsed command line the way its writer will use it,
before the command starts, and raises ``OutputPathError`` naming the option, the path and the fix.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from llm_planner_ros.domain.validation import InputError

# Options that name one file the command writes at its end, and folders it writes into as it goes.
OUTPUT_FILE_OPTIONS = ("json", "markdown", "plot", "report")
OUTPUT_FOLDER_OPTIONS = ("log_dir", "record")


class OutputPathError(InputError):
    """An output option whose path cannot be written; the message names the option, the path, the fix."""


def check_output_paths(args: argparse.Namespace) -> None:
    """Every output option ``args`` has (``OUTPUT_FILE_OPTIONS``, ``OUTPUT_FOLDER_OPTIONS``) can be written."""
    # Only paths: a command may use one of these names for a flag of another kind (soak's --record).
    for name in OUTPUT_FILE_OPTIONS:
        path = getattr(args, name, None)
        if isinstance(path, Path):
            check_output_file(path, _flag(name))
    for name in OUTPUT_FOLDER_OPTIONS:
        path = getattr(args, name, None)
        if isinstance(path, Path):
            check_output_folder(path, _flag(name))


def check_output_file(path: Path, option: str) -> None:
    """``path`` is a regular file that can be opened for writing, or can be created (with its folders, as
    the writers create them). Leaves an existing file unchanged and removes a file it created."""
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise OutputPathError(f"{option} {path}: {kind}; give a file path (e.g. out/result.json)")
    _check_ancestors(path.parent, option, path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with path.open("a"):
                pass
        else:
            with path.open("x"):
                pass
            path.unlink()
    except OSError as error:
        raise OutputPathError(
            f"{option} {path}: cannot be written ({error.strerror or error}); give a path in a folder you can "
            "write (e.g. out/result.json)"
        ) from error


def check_output_folder(path: Path, option: str) -> None:
    """``path`` is (or can be made) a folder a file can be written in."""
    _check_ancestors(path, option, path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise OutputPathError(
            f"{option} {path}: cannot hold files ({error.strerror or error}); give a folder you can write "
            "(e.g. out/logs)"
        ) from error


def _check_ancestors(folder: Path, option: str, path: Path) -> None:
    """The nearest existing ancestor of ``folder`` (itself included) is a folder, not a file."""
    for ancestor in (folder, *folder.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                raise OutputPathError(f"{option} {path}: {ancestor} is a file, not a folder; give another path")
            return


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")

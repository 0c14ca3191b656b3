"""The pre-commit hooks run the project's lint rules: a commit is held to what ``make lint`` checks.

Run in a scratch repository holding the project's ``pyproject.toml`` and ``.pre-commit-config.yaml``
(and the venv, where the hooks' pinned ruff lives), on a file that breaks the docstring rule and
carries a dead ``noqa``, then on the same file fixed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from repo_paths import REPO_ROOT

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"

BROKEN = "import os  # noqa: F401\n\n\nclass Undocumented:\n    value = os.sep\n"
FIXED = 'import os\n\n\nclass Documented:\n    """A class that says what it is for."""\n\n    value = os.sep\n'


def _run_hooks(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    env = dict(os.environ, PRE_COMMIT_HOME=str(home))
    return subprocess.run(
        [str(PRE_COMMIT), "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_hooks_refuse_an_undocumented_class_and_a_dead_noqa(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    for name in ("pyproject.toml", ".pre-commit-config.yaml"):
        shutil.copy(REPO_ROOT / name, repo / name)
    (repo / ".venv").symlink_to(Path(sys.executable).parents[1])
    (repo / "module.py").write_text(BROKEN)

    refused = _run_hooks(repo, tmp_path / "home")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "D101" in refused.stdout and "RUF100" in refused.stdout, refused.stdout

    (repo / "module.py").write_text(FIXED)
    passed = _run_hooks(repo, tmp_path / "home")
    assert passed.returncode == 0, passed.stdout + passed.stderr

"""The repository's documents stay true and self-contained.

- The example of docs/episodes.md is a valid episode file that uses every condition kind, so the format
  description cannot drift from ``llm_planner_ros.domain.load_episodes``.
- Nothing in the shipped tree cites files a clone does not have (the design folder and paper texts that
  sat beside the working copy) or narrates how the work went (issue and session numbers): the
  CHANGELOG is the one place for history.
- Every repository path a document names (`test/support/robot_doubles.py`) exists, so a reader who follows
  one finds the file.
"""

from __future__ import annotations

import re
from pathlib import Path

from repo_paths import REPO_ROOT

from llm_planner_ros.domain import load_domain_files, load_episodes
from llm_planner_ros.domain.conditions import CONDITION_KINDS, condition_from_yaml
from llm_planner_ros.planning.instruction_check import ObjectVocabulary

# Where the patterns are searched: the shipped code, configuration and prose (not out/, where runs write).
SEARCHED = (
    "src",
    "config",
    "data",
    "launch",
    "msg",
    "package",
    "robot_interfaces",
    "scripts",
    "domains",
    ".ci",
)
SEARCHED_FILES = ("README.md", "Makefile", "pyproject.toml")
SUFFIXES = {".py", ".yaml", ".yml", ".md", ".msg", ".srv", ".action", ".txt", ".xml", ".cfg", ".toml"}

FORBIDDEN = {
    r"\.\./shared": "a path outside the repository: cite the repo's docs/ or a paper by title and arXiv id",
    r"papers/\w+\.txt": "a paper text a clone does not have: cite the paper by title and arXiv id",
    r"kitchen-episodes\.md": "an outside design file: the episode format is docs/episodes.md",
    r"(?i)\bissue #?\d": "an issue number: say what the code does; history belongs in CHANGELOG.md",
    r"(?i)\bsession \d": "a session number: say what the code does; history belongs in CHANGELOG.md",
}


def _searched_files() -> list[Path]:
    files = [REPO_ROOT / name for name in SEARCHED_FILES if (REPO_ROOT / name).is_file()]
    files += sorted((REPO_ROOT / "docs").glob("*.md"))
    for folder in SEARCHED:
        files += sorted(p for p in (REPO_ROOT / folder).rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    return files


def forbidden_lines(files: list[Path], root: Path = REPO_ROOT) -> list[str]:
    """``path:line: why: text`` (path relative to ``root``) for every line matching a FORBIDDEN pattern."""
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for pattern, why in FORBIDDEN.items():
                if re.search(pattern, line):
                    found.append(f"{path.relative_to(root)}:{number}: {why}: {line.strip()[:100]}")
    return found


def test_the_tree_cites_no_outside_files_and_tells_no_history() -> None:
    files = _searched_files()
    assert len(files) > 100, "the search found too few files: has the layout changed?"
    problems = forbidden_lines(files)
    assert not problems, "\n".join(problems)


def test_the_search_reports_file_and_line(tmp_path: Path) -> None:
    doc = tmp_path / "note.md"
    doc.write_text("fine\nsee ../shared/design/ARCHITECTURE.md\nas of Session 4\n")
    problems = forbidden_lines([doc], tmp_path)
    assert [p.split(": ")[0] for p in problems] == ["note.md:2", "note.md:3"]


# The repository's own folders: a backticked path starting with one of them names a file of the clone
# (``out/`` is where runs write, so its paths are examples, not files).
REPO_FOLDERS = (
    "benchmarks",
    "config",
    "data",
    "data",
    "docs",
    "domains",
    "launch",
    "msg",
    "package",
    "robot_interfaces",
    "scripts",
    "src",
    "test",
)
# A wildcard or a <placeholder> stands for files: the path is checked as a glob, placeholders as wildcards.
PLACEHOLDER = re.compile(r"<[^>]*>")


def named_repo_paths(markdown: str) -> list[tuple[int, str]]:
    """(line, path) for every backticked repository path in ``markdown`` (a pytest node id's ``::test``
    part and trailing punctuation dropped)."""
    named = []
    for number, line in enumerate(markdown.splitlines(), 1):
        for text in re.findall(r"`([^`\s]+)`", line):
            path = text.split("::")[0].rstrip(".,:;")
            if path.split("/")[0] in REPO_FOLDERS and "/" in path:
                named.append((number, path))
    return named


def missing_repo_paths(files: list[Path], root: Path = REPO_ROOT) -> list[str]:
    """``doc:line: path`` for every repository path a document names that ``root`` does not hold."""
    missing = []
    for doc in files:
        for number, path in named_repo_paths(doc.read_text()):
            pattern = PLACEHOLDER.sub("*", path)
            found = any(root.glob(pattern)) if "*" in pattern else (root / path).exists()
            if not found:
                missing.append(f"{doc.relative_to(root)}:{number}: {path}")
    return missing


def test_every_repository_path_the_documents_name_exists() -> None:
    documents = sorted((REPO_ROOT / "docs").glob("*.md"))
    problems = missing_repo_paths(documents)
    assert not problems, "documents name paths the repository does not have:\n" + "\n".join(problems)


def test_the_path_check_reports_document_line_and_path(tmp_path: Path) -> None:
    (tmp_path / "test/support").mkdir(parents=True)
    (tmp_path / "test/support/robot_doubles.py").write_text("")
    doc = tmp_path / "robot.md"
    doc.write_text(
        "`test/support/robot_doubles.py`, `test/*/robot_doubles.py`\nthe doubles (`test/mock/robot_doubles.py`).\n"
    )
    assert missing_repo_paths([doc], tmp_path) == ["robot.md:2: test/mock/robot_doubles.py"]


def _yaml_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```", markdown, re.S | re.M)


def test_the_episode_format_example_loads(tmp_path: Path) -> None:
    blocks = [b for b in _yaml_blocks((REPO_ROOT / "docs/episodes.md").read_text()) if b.startswith("world:")]
    assert len(blocks) == 1, "docs/episodes.md should hold exactly one ```yaml episode file example"
    path = tmp_path / "example.yaml"
    path.write_text(blocks[0])
    kitchen = load_domain_files()
    episodes = load_episodes(path, kitchen)
    assert [e.id for e in episodes] == ["coke-to-user", "sponge-in-drawer"]
    # A fact needs a world that declares facts, which the kitchen does not: docs/domains.md shows them.
    kinds = set(CONDITION_KINDS) - {"fact"}
    used = {kind for kind in kinds if re.search(rf"\{{{kind}:", blocks[0])}
    assert used == kinds, f"the example shows no {sorted(kinds - used)} condition"
    for episode in episodes:
        assert not episode.goal_holds(episode.world(kitchen)), f"{episode.id}: its goal holds before any step"


def test_the_domain_example_loads_and_its_rules_run(tmp_path: Path) -> None:
    world, skills = _yaml_blocks((REPO_ROOT / "docs/domains.md").read_text())[:2]
    (tmp_path / "world.yaml").write_text(world)
    (tmp_path / "skills.yaml").write_text(skills)
    office = load_domain_files(tmp_path / "world.yaml", tmp_path / "skills.yaml")
    room = office.world({"robot": {"at": "hall", "holding": None}, "objects": [], "facts": []})
    assert not room.can_apply("go to the meeting room")
    room.apply("open the door")
    room.apply("go to the meeting room")
    assert room.facts == {"door_open"} and room.robot_at == "meeting room"
    # Its category: a goal names it, and the request check reads its synonym as asking for the sponge.
    goal = condition_from_yaml({"at": {"label": "cleaning supplies", "location": "user"}}, office.config)
    assert str(goal) == "at(sponge, user)"
    assert ObjectVocabulary.of_kitchen(office.config).named("Bring me something to clean with.") == (
        "cleaning supplies",
    )


def test_the_written_effects_example_is_the_break_rooms_own_skills() -> None:
    """docs/domains.md shows the break room's skills that hand over, make and use up objects as the tests
    run them (test/data/break_room/skills.yaml, test/domain/test_written_effects.py)."""
    import yaml

    (block,) = [b for b in _yaml_blocks((REPO_ROOT / "docs/domains.md").read_text()) if "{put_held:" in b]
    shown = yaml.safe_load(block)
    skills = yaml.safe_load((REPO_ROOT / "test/data/break_room/skills.yaml").read_text())["skills"]
    assert len(shown) == 3 and all(skill in skills for skill in shown), shown

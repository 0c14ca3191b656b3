"""A domain folder whose files cannot be used is refused before anything reads them, with the file, the
line of a YAML syntax error and the fix: a syntax error, a binary file, a link loop, and a link to a file
outside the folder, whose text is never shown; a file over the size limit and a pipe are refused unread."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from repo_paths import TEST_DATA

from llm_planner_ros.domain.config import ConfigError
from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import DomainFolderError, domain_folder, load_domain
from llm_planner_ros.domain.validation import MAX_YAML_BYTES

OFFICE = TEST_DATA / "office_corner"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the office corner to break."""
    return Path(shutil.copytree(OFFICE, tmp_path / "office"))


def test_a_yaml_syntax_error_is_named_with_its_file_and_line(folder: Path) -> None:
    lines = (folder / "skills.yaml").read_text().splitlines()
    broken = next(i for i, line in enumerate(lines) if line.strip().startswith("text:"))
    lines[broken] = "    text: [find {article} {object}"  # the bracket is never closed
    (folder / "skills.yaml").write_text("\n".join(lines) + "\n")
    with pytest.raises(DomainFolderError) as refused:
        domain_folder(folder)
    message = str(refused.value)
    assert message.startswith(f"{folder / 'skills.yaml'}: 1 problem\n  line {broken + 1}, "), message
    assert "not valid YAML: while parsing a flow sequence, expected ',' or ']'" in message, message
    assert "fix the syntax there" in message


def test_a_binary_file_is_not_read_as_yaml(folder: Path) -> None:
    (folder / "world.yaml").write_bytes(bytes(range(256)))
    with pytest.raises(DomainFolderError, match=r"world\.yaml: 1 problem\n.*not a text file \(UTF-8 YAML expected\)"):
        load_domain(folder)


def test_a_key_given_twice_is_refused_at_its_second_line(folder: Path) -> None:
    # PyYAML keeps the last of two equal keys without a word: a place listed twice lost the first.
    world = folder / "world.yaml"
    lines = world.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  ") and line.strip().endswith("}"))
    lines.insert(first + 1, lines[first])
    world.write_text("\n".join(lines) + "\n")
    key = lines[first].strip().split(":")[0]
    with pytest.raises(DomainFolderError) as refused:
        load_domain(folder)
    message = str(refused.value)
    assert f"world.yaml: 1 problem\n  line {first + 2}, " in message, message
    assert f"'{key}' is given twice (first on line {first + 1}): keep one" in message, message


def test_a_file_over_the_size_limit_is_refused_before_it_is_parsed(folder: Path) -> None:
    world = folder / "world.yaml"
    # Valid YAML all through: only its size is wrong (a 50 MB file took 17-28 s to parse at every start).
    world.write_text(world.read_text() + "# padding\n" * (MAX_YAML_BYTES // 10 + 1))
    with pytest.raises(DomainFolderError, match=r"world\.yaml: 1 problem\n.*is larger than 4 MB, the most a domain"):
        load_domain(folder)


def test_a_pipe_given_as_a_world_file_is_refused_not_waited_on(folder: Path, tmp_path: Path) -> None:
    pipe = tmp_path / "world.yaml"
    os.mkfifo(pipe)  # reading it would wait for a writer forever
    with pytest.raises(ConfigError, match=r"world\.yaml: 1 problem\n.*is no regular file"):
        load_domain_files(str(pipe), str(folder / "skills.yaml"))


@pytest.mark.parametrize("name", ["world.yaml", "episodes.yaml"])
def test_a_file_that_links_to_itself_is_named(folder: Path, name: str) -> None:
    (folder / name).unlink()
    (folder / name).symlink_to(name)
    with pytest.raises(DomainFolderError, match=f"{folder / name} is a link that leads nowhere .*: replace it"):
        domain_folder(folder)


def test_a_folder_that_is_a_link_loop_is_named(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(DomainFolderError, match=f"domain {tmp_path / 'a'} cannot be opened .*give the folder itself"):
        domain_folder(tmp_path / "a")


def test_a_link_out_of_the_folder_is_refused_unread(folder: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.conf"
    secret.write_text("root:x:0:0:the first line of a file outside the folder\n")
    (folder / "world.yaml").unlink()
    (folder / "world.yaml").symlink_to(secret)
    with pytest.raises(DomainFolderError) as refused:
        load_domain(folder)
    message = str(refused.value)
    assert message == (
        f"{folder / 'world.yaml'} is a link to {secret}, outside the domain folder: copy the file into {folder} "
        "(a domain's files are read only from inside its folder)"
    )


def test_a_link_inside_the_folder_is_read(folder: Path) -> None:
    (folder / "worlds").mkdir()
    (folder / "world.yaml").rename(folder / "worlds" / "office.yaml")
    (folder / "world.yaml").symlink_to(Path("worlds") / "office.yaml")
    assert load_domain(folder).config.world == "office_corner"

"""A user's bad input to ``llm-planner`` ends in one clear error (exit status 2), never a traceback, and
before any work: an episode file that is missing, binary, malformed or of another world, an unknown
episode id, a domain folder whose files cannot be read, and output paths (--json, --plot, --report,
--log-dir, --record) that cannot be written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from repo_paths import TEST_DATA

from llm_planner_ros.processes import entry_point


def llm_planner(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [entry_point("llm-planner"), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def assert_refused(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Traceback" not in output, output
    assert "llm-planner: error: " in result.stderr, output
    for text in expected:
        assert text in result.stderr, output


@pytest.fixture
def episode_files(tmp_path: Path) -> Path:
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({"world": "saycan_kitchen", "episodes": [{"id": "a"}]}))
    (tmp_path / "binary.yaml").write_bytes(bytes(range(256)))
    (tmp_path / "office.yaml").write_text(yaml.safe_dump({"world": "office", "episodes": [{"id": "a"}]}))
    return tmp_path


@pytest.mark.parametrize(
    ("file", "episode_id", "expected"),
    [
        ("bad.yaml", "a", ["bad.yaml: ", "field instruction: missing (required)"]),
        ("missing.yaml", "a", ["missing.yaml: ", "cannot be read (No such file or directory)"]),
        ("binary.yaml", "a", ["binary.yaml: ", "not a text file"]),
        ("office.yaml", "a", ["office.yaml: ", "unknown world 'office'"]),
        ("domains/saycan_kitchen/dev.yaml", "nope", ["has no episode 'nope'; its ids: 'sp-01'"]),
    ],
)
def test_demo_refuses_an_episode_it_cannot_use(
    episode_files: Path, file: str, episode_id: str, expected: list[str]
) -> None:
    path = file if file.startswith("domains/") else str(episode_files / file)
    assert_refused(llm_planner("demo", "--episode", path, "--id", episode_id, cwd=episode_files), *expected)


def test_bench_kitchen_refuses_an_episode_file_of_another_world(episode_files: Path) -> None:
    result = llm_planner("bench", "kitchen", "--episodes", "office.yaml", cwd=episode_files)
    assert_refused(result, "unknown world 'office'; known worlds: 'saycan_kitchen'")


def _break_domain(folder: Path, fault: str) -> list[str]:
    """Break the domain folder copy ``folder`` by ``fault``; what the refusal must say."""
    world = folder / "world.yaml"
    if fault == "syntax":
        world.write_text(world.read_text().replace("  hall:         {x: 3.0, y: 0.0}", "  hall: {x: 3.0, y: 0.0"))
        return [f"{world}: 1 problem", "line 6, field <top level>: not valid YAML: ", "fix the syntax there"]
    if fault == "binary":
        world.write_bytes(bytes(range(256)))
        return [f"{world}: 1 problem", "not a text file (UTF-8 YAML expected)"]
    world.unlink()
    if fault == "loop":
        world.symlink_to("world.yaml")
        return [f"{world} is a link that leads nowhere", "replace it with the file itself"]
    secret = folder.parent / "secret.conf"
    secret.write_text("root:x:0:0:the first line of a file outside the folder\n")
    world.symlink_to(secret)
    return [f"{world} is a link to {secret}, outside the domain folder: copy the file into {folder}"]


@pytest.mark.parametrize("fault", ["syntax", "binary", "loop", "link out"])
@pytest.mark.parametrize(
    "command",
    [["domain", "check"], ["demo", "--domain"], ["bench", "kitchen", "--domain"]],
    ids=["domain check", "demo", "bench kitchen"],
)
def test_a_domain_folder_with_a_file_that_cannot_be_read_is_refused(
    tmp_path: Path, command: list[str], fault: str
) -> None:
    folder = Path(shutil.copytree(TEST_DATA / "office_corner", tmp_path / "office"))
    expected = _break_domain(folder, fault)
    result = llm_planner(*command, str(folder), cwd=tmp_path)
    assert_refused(result, *expected)
    assert "the first line of a file outside" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "go to the table", "--json", "/proc/1/x/record.json"], "--json /proc/1/x/record.json: cannot be"),
        (["run", "go to the table", "--json", "/dev/full"], "--json /dev/full: not a regular file"),
        (["run", "go to the table", "--json", "{file}/record.json"], "{file} is a file, not a folder"),
        (["run", "go to the table", "--plot", "{folder}"], "--plot {folder}: a folder"),
        (["demo", "--log-dir", "{file}"], "--log-dir {file}: {file} is a file, not a folder"),
        (["demo", "--sim", "physics", "--record", "{file}/frames"], "{file} is a file, not a folder"),
        (["bench", "kitchen", "--json", "{folder}"], "--json {folder}: a folder"),
        (["bench", "kitchen", "--report", "{file}/report.md"], "{file} is a file, not a folder"),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_before_any_work(
    tmp_path: Path, args: list[str], expected: str
) -> None:
    """``run`` would otherwise send its goal (without --plan-only the robot acts) and lose the record."""
    file, folder = tmp_path / "a_file", tmp_path / "a_folder"
    file.write_text("keep me")
    folder.mkdir()
    values = {"file": str(file), "folder": str(folder)}
    result = llm_planner(*(a.format(**values) for a in args), cwd=tmp_path)
    assert_refused(result, expected.format(**values))
    # Refused before the work: no planner was looked for, and nothing the user had was touched.
    assert "waiting for" not in result.stdout + result.stderr
    assert file.read_text() == "keep me" and list(folder.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [
        ["bench", "saycan-temperature", "--temperature", "nan"],
        ["bench", "value-reasons", "--temperature", "inf"],
        ["up", "--time-scale", "nan"],
    ],
    ids=["saycan-temperature", "value-reasons", "up"],
)
def test_a_real_valued_option_refuses_nan_and_infinity(command: list[str], tmp_path: Path) -> None:
    # float() takes "nan" and "inf", which pass every bound check and fail after a model has loaded.
    result = llm_planner(*command, cwd=tmp_path)
    output = result.stdout + result.stderr
    assert (result.returncode, "Traceback" in output) == (2, False), output
    assert f"error: argument {command[-2]}: expected a finite number, got {command[-1]!r}" in result.stderr, output


def test_demo_refuses_a_negative_real_time_factor_before_any_node_starts(tmp_path: Path) -> None:
    result = llm_planner("demo", "--sim", "physics", "--real-time-factor", "-1", cwd=tmp_path)
    output = result.stdout + result.stderr
    assert (result.returncode, "Traceback" in output) == (2, False), output
    assert "error: argument --real-time-factor: expected 0 or more, got '-1'" in result.stderr, output
    assert "starting" not in result.stdout, output


def test_domain_check_and_the_graph_report_the_problems_of_every_file_at_once(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(TEST_DATA / "office_corner", tmp_path / "office"))
    for name, old, new in [
        ("world.yaml", "mug:     {article: a}", "mug:     {article: a, colour: red}"),
        ("skills.yaml", "executor: mobile_base", "executor: mobile_bse"),
    ]:
        (folder / name).write_text((folder / name).read_text().replace(old, new, 1))
    for command in (["domain", "check"], ["up", "--domain"]):
        result = llm_planner(*command, str(folder), cwd=tmp_path)
        assert_refused(result, "objects.mug.colour: unknown key", "unknown executor 'mobile_bse'")

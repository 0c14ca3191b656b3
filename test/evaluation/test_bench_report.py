"""Every ``llm-planner bench`` takes ``--json`` the same way and writes its report through one writer
(``evaluation.bench_report``): a file with its folders made, or stdout, and a partial report (after each
episode) never on stdout. Its progress bar counts the items done and keeps the lines printed through it."""

from __future__ import annotations

import argparse
import importlib
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from llm_planner_ros.cli.benchmarks import BENCHMARKS
from llm_planner_ros.evaluation.bench_report import add_json_argument, progress_bar, write_json


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_bench_takes_the_shared_json_option(name: str) -> None:
    parser = argparse.ArgumentParser()
    importlib.import_module(BENCHMARKS[name].module).add_arguments(parser)
    (action,) = [a for a in parser._actions if "--json" in a.option_strings]
    assert action.const == "-" and action.help is not None and action.help.endswith("(`-` or no PATH: print it)")


def test_json_option_values() -> None:
    parser = argparse.ArgumentParser()
    add_json_argument(parser)
    assert parser.parse_args([]).json is None
    assert parser.parse_args(["--json"]).json == "-"
    assert parser.parse_args(["--json", "-"]).json == "-"
    assert parser.parse_args(["--json", "out/x.json"]).json == Path("out/x.json")


def test_a_report_goes_to_its_file_with_folders_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "a" / "b" / "report.json"
    said: list[str] = []
    write_json(target, {"success": 0.5, "label": "café"}, said.append)
    assert json.loads(target.read_text(encoding="utf-8")) == {"success": 0.5, "label": "café"}
    assert said == [f"wrote {target}"]
    assert capsys.readouterr().out == ""


def test_stdout_gets_the_final_report_only(capsys: pytest.CaptureFixture[str]) -> None:
    write_json("-", {"episodes": 1}, partial=True)
    write_json(None, {"episodes": 2})
    assert capsys.readouterr().out == ""
    write_json("-", {"episodes": 3})
    assert json.loads(capsys.readouterr().out) == {"episodes": 3}


def test_the_progress_bar_counts_items_and_keeps_the_lines_said_through_it() -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=False)
    with progress_bar(console, "episodes", 3) as progress:
        for episode in ("fetch-01", "fetch-02", "drawer-01"):
            progress.show(episode)
            progress.say(f"{episode} ok")
            progress.advance()
    text = out.getvalue()
    assert [line for line in text.splitlines() if line.endswith(" ok")] == [
        "fetch-01 ok",
        "fetch-02 ok",
        "drawer-01 ok",
    ]
    assert "3/3" in text and "drawer-01" in text.splitlines()[-1]

"""Every ``llm-planner bench`` takes ``--json`` the same way and writes its report through one writer
(``evaluation.bench_report``): a file with its folders made, or stdout, and a partial report (after each
episode) never on stdout."""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

import pytest

from llm_planner_ros.cli.benchmarks import BENCHMARKS
from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_bench_takes_the_shared_json_option(name: str) -> None:
    parser = argparse.ArgumentParser()
    importlib.import_module(BENCHMARKS[name]).add_arguments(parser)
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

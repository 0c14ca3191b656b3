"""`--option key=value` on the benches (planning.registry.override_options): a value of the packaged
option's kind replaces it; a typo, a value of another kind, nan or inf, or text that is no plain YAML is
refused with the option and the fix, by every bench that takes --option, before its model loads."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from llm_planner_ros.cli.benchmarks import BENCHMARKS
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.planning.registry import load_planner_options, override_options


def test_values_of_the_packaged_kind_replace_the_packaged_ones() -> None:
    options = load_planner_options()
    overrides = {"avoid_failed_first": "false", "min_similarity": "1", "max_tokens": "64", "examples_file": "x.yaml"}
    override_options(options, "llm_planner", overrides)
    section = options["llm_planner"]
    assert (section["avoid_failed_first"], section["min_similarity"], section["max_tokens"]) == (False, 1, 64)
    override_options(options, "progprompt", {"examples": "3"})  # packaged as text: none, file or a count
    assert options["progprompt"]["examples"] == 3


@pytest.mark.parametrize(
    ("key", "text", "message"),
    [
        ("avoid_failed_first", "maybe", "avoid_failed_first takes true or false"),
        ("max_replans", "many", "max_replans takes a whole number"),
        ("max_tokens", "9.5", "max_tokens takes a whole number"),
        ("min_similarity", "true", "min_similarity takes a number"),
        ("avoid_failed_firs", "true", "llm_planner has no such option; known: avoid_failed_first, "),
        ("min_similarity", ".nan", "min_similarity=.nan: llm_planner's min_similarity takes a finite number"),
        ("min_similarity", "-.inf", "min_similarity takes a finite number"),
        ("max_tokens", ".inf", "max_tokens takes a whole number"),
        ("max_tokens", "[unclosed", r"max_tokens=\[unclosed: not a plain YAML value \(expected ',' or '\]'"),
        ("grammar", "!!python/name:os.system", "grammar=!!python/name:os.system: not a plain YAML value"),
    ],
)
def test_a_value_of_another_kind_or_a_typo_is_refused_naming_the_option(key: str, text: str, message: str) -> None:
    options = load_planner_options()
    packaged = dict(options["llm_planner"])
    with pytest.raises(InputError, match=message):
        override_options(options, "llm_planner", {key: text})
    assert options["llm_planner"] == packaged


def test_the_bench_prints_the_refusal_without_a_traceback() -> None:
    argv = [str(Path(sys.executable).parent / "llm-planner"), "bench", "kitchen", "--planner", "llm_planner"]
    done = subprocess.run([*argv, "--option", "grammar=maybe"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "--option grammar=maybe: llm_planner's grammar takes true or false" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


# The arguments each bench that takes --option needs besides it; every such bench is listed here.
BENCH_ARGUMENTS = {
    "kitchen": ["--planner", "llm_planner"],
    "babyai": ["--split", "benchmarks/babyai/test-optimal.txt"],
    "saycan-temperature": [],
    "value-reasons": [],
    "virtualhome": ["--planner", "saycan"],
}


def _takes_option(module_path: str) -> bool:
    parser = argparse.ArgumentParser()
    importlib.import_module(module_path).add_arguments(parser)
    return "--option" in parser._option_string_actions


def test_every_bench_that_takes_an_option_is_checked_below() -> None:
    assert {name for name, bench in BENCHMARKS.items() if _takes_option(bench.module)} == set(BENCH_ARGUMENTS)


@pytest.mark.parametrize("bench", sorted(BENCH_ARGUMENTS))
def test_every_bench_refuses_an_option_that_is_no_plain_yaml_before_its_model_loads(bench: str) -> None:
    argv = [str(Path(sys.executable).parent / "llm-planner"), "bench", bench, *BENCH_ARGUMENTS[bench]]
    done = subprocess.run([*argv, "--option", "top_k=[unclosed"], capture_output=True, text=True, timeout=120)
    refused = "llm-planner: error: --option top_k=[unclosed: not a plain YAML value (expected ',' or ']'"
    assert (done.returncode, refused in done.stderr, "Traceback" in done.stderr) == (2, True, False), done.stderr
    assert "loading the language model" not in done.stdout, done.stdout

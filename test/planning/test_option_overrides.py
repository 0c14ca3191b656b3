"""`--option key=value` on the benches (planning.registry.override_options): a value of the packaged
option's kind replaces it; a typo or a value of another kind is refused with the option and the fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from llm_planner_ros.kitchen_domain.validation import InputError
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

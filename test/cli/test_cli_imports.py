"""``llm-planner`` imports a command's code only when that command runs.

``--help``, ``bench --help`` and a mistyped option used to import every benchmark module to build the
parser, and with them rclpy, open3d, OpenCV and PyBullet (1,388 modules, seconds on 2 cores).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("rclpy", "torch", "transformers", "open3d", "cv2", "pybullet")

PROBE = """
import contextlib, io, json, sys
from llm_planner_ros.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    try:
        main(sys.argv[1:])
    except SystemExit as exit_:
        code = exit_.code
print(json.dumps({"code": code, "output": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def _parse_only(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "argv", [("--help",), ("bench", "--help"), ("demo", "--help"), ("run", "--bogus"), ("bench", "nonesuch")]
)
def test_help_and_parse_errors_import_no_command_code(argv: tuple[str, ...]) -> None:
    answer = _parse_only(*argv)
    assert answer["code"] in (0, 2)
    assert not [name for name in HEAVY if name in answer["modules"]]
    assert "llm_planner_ros.cli.graph_commands" not in answer["modules"]


def test_a_named_benchmark_gets_its_own_arguments_and_only_its_module() -> None:
    answer = _parse_only("bench", "kitchen", "--help")
    assert answer["code"] == 0 and "--episodes" in answer["output"]
    loaded = [name for name in answer["modules"] if name.startswith("llm_planner_ros.evaluation.")]
    assert "llm_planner_ros.evaluation.kitchen_command" in loaded
    assert "llm_planner_ros.evaluation.soak_bench" not in loaded


def test_bench_help_says_what_each_benchmark_measures_without_importing_them() -> None:
    from llm_planner_ros.cli.benchmarks import BENCHMARKS

    answer = _parse_only("bench", "--help")
    output = " ".join(answer["output"].split())
    assert answer["code"] == 0 and "benchmark: " not in output, output
    for name, benchmark in BENCHMARKS.items():
        assert len(benchmark.help) > 20 and benchmark.help.split()[0] in output, (name, benchmark.help)
    assert "plan success, Exec, GCR, held back and false refusals" in output
    assert not [name for name in answer["modules"] if name.startswith("llm_planner_ros.evaluation.")]

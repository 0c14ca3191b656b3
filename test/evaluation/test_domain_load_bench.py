"""``llm-planner bench domain-load``: a generated domain of N skills, with a fact and a family of written
rules, is written to files and loaded as the nodes load theirs; the report times it beside the kitchen."""

from __future__ import annotations

import json
from pathlib import Path

from llm_planner_ros.cli.main import main


def test_the_bench_loads_generated_domains_of_the_asked_sizes(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    assert main(["bench", "domain-load", "--skills", "60,300", "--repeats", "1", "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert results["kitchen"]["skills"] == 51
    # The generated kitchen's N skills, and one "wipe the <place>" per tenth place.
    assert 60 < results["60"]["skills"] < results["300"]["skills"] < 300 + 300 // 10
    assert all(row["load_s"] > 0 and row["world_s"] > 0 and row["files_kb"] > 0 for row in results.values())


def test_a_bad_skill_count_is_refused_with_the_fix(capsys) -> None:
    assert main(["bench", "domain-load", "--skills", "20"]) == 2
    assert "every --skills count >= 51" in capsys.readouterr().err

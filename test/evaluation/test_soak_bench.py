"""``llm-planner bench soak``: a short run through the whole sim graph on the shipped replay recording
writes an RSS sample of every node at the start, after the warm-up, every K goals and at the end, and
counts every goal; the growth verdict and the exit status agree. The RSS bookkeeping is checked on
made-up samples."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ros_harness import RosGraph

from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.evaluation.soak_bench import WORKLOAD, NodeGrowth, Sample, node_growth, sample_points
from llm_planner_ros.processes import entry_point

GOALS = 6
BENCH_TIMEOUT_S = 90.0


def _node_logs(log_dir: Path) -> str:
    return "\n".join(
        f"----- {log.name} -----\n{log.read_text(errors='replace')}" for log in sorted(log_dir.glob("*.log"))
    )


@pytest.mark.graph
@pytest.mark.timeout(150)
def test_short_soak_samples_every_node_and_counts_every_goal(ros_graph: RosGraph, tmp_path: Path) -> None:
    out, node_logs = tmp_path / "soak.json", tmp_path / "nodes"
    bench = ros_graph.start_process(
        [
            entry_point("llm-planner"),
            "bench",
            "soak",
            "--instructions",
            str(GOALS),
            "--warmup",
            "2",
            "--sample-every",
            "2",
            "--json",
            str(out),
            "--log-dir",
            str(node_logs),
        ],
        label="soak",
    )
    try:
        status = bench.wait(BENCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the soak bench did not finish within {BENCH_TIMEOUT_S:.0f} s\n{_node_logs(node_logs)}")
    # 2 is a graph that did not come up, a dead node or a hung goal; 0 and 1 are the RSS verdict.
    assert status in (0, 1), f"exit status {status}\n{_node_logs(node_logs)}"
    report = json.loads(out.read_text())

    nodes = {spec.name for spec in SIM_GRAPH}
    assert set(report["nodes"]) == nodes and len(set(report["nodes"].values())) == len(nodes)
    assert [sample["goals"] for sample in report["samples"]] == [0, 2, 4, 6]
    for sample in report["samples"]:
        assert set(sample["rss_bytes"]) == nodes
        # every node is a Python process with rclpy loaded: tens of MiB, never a bogus 0 or a few kB
        assert all(value > 20 * 1024 * 1024 for value in sample["rss_bytes"].values()), sample
    assert set(report["growth"]) == nodes
    warmup = report["samples"][1]["rss_bytes"]
    end = report["samples"][-1]["rss_bytes"]
    for node, growth in report["growth"].items():
        assert (growth["warmup_bytes"], growth["end_bytes"]) == (warmup[node], end[node])
    over = sorted(node for node, growth in report["growth"].items() if growth["growth_pct"] > report["threshold_pct"])
    assert sorted(report["grew"]) == over
    assert status == (1 if over else 0)

    assert report["error"] == ""
    assert report["goals"] == GOALS and report["goals_per_minute"] > 0
    assert set(report["outcomes"]) == {goal.label for goal in WORKLOAD[:GOALS]}
    assert all(sum(counts.values()) == 1 for counts in report["outcomes"].values())
    # Success is counted from the end reasons, and every goal that did not end done is listed with why.
    # (Not all must succeed: a rare empty affordance answer under load fails a goal; the soak reports it.)
    done = {label for label, counts in report["outcomes"].items() if counts.get("done")}
    assert report["succeeded"] == len(done) > 0, report["outcomes"]
    failed = {f["label"]: f for f in report["failures"]}
    assert set(failed) == set(report["outcomes"]) - done
    assert all(f["reason"] != "done" and f["message"] for f in failed.values()), failed


def test_growth_compares_the_end_with_the_warmup_and_keeps_the_largest() -> None:
    samples = [
        Sample(0, 0.0, {"a": 50, "b": 10}),
        Sample(2, 1.0, {"a": 100, "b": 20}),
        Sample(4, 2.0, {"a": 130, "b": 25}),
        Sample(6, 3.0, {"a": 105, "b": 18}),
    ]
    growth = {g.node: g for g in node_growth(samples, warmup_goals=2)}
    assert growth["a"] == NodeGrowth("a", warmup_bytes=100, end_bytes=105, max_bytes=130)
    assert growth["a"].growth_pct == pytest.approx(5.0)
    assert growth["b"].growth_pct == pytest.approx(-10.0)


def test_samples_at_start_warmup_every_k_and_end() -> None:
    assert sample_points(300, 24, 24) == {0, *range(24, 301, 24), 300}
    assert sample_points(10, 3, 4) == {0, 3, 7, 10}

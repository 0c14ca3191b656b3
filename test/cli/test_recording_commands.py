"""`llm-planner record` keeps a running graph's plans as a rosbag2 bag (MCAP) and `llm-planner replay`
reads it back.

The sim graph plans with SayCan replaying a recorded model; the recorder runs beside it as a user starts it
and stops on Ctrl-C (SIGINT). The bag is read with the MCAP ROS 2 decoder (mcap_ros2: its own
``.msg`` parser and CDR reader, not rclpy's), which must find every step the test's own subscription
received, field for field.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from action_msgs.msg import GoalStatus
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from replayed_planner_graph import (
    FETCH_GOAL,
    FETCH_INITIAL,
    FETCH_INSTRUCTION,
    FETCH_PLAN,
    execute_instruction,
    record_fetch,
    replaying_sim_graph,
)
from ros_harness import RosGraph, ros_graph, wait_until

from llm_planner_interfaces.msg import PlanStep

pytestmark = [pytest.mark.graph, pytest.mark.timeout(300)]

LLM_PLANNER = str(Path(sys.executable).parent / "llm-planner")


def test_a_recorded_plan_reads_back_with_an_independent_decoder_and_replays(tmp_path: Path) -> None:
    recording = record_fetch(tmp_path / "saycan.jsonl")
    bag = tmp_path / "bag"
    recorder: list[subprocess.Popen[str]] = []

    def start_recorder(graph: RosGraph) -> None:
        recorder.append(
            subprocess.Popen(
                [LLM_PLANNER, "record", "--out", str(bag)],
                env=graph.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )

    try:
        with replaying_sim_graph(
            tmp_path, recording, "saycan", FETCH_INSTRUCTION, FETCH_INITIAL, FETCH_GOAL, 0.05, start_more=start_recorder
        ) as graph:
            process = recorder[0]
            published: list[PlanStep] = []
            graph.node.create_subscription(PlanStep, "/llm_planner/scores", published.append, 100)
            # The recorder has subscribed once the planner's publishers see it.
            wait_until(
                lambda: graph.node.count_subscribers("/llm_planner/scores") >= 2, 30, "the recorder's subscription"
            )
            wait_until(
                lambda: graph.node.count_subscribers("/llm_planner/goals") >= 1, 30, "the recorder's goal subscription"
            )
            response = execute_instruction(graph, FETCH_INSTRUCTION)
            assert response.status == GoalStatus.STATUS_SUCCEEDED, response.result.message
            wait_until(lambda: any(step.skill == "done" for step in published), 10, "the last step's announcement")
            time.sleep(1.0)  # what the test received has reached the recorder too
            process.send_signal(signal.SIGINT)
            output, _ = process.communicate(timeout=30)
    finally:
        # A test failing midway must not leave the recorder running (other tests look for stray processes).
        for leftover in recorder:
            if leftover.poll() is None:
                leftover.kill()
                leftover.wait(timeout=10)
    assert process.returncode == 0, output

    info = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    counts = {entry["topic_metadata"]["name"]: entry["message_count"] for entry in info["topics_with_message_count"]}
    assert info["storage_identifier"] == "mcap" and info["message_count"] == sum(counts.values())
    assert counts["/llm_planner/scores"] == len(published) and counts["/llm_planner/goals"] == 2, counts
    assert counts["/scene/objects"] >= 1 and counts["/sim/robot_state"] >= 1, counts

    decoded: dict[str, list[object]] = {}
    with (bag / info["relative_file_paths"][0]).open("rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _schema, channel, _message, ros_msg in reader.iter_decoded_messages():
            decoded.setdefault(channel.topic, []).append(ros_msg)
    steps = decoded["/llm_planner/scores"]
    assert [(s.index, s.skill, s.status, s.message) for s in steps] == [  # type: ignore[attr-defined]
        (p.index, p.skill, p.status, p.message) for p in published
    ]
    for mine, theirs in zip(published, steps, strict=True):
        assert [(c.skill, c.llm, c.affordance, c.combined) for c in theirs.candidates] == [  # type: ignore[attr-defined]
            (c.skill, c.llm, c.affordance, c.combined) for c in mine.candidates
        ]
    events = [json.loads(m.data) for m in decoded["/llm_planner/goals"]]  # type: ignore[attr-defined]
    assert [e["event"] for e in events] == ["started", "ended"] and events[0]["instruction"] == FETCH_INSTRUCTION
    assert events[1]["reason"] == "done", events

    chart = tmp_path / "decision.png"
    replay = subprocess.run(
        [LLM_PLANNER, "replay", str(bag), "--plot", str(chart)], capture_output=True, text=True, timeout=120
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert FETCH_INSTRUCTION in replay.stdout and "goal ended (done)" in replay.stdout, replay.stdout
    assert all(f"{skill} succeeded" in replay.stdout for skill in FETCH_PLAN[:-1]), replay.stdout
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_recording_never_overwrites_a_bag_and_replay_names_what_is_not_one(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "old_0.mcap").write_bytes(b"")
    refused = subprocess.run([LLM_PLANNER, "record", "--out", str(tmp_path / "old")], capture_output=True, text=True)
    assert refused.returncode == 2 and "already holds files" in refused.stderr, refused.stderr
    missing = subprocess.run([LLM_PLANNER, "replay", str(tmp_path)], capture_output=True, text=True)
    assert missing.returncode == 2 and "nor a bag folder with metadata.yaml" in missing.stderr, missing.stderr


def test_the_graphs_plan_recorder_closes_its_bag_when_the_graph_stops(tmp_path: Path) -> None:
    """plan_recorder (launch argument record:=true, `up --bag`) is the same recording as a node: what is
    published while it runs is in the bag it closes when stopped as a launch stops it (SIGINT)."""
    from std_msgs.msg import String

    from llm_planner_ros.kitchen_domain.paths import config_file

    bag = tmp_path / "bag"
    with ros_graph(tmp_path / "graph") as graph:
        recorder = graph.start_node(
            "plan_recorder", params={"bag_folder": str(bag)}, param_files=[config_file("plan_recorder.yaml")]
        )
        graph.ping("plan_recorder")
        goals = graph.node.create_publisher(String, "/llm_planner/goals", 10)
        wait_until(lambda: goals.get_subscription_count() >= 1, 30, "plan_recorder's subscription")
        sent = [json.dumps({"goal_id": "ab", "event": event}) for event in ("started", "ended")]
        for data in sent:
            goals.publish(String(data=data))
        time.sleep(1.0)
        assert recorder.stop() == 0, recorder.log()
    info = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    with (bag / info["relative_file_paths"][0]).open("rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        kept = [m.data for _s, c, _m, m in reader.iter_decoded_messages() if c.topic == "/llm_planner/goals"]
    assert kept == sent
    assert f"wrote {info['message_count']} messages to {bag}" in recorder.log()

"""`llm-planner record` keeps a running graph's plans as a rosbag2 bag (MCAP) and `llm-planner replay`
reads it back.

The sim graph plans with SayCan replaying a recorded model; the recorder runs beside it as a user starts it
and stops on Ctrl-C (SIGINT). The bag is read with the MCAP ROS 2 decoder (mcap_ros2: its own
``.msg`` parser and CDR reader, not rclpy's), which must find every step the test's own subscription
received, field for field.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
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
    start_replay_planner,
)
from ros_harness import RosGraph, ros_graph, wait_until

from llm_planner_interfaces.msg import PlanStep
from llm_planner_ros.ros.topics import EVENTS_QOS

pytestmark = [pytest.mark.graph, pytest.mark.timeout(300)]

LLM_PLANNER = str(Path(sys.executable).parent / "llm-planner")


@dataclass(frozen=True)
class RecordedFetch:
    """The coke fetch recorded by `llm-planner record`: the bag folder, the steps the test's own subscription
    received meanwhile, and the recorder's output."""

    bag: Path
    published: list[PlanStep]
    output: str


@pytest.fixture(scope="module")
def fetch(tmp_path_factory: pytest.TempPathFactory) -> RecordedFetch:
    tmp_path = tmp_path_factory.mktemp("fetch")
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
    return RecordedFetch(bag, published, output)


def test_a_recorded_plan_reads_back_with_an_independent_decoder_and_replays(
    fetch: RecordedFetch, tmp_path: Path
) -> None:
    bag, published = fetch.bag, fetch.published
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
    assert events[1]["reason"] == "done" and [e["seq"] for e in events] == [1, 2], events
    assert "lost" not in fetch.output, fetch.output

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

    from llm_planner_ros.paths import config_file

    bag = tmp_path / "bag"
    with ros_graph(tmp_path / "graph") as graph:
        recorder = graph.start_node(
            "plan_recorder", params={"bag_folder": str(bag)}, param_files=[config_file("plan_recorder.yaml")]
        )
        graph.ping("plan_recorder")
        goals = graph.node.create_publisher(String, "/llm_planner/goals", EVENTS_QOS)
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


# ----- damaged bags, lost and foreign events ---------------------------------------------------------------
DAMAGED = "is damaged; what is above is all that is intact. Damaged:"


def damaged_copy(fetch: RecordedFetch, tmp_path: Path) -> tuple[Path, Path, bytes]:
    """A copy of the recorded bag folder, its MCAP file, and that file's bytes (to damage)."""
    bag = tmp_path / "bag"
    shutil.copytree(fetch.bag, bag)
    (mcap,) = bag.glob("*.mcap")
    return bag, mcap, mcap.read_bytes()


def first_chunk(data: bytes) -> tuple[int, int]:
    """(offset, length) of the first chunk record, from the MCAP summary as the mcap library reads it."""
    import io

    index = make_reader(io.BytesIO(data)).get_summary().chunk_indexes[0]  # type: ignore[union-attr]
    return index.chunk_start_offset, index.chunk_length


def replay(bag: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LLM_PLANNER, "replay", str(bag)], capture_output=True, text=True, timeout=120)


def test_a_bag_cut_off_after_its_chunk_replays_the_plan_and_names_the_cut(fetch: RecordedFetch, tmp_path: Path) -> None:
    bag, mcap, data = damaged_copy(fetch, tmp_path)
    offset, length = first_chunk(data)
    end = offset + length  # the record after the chunk (its message index) is cut 10 bytes in
    mcap.write_bytes(data[: end + 10])
    replayed = replay(bag)
    assert replayed.returncode == 2, replayed.stdout + replayed.stderr
    assert replayed.stderr == (
        f"llm-planner: error: {bag} {DAMAGED}\n  {mcap} at byte {end}: the file is cut off ({end + 10} bytes) "
        "inside a record; the rest is lost\n"
    )
    assert FETCH_INSTRUCTION in replayed.stdout and "goal ended (done)" in replayed.stdout, replayed.stdout


def test_a_bag_cut_off_inside_its_chunk_names_the_cut(fetch: RecordedFetch, tmp_path: Path) -> None:
    bag, mcap, data = damaged_copy(fetch, tmp_path)
    offset, length = first_chunk(data)
    mcap.write_bytes(data[: offset + length // 2])
    replayed = replay(bag)
    assert (replayed.returncode, replayed.stdout) == (2, ""), replayed.stdout + replayed.stderr
    assert replayed.stderr == (
        f"llm-planner: error: {bag} {DAMAGED}\n  {mcap} at byte {offset}: the file is cut off "
        f"({offset + length // 2} bytes) inside a record; the rest is lost\n"
    )


def test_a_bag_with_4000_bytes_scrambled_in_its_chunk_names_the_chunk(fetch: RecordedFetch, tmp_path: Path) -> None:
    bag, mcap, data = damaged_copy(fetch, tmp_path)
    offset, length = first_chunk(data)
    # The chunk's compressed records begin after its header: opcode, length, start, end, size, crc, "zstd", length.
    records = offset + 9 + 8 + 8 + 8 + 4 + 4 + len("zstd") + 8
    count = min(4000, offset + length - records)
    damaged = bytearray(data)
    damaged[records : records + count] = random.Random(54).randbytes(count)
    mcap.write_bytes(bytes(damaged))
    replayed = replay(bag)
    assert (replayed.returncode, replayed.stdout) == (2, ""), replayed.stdout + replayed.stderr
    expected = (
        rf"llm-planner: error: {re.escape(str(bag))} {re.escape(DAMAGED)}\n  {re.escape(str(mcap))} at byte {offset}: "
        r"chunk \(messages logged \d\d:\d\d:\d\d\.\d{3} to \d\d:\d\d:\d\d\.\d{3}\): "
        r"(its zstd data cannot be decompressed \(.+\)|its data fails the CRC check \(stored 0x[0-9a-f]{8}, read "
        r"0x[0-9a-f]{8}\)); its messages are skipped\n"
    )
    assert re.fullmatch(expected, replayed.stderr), replayed.stderr


def test_a_bag_of_garbage_is_named_not_an_mcap_file(fetch: RecordedFetch, tmp_path: Path) -> None:
    bag, mcap, data = damaged_copy(fetch, tmp_path)
    mcap.write_bytes(random.Random(54).randbytes(len(data)))
    replayed = replay(bag)
    assert (replayed.returncode, replayed.stdout) == (2, ""), replayed.stdout + replayed.stderr
    assert replayed.stderr == (
        f"llm-planner: error: {bag} {DAMAGED}\n  {mcap} at byte 0: not an MCAP file: it does not begin with the "
        "MCAP magic bytes\n"
    )


def test_record_refuses_an_out_folder_it_cannot_write_before_subscribing(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("")
    refused = subprocess.run(
        [LLM_PLANNER, "record", "--out", str(file / "bag")], capture_output=True, text=True, timeout=60
    )
    assert (refused.returncode, refused.stdout) == (2, ""), refused.stdout + refused.stderr
    assert (
        refused.stderr
        == f"llm-planner: error: --out {file / 'bag'}: {file} is a file, not a folder; give another path\n"
    )


def test_lost_and_foreign_goal_events_are_reported_by_record_and_replay(tmp_path: Path) -> None:
    """Seq 3 and 4 never published: `record` says 2 events were lost (exit 1); replay says where, and names
    the messages on the goals topic that are no goal events, instead of ending in a KeyError."""
    from std_msgs.msg import String

    bag = tmp_path / "bag"
    with ros_graph(tmp_path / "graph") as graph:
        process = graph.start_process([LLM_PLANNER, "record", "--out", str(bag)], label="record")
        goals = graph.node.create_publisher(String, "/llm_planner/goals", EVENTS_QOS)
        wait_until(lambda: goals.get_subscription_count() >= 1, 30, "the recorder's goal subscription")
        sent = [
            {"goal_id": "ab", "seq": 1, "event": "started", "instruction": "fetch", "planner": "saycan"},
            {"goal_id": "ab", "seq": 2, "event": "ended", "reason": "done", "message": "ok"},
            "not json",
            {"goal_id": "cd", "event": "started"},
            {"goal_id": "cd", "seq": 5, "event": "started", "instruction": "tidy", "planner": "saycan"},
        ]
        for event in sent:
            goals.publish(String(data=event if isinstance(event, str) else json.dumps(event)))
        time.sleep(1.0)  # what was published has reached the recorder
        code = process.stop()
        output = process.log()
    assert code == 1, output
    assert (
        "2 goal events lost: their seq numbers on llm_planner/goals skip, so the bag lacks them (a planner "
        "publishing with a shallower QoS than topics.EVENTS_QOS, or a recorder that fell behind)"
    ) in output, output

    replayed = replay(bag)
    assert (replayed.returncode, replayed.stderr) == (0, ""), replayed.stdout + replayed.stderr
    lines = replayed.stdout.splitlines()
    foreign = [line for line in lines if "is no goal event" in line]
    assert [re.sub(r"recorded at \S+ UTC", "recorded at T", line) for line in foreign] == [
        "the message on /llm_planner/goals recorded at T is no goal event of the planner: not JSON (Expecting value "
        "at character 0)",
        "the message on /llm_planner/goals recorded at T is no goal event of the planner: a 'started' event without "
        "'instruction', 'planner'",
    ]
    assert "2 goal events missing here (seq jumps to 5)" in lines, lines
    assert "goal ended (done): ok" in lines, lines


def test_a_burst_of_100_goals_is_recorded_without_losing_an_event(tmp_path: Path) -> None:
    """Each goal is started and ended (99 of them at once as busy): 200 goal events in a burst. The planner's
    depth of 10 lost about 15 of them before the recorder took them."""
    from llm_planner_interfaces.action import ExecuteInstruction
    from llm_planner_ros.ros.action_client import RaceFreeActionClient

    recording = record_fetch(tmp_path / "saycan.jsonl")
    bag = tmp_path / "bag"
    with ros_graph(tmp_path / "graph") as graph:
        start_replay_planner(graph, recording, planner="saycan")
        process = graph.start_process([LLM_PLANNER, "record", "--out", str(bag)], label="record")
        wait_until(
            lambda: graph.node.count_subscribers("/llm_planner/goals") >= 1, 30, "the recorder's goal subscription"
        )
        client = RaceFreeActionClient(graph.node, ExecuteInstruction, "/llm_planner/execute_instruction")
        assert client.wait_for_server(timeout_sec=60)
        goal = ExecuteInstruction.Goal(instruction=FETCH_INSTRUCTION, plan_only=True)
        sent = [client.send_goal_async(goal) for _ in range(100)]
        wait_until(lambda: all(future.done() for future in sent), 60, "an answer to each of 100 goals")
        results = [future.result().get_result_async() for future in sent]
        wait_until(lambda: all(future.done() for future in results), 120, "a result for each of 100 goals")
        time.sleep(1.0)  # the last events have reached the recorder
        code = process.stop()
        output = process.log()
    assert code == 0 and "lost" not in output, output
    info = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    with (bag / info["relative_file_paths"][0]).open("rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        seqs = [
            json.loads(m.data)["seq"] for _s, c, _m, m in reader.iter_decoded_messages() if c.topic.endswith("goals")
        ]
    assert sorted(seqs) == list(range(1, 201)), seqs

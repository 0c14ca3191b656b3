"""``llm-planner record`` and ``llm-planner replay``: every plan kept as a rosbag2 bag, and read back.

``record --out DIR`` subscribes to a running graph's plan topics (the goals, each step's candidate table,
the markers, the e-stop, the action's goal statuses, the scene and the robot-state record; the head camera
with ``--camera``) and writes them to the bag folder DIR until Ctrl-C or SIGTERM, then closes it. The
folder opens in ``ros2 bag info`` / ``play`` and Foxglove; ``--out`` is checked before anything is subscribed,
and goal events that never arrived (gaps in their ``seq``) are reported at the end (exit 1). ``replay BAG``
prints each goal with its steps' tables, and with ``--plot`` draws the decision chart of the last goal; of a
damaged bag it replays what is intact and then names each damaged part (exit 2), and a message on the goals
topic that is no goal event of the planner is reported where it lies.
"""

from __future__ import annotations

import argparse
from typing import Any

import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.serialization import deserialize_message
from rich.console import Console
from rich.markup import escape
from std_msgs.msg import String

from llm_planner_interfaces.msg import PlanStep
from llm_planner_ros.cli.interrupts import INTERRUPTING_SIGNALS
from llm_planner_ros.cli.output_paths import check_output_folder
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.recording.bag import BagWriter
from llm_planner_ros.recording.bag_reader import BagMessage, BagReadError, Damage, clock_time, read_messages
from llm_planner_ros.recording.goal_events import ForeignEventError, GoalEvent, SequenceGaps, parse_goal_event
from llm_planner_ros.ros.background_spin import BackgroundSpin
from llm_planner_ros.ros.bag_recorder import BagRecorder, recorded_topics
from llm_planner_ros.ros.conversions import record_from_msg
from llm_planner_ros.ros.stop_request import StopRequest
from llm_planner_ros.ros.topics import GOALS_TOPIC, SCORES_TOPIC
from llm_planner_ros.visualization.decision_chart import write_decision_chart
from llm_planner_ros.visualization.score_table import step_table

RECORD_POLL_S = 0.2
GOALS_TYPE = "std_msgs/msg/String"
SCORES_TYPE = "llm_planner_interfaces/msg/PlanStep"


def run(args: argparse.Namespace) -> int:
    return record(args) if args.command == "record" else replay(args)


def record(args: argparse.Namespace) -> int:
    console = Console()
    # Before any subscription: a folder that cannot hold the bag is said at once, not as a traceback.
    check_output_folder(args.out, "--out")
    stop = StopRequest()
    # Installed before rclpy.init, which chains to these: a signal only sets the flag the loop below reads.
    stop.install(INTERRUPTING_SIGNALS)
    writer = BagWriter(args.out)
    context = Context()
    rclpy.init(context=context)
    node = rclpy.create_node("llm_planner_recorder", namespace=args.namespace or None, context=context)
    recorder = BagRecorder(node, writer, recorded_topics(args.robot_state_topic, args.camera))
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    spin = BackgroundSpin(executor, context).start()
    console.print(f"recording {', '.join(recorder.topics)} to {args.out} (Ctrl-C stops)")
    while not stop.wait(RECORD_POLL_S):
        pass
    spin.stop()
    executor.shutdown(timeout_sec=2)
    node.destroy_node()
    rclpy.shutdown(context=context)
    writer.close()
    console.print(f"wrote {writer.message_count} messages to {args.out}")
    if (lost := recorder.lost_report()) is not None:
        console.print(f"[bold red]{escape(lost)}[/]", soft_wrap=True)
        return 1
    return 0


def replay(args: argparse.Namespace) -> int:
    console = Console()
    damage: list[Damage] = []
    gaps = SequenceGaps()
    goals: list[tuple[GoalEvent, dict[int, StepRecord]]] = []
    for message in read_messages(args.bag, damage=damage):
        if message.topic.endswith(f"/{GOALS_TOPIC}"):
            try:
                event = _goal_event(message)
            except ForeignEventError as error:
                console.print(escape(f"{_foreign(message)} is no goal event of the planner: {error}"), soft_wrap=True)
                continue
            if missing := gaps.see(event.seq):
                console.print(
                    f"[bold red]{missing} goal events missing here (seq jumps to {event.seq})[/]", soft_wrap=True
                )
            if event.event == "started":
                goals.append((event, {}))
                console.rule(f"[bold]{escape(str(event['instruction']))}[/bold] ({escape(str(event['planner']))})")
            else:
                console.print(escape(f"goal ended ({event['reason']}): {event['message']}"))
        elif message.topic.endswith(f"/{SCORES_TOPIC}") and goals:
            try:
                step = record_from_msg(_decode(message, PlanStep, SCORES_TYPE))
            except ForeignEventError as error:
                console.print(escape(f"{_foreign(message)} is no step of the planner: {error}"), soft_wrap=True)
                continue
            steps = goals[-1][1]
            steps[step.index] = step
            if step.status.name not in ("PLANNED", "RUNNING"):
                console.print(step_table(step))
    if goals and args.plot:
        event, steps = goals[-1]
        ordered = [steps[index] for index in sorted(steps)]
        console.print(f"decision chart: {write_decision_chart(ordered, args.plot, str(event['instruction']))}")
    if damage:
        parts = "".join(f"\n  {part}" for part in damage)
        raise BagReadError(f"{args.bag} is damaged; what is above is all that is intact. Damaged:{parts}")
    if not goals:
        console.print(f"no goal in {args.bag}")
        return 1
    return 0


def _goal_event(message: BagMessage) -> GoalEvent:
    """The goal event a message of the goals topic holds; ForeignEventError when it holds none."""
    return parse_goal_event(_decode(message, String, GOALS_TYPE).data)


def _decode(message: BagMessage, message_type: Any, type_name: str) -> Any:
    """``message``'s CDR bytes as ``message_type`` (named ``type_name``); ForeignEventError when the bag
    recorded another type on the topic, or bytes that are no such message."""
    if message.type_name != type_name:
        raise ForeignEventError(f"of type {message.type_name or 'unknown'}, not {type_name}")
    try:
        return deserialize_message(message.data, message_type)
    except (RuntimeError, UnicodeDecodeError) as error:  # rclpy's RMWError: the CDR bytes do not parse
        raise ForeignEventError(f"its bytes are no {type_name} ({error})") from error


def _foreign(message: BagMessage) -> str:
    """A message for a report: its topic and when it was recorded."""
    return f"the message on {message.topic} recorded at {clock_time(message.log_time_ns)} UTC"

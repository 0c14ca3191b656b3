"""``llm-planner record`` and ``llm-planner replay``: every plan kept as a rosbag2 bag, and read back.

``record --out DIR`` subscribes to a running graph's plan topics (the goals, each step's candidate table,
the markers, the e-stop, the action's goal statuses, the scene and the robot-state record; the head camera
with ``--camera``) and writes them to the bag folder DIR until Ctrl-C or SIGTERM, then closes it. The
folder opens in ``ros2 bag info`` / ``play`` and Foxglove. ``replay BAG`` prints each goal with its steps'
tables, and with ``--plot`` draws the decision chart of the last goal.
"""

from __future__ import annotations

import argparse
import json

import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.serialization import deserialize_message
from rich.console import Console
from std_msgs.msg import String

from llm_planner_interfaces.msg import PlanStep
from llm_planner_ros.cli.interrupts import INTERRUPTING_SIGNALS
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.recording.bag import BagWriter
from llm_planner_ros.recording.bag_reader import read_messages
from llm_planner_ros.ros.background_spin import BackgroundSpin
from llm_planner_ros.ros.bag_recorder import BagRecorder, recorded_topics
from llm_planner_ros.ros.conversions import record_from_msg
from llm_planner_ros.ros.stop_request import StopRequest
from llm_planner_ros.ros.topics import GOALS_TOPIC, SCORES_TOPIC
from llm_planner_ros.visualization.decision_chart import write_decision_chart
from llm_planner_ros.visualization.score_table import step_table

RECORD_POLL_S = 0.2


def run(args: argparse.Namespace) -> int:
    return record(args) if args.command == "record" else replay(args)


def record(args: argparse.Namespace) -> int:
    console = Console()
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
    return 0


def replay(args: argparse.Namespace) -> int:
    console = Console()
    goals: list[tuple[dict[str, object], dict[int, StepRecord]]] = []
    for message in read_messages(args.bag):
        if message.topic.endswith(f"/{GOALS_TOPIC}"):
            event = json.loads(deserialize_message(message.data, String).data)
            if event["event"] == "started":
                goals.append((event, {}))
                console.rule(f"[bold]{event['instruction']}[/bold] ({event['planner']})")
            else:
                console.print(f"goal ended ({event['reason']}): {event['message']}")
        elif message.topic.endswith(f"/{SCORES_TOPIC}") and goals:
            step = record_from_msg(deserialize_message(message.data, PlanStep))
            steps = goals[-1][1]
            steps[step.index] = step
            if step.status.name not in ("PLANNED", "RUNNING"):
                console.print(step_table(step))
    if not goals:
        console.print(f"no goal in {args.bag}")
        return 1
    if args.plot:
        event, steps = goals[-1]
        ordered = [steps[index] for index in sorted(steps)]
        console.print(f"decision chart: {write_decision_chart(ordered, args.plot, str(event['instruction']))}")
    return 0

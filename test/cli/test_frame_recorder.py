"""`demo --record`'s frame recorder over a real topic: it waits for the camera's first frame before the
run, and keeps recording after the simulator's clock restarts (a scene load sets it back to 0 s)."""

from __future__ import annotations

import time

from builtin_interfaces.msg import Time
from ros_harness import RosGraph, publish_until, wait_until
from sensor_msgs.msg import Image

from llm_planner_ros.cli.frame_recorder import FrameRecorder

TOPIC = "camera/color/image_raw"


def frame(stamp_s: float) -> Image:
    nanoseconds = int(round(stamp_s * 1e9))
    msg = Image(height=2, width=2, encoding="rgb8", step=6, data=bytes(range(12)))
    msg.header.stamp = Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)
    return msg


def test_the_recorder_waits_for_the_first_frame_and_records_on_after_the_clock_restarts(ros_graph: RosGraph) -> None:
    recorder = FrameRecorder(ros_graph.node, TOPIC)
    assert not recorder.wait_for_frame(0.2)
    publisher = ros_graph.node.create_publisher(Image, TOPIC, 10)
    publish_until(publisher, frame(30.0), lambda: recorder.count == 1, "the first frame")
    assert recorder.wait_for_frame(0.0)
    # 30.5 s is within a second of the kept frame; then the clock restarts at 0 s. The 10 s frame is
    # the last one kept; a wrongly kept frame would show as a sixth once it has arrived.
    for stamp in (30.5, 0.0, 0.5, 1.0, 2.0, 10.0):
        publisher.publish(frame(stamp))
    wait_until(lambda: recorder.count >= 5, 10.0, "the frames at 0, 1, 2 and 10 s after the restart")
    time.sleep(0.5)
    assert recorder.count == 5

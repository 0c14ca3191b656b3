"""``llm-planner demo --record DIR``: keep frames of a camera topic while an instruction runs and write them
as PNGs plus one strip image (``strip.png``, frames side by side in time order)."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np
from rclpy.node import Node
from sensor_msgs.msg import Image

# Frames the strip shows at most (evenly spaced over the run): wider strips are unreadable.
STRIP_FRAMES = 10


class FrameRecorder:
    """Subscribes ``node`` to an rgb8 ``topic`` and keeps one frame per ``every_s`` seconds of the frames'
    own stamps (the simulated clock of physics_sim), so the record does not depend on how fast the
    machine ran. A stamp before the last kept one is a restarted clock (the simulator loaded a scene):
    its frame is kept and the count starts again from it."""

    def __init__(self, node: Node, topic: str, every_s: float = 1.0) -> None:
        self.topic = node.resolve_topic_name(topic)
        self._every_s = every_s
        self._frames: list[np.ndarray] = []
        self._last_s: float | None = None
        self._lock = threading.Lock()
        self._first = threading.Event()
        node.create_subscription(Image, topic, self._on_image, 5)

    def wait_for_frame(self, timeout_s: float) -> bool:
        """Block until the first frame is kept (False after ``timeout_s``). Call it before the run starts:
        a new subscription receives nothing until discovery has matched it with the camera's publisher,
        which takes seconds on a loaded machine, while a simulation faster than real time can run most
        of a plan's simulated seconds in that time, and their frames would be lost."""
        return self._first.wait(timeout_s)

    def _on_image(self, msg: Image) -> None:
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        if msg.encoding != "rgb8" or (self._last_s is not None and 0.0 <= stamp - self._last_s < self._every_s):
            return
        pixels = np.frombuffer(bytes(msg.data), dtype=np.uint8).reshape(msg.height, msg.step)
        frame = pixels[:, : msg.width * 3].reshape(msg.height, msg.width, 3).copy()
        with self._lock:
            self._frames.append(frame)
            self._last_s = stamp
        self._first.set()

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._frames)

    def write(self, folder: Path) -> Path | None:
        """Write ``frame_NNN.png`` for every kept frame and ``strip.png``; the strip's path, None when no
        frame arrived."""
        with self._lock:
            frames = list(self._frames)
        if not frames:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        for index, frame in enumerate(frames):
            cv2.imwrite(str(folder / f"frame_{index:03d}.png"), cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
        chosen = np.linspace(0, len(frames) - 1, min(STRIP_FRAMES, len(frames))).round().astype(int)
        strip = np.hstack([frames[i] for i in sorted(set(chosen.tolist()))])
        path = folder / "strip.png"
        cv2.imwrite(str(path), cv2.cvtColor(strip, cv2.COLOR_RGB2BGR))
        return path

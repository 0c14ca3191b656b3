"""One frame through the whole perception: detect, lift to 3D, assign a place, track.

``ScenePerception.process`` is what the node calls per RGB-D frame and what the benchmark times.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from llm_planner_ros.perception.detection import Detection, Detector, View
from llm_planner_ros.perception.lifting import LiftConfig, Lifted, lift
from llm_planner_ros.perception.places import PlaceAssigner
from llm_planner_ros.perception.tracking import Observation, Track, Tracker, TrackerConfig


@dataclass(frozen=True)
class PerceptionConfig:
    """``min_score``: detections scoring less are dropped; ``max_extent``: lifted objects wider (m) are
    not objects (a wall, a table edge); ``lift``, ``tracker``: their stages' settings."""

    min_score: float = 0.3
    max_extent: float = 0.5
    lift: LiftConfig = field(default_factory=LiftConfig)
    tracker: TrackerConfig = field(default_factory=TrackerConfig)


@dataclass(frozen=True)
class FrameResult:
    """What one frame gave: the kept detections, those lifted to 3D, the tracks after it, and seconds
    spent detecting and in the whole frame."""

    detections: list[Detection]
    lifted: list[Lifted]
    tracks: list[Track]
    detect_s: float
    total_s: float


class ScenePerception:
    """Detector + lifting + place assignment + tracker for one camera stream."""

    def __init__(self, detector: Detector, places: PlaceAssigner, config: PerceptionConfig) -> None:
        self.detector = detector
        self._places = places
        self._config = config
        self._tracker = Tracker(config.tracker)

    def process(
        self,
        view: View,
        queries: Sequence[str],
        stamp_s: float,
        may_start: Callable[[Observation], bool] | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> FrameResult:
        """Run one frame; ``queries`` are the texts to label regions with (labels are these texts, or the
        label ``aliases`` maps a query to: a synonym's detections are tracked under its label);
        ``may_start``: which unmatched observations start a track (None: all; ``Tracker.update``)."""
        aliases = aliases or {}
        started = time.perf_counter()
        detections = [d for d in self.detector.detect(view, queries) if d.score >= self._config.min_score]
        detected = time.perf_counter()
        lifted = []
        for detection in detections:
            result = lift(detection, view.depth, view.intrinsics, view.camera, self._config.lift)
            if result is not None and float(result.extent.max()) <= self._config.max_extent:
                lifted.append(result)
        observations = [
            Observation(
                aliases.get(item.detection.label, item.detection.label),
                item.detection.score,
                item.centre,
                item.extent,
                self._places.assign(item.centre),
            )
            for item in lifted
        ]
        tracks = self._tracker.update(observations, stamp_s, lambda centre: in_view(view, centre), may_start)
        return FrameResult(detections, lifted, tracks, detected - started, time.perf_counter() - started)

    def tracks(self) -> list[Track]:
        return self._tracker.tracks()

    def clear(self) -> int:
        """Forget every track (a world reset); returns how many were reported before."""
        reported = len(self._tracker.tracks())
        self._tracker.clear()
        return reported

    def put_down(self, object_id: str, label: str, xy: Sequence[float], radius_m: float, known: set[str]) -> bool:
        """The robot at ``xy`` put down the object it knew as ``object_id``: the first track of ``label``
        within ``radius_m`` that is not one of the ids ``known`` before takes that id; False while none."""
        for track in self._tracker.tracks():
            near = float(np.linalg.norm(track.centre[:2] - np.asarray(xy, dtype=float))) <= radius_m
            if track.label == label and near and track.id not in known:
                return self._tracker.rename(track.id, object_id)
        return False

    def picked_up(self, label: str, xy: Sequence[float], radius_m: float) -> Track | None:
        """The robot at ``xy`` picked up an object of ``label``: its track leaves the scene
        (``Tracker.drop_nearest``)."""
        return self._tracker.drop_nearest(label, xy, radius_m)


def in_view(view: View, centre: np.ndarray, tolerance: float = 0.05) -> bool:
    """Whether the camera sees the map point ``centre``: in front, inside the image, and not hidden
    behind something nearer (the depth there is not ``tolerance`` m shorter)."""
    point = (np.asarray(centre, dtype=float) - view.camera.translation) @ view.camera.rotation
    if point[2] <= 0.05:
        return False
    k = view.intrinsics
    u, v = int(round(k.fx * point[0] / point[2] + k.cx)), int(round(k.fy * point[1] / point[2] + k.cy))
    if not (0 <= u < k.width and 0 <= v < k.height):
        return False
    depth = float(view.depth[v, u])
    return not (np.isfinite(depth) and depth > 0 and depth < point[2] - tolerance)

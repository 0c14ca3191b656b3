"""The camera's recent poses by stamp, so each frame is lifted with the pose it was taken from.

A moving camera (the head turning during a look around, the base driving) publishes its pose beside every
frame. Lifting a frame with the newest pose instead of the frame's own puts every object where the camera
looked one frame later: under load the colour image can be one frame ahead of (or behind) the pose, and
the object is seen a few decimetres off and starts a second track.
"""

from __future__ import annotations

from collections import deque

from llm_planner_ros.perception.geometry import Transform


class PoseHistory:
    """The last ``size`` stamped camera poses; ``at(stamp)`` is the one nearest a frame's stamp.

    Outcomes of ``at``: the pose within ``slop_s`` of the stamp (the nearest one when several are);
    ``None`` when none is that close, either because the frame's pose has not arrived yet (retry on a
    later tick) or because the pose topic does not publish per frame.
    """

    def __init__(self, size: int = 50) -> None:
        if size < 1:
            raise ValueError(f"a pose history keeps at least one pose, not {size}")
        self._poses: deque[tuple[float, Transform]] = deque(maxlen=size)

    def add(self, stamp: float, pose: Transform) -> None:
        """Keeps ``pose``; a stamp older than the newest is a jump back in time (a restarted simulator, a
        replayed bag), after which the poses kept before it no longer belong to these stamps."""
        if self._poses and stamp < self._poses[-1][0]:
            self._poses.clear()
        self._poses.append((stamp, pose))

    def at(self, stamp: float, slop_s: float) -> Transform | None:
        if not self._poses:
            return None
        gap, pose = min(((abs(t - stamp), p) for t, p in self._poses), key=lambda item: item[0])
        return pose if gap <= slop_s else None

    def newest_stamp(self) -> float | None:
        return self._poses[-1][0] if self._poses else None

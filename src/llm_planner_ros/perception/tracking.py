"""Objects tracked across frames: stable ids, smoothed position, confidence and when last seen.

Each frame's observations are matched to tracks greedily by map distance within ``gate_m`` (a label
disagreement costs half a gate, so two nearby objects keep their own tracks). A matched track moves
toward the observation and votes for its label; an unmatched observation starts a track with a new id
(``<label>_<n>``, never reused); a track in view but not detected loses confidence and goes when it
falls below ``drop_below`` or was not seen for ``forget_after_s``. An object the robot picks up leaves
the scene (``drop_nearest``), and while held it starts no track (``may_start``): the held object is the
robot's to report, and one seen in the gripper would otherwise be left behind at the place. An object
the robot puts down gets back the id the robot knew it by (``rename``), so a pick and put down leave its
id as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Observation:
    """One lifted detection of a frame: label, score in [0, 1], centre and extent (m, map frame), place."""

    label: str
    score: float
    centre: np.ndarray
    extent: np.ndarray
    place: str


@dataclass
class Track:
    """A tracked object; ``label`` is the label with the most accumulated score."""

    id: str
    label: str
    confidence: float
    centre: np.ndarray
    extent: np.ndarray
    place: str
    first_seen: float
    last_seen: float
    hits: int = 1
    votes: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class TrackerConfig:
    """``gate_m``: farthest match (m); ``smoothing``: weight of a new observation in the position and
    confidence averages; ``miss_decay``: confidence factor per frame a visible track is missed;
    ``drop_below``, ``forget_after_s``: when a track goes; ``min_hits``: detections before it is reported."""

    gate_m: float = 0.12
    smoothing: float = 0.5
    miss_decay: float = 0.6
    drop_below: float = 0.1
    forget_after_s: float = 60.0
    min_hits: int = 1


class Tracker:
    """Keeps the tracks of one scene; ``update`` once per frame, in stamp order."""

    def __init__(self, config: TrackerConfig) -> None:
        self._config = config
        self._tracks: list[Track] = []
        self._issued: dict[str, int] = {}

    def update(
        self,
        observations: Sequence[Observation],
        stamp_s: float,
        in_view: Callable[[np.ndarray], bool] | None = None,
        may_start: Callable[[Observation], bool] | None = None,
    ) -> list[Track]:
        """Tracks after this frame's ``observations`` (``in_view(centre)``: whether the camera should have
        seen a track there; None: every track was in view; ``may_start(observation)``: whether an
        unmatched observation starts a track; None: every one does). Returns the reported tracks."""
        config = self._config
        pairs = sorted(
            (self._cost(track, obs), t, o)
            for t, track in enumerate(self._tracks)
            for o, obs in enumerate(observations)
            if np.linalg.norm(track.centre[:2] - obs.centre[:2]) <= config.gate_m
        )
        matched_tracks: set[int] = set()
        matched_obs: set[int] = set()
        for _, t, o in pairs:
            if t in matched_tracks or o in matched_obs:
                continue
            matched_tracks.add(t)
            matched_obs.add(o)
            self._merge(self._tracks[t], observations[o], stamp_s)
        for t, track in enumerate(self._tracks):
            if t not in matched_tracks and (in_view is None or in_view(track.centre)):
                track.confidence *= config.miss_decay
        for o, obs in enumerate(observations):
            if o not in matched_obs and (may_start is None or may_start(obs)):
                self._tracks.append(self._start(obs, stamp_s))
        self._tracks = [
            track
            for track in self._tracks
            if track.confidence >= config.drop_below and stamp_s - track.last_seen <= config.forget_after_s
        ]
        return self.tracks()

    def tracks(self) -> list[Track]:
        """The tracks detected at least ``min_hits`` times, in id order."""
        return sorted((t for t in self._tracks if t.hits >= self._config.min_hits), key=lambda t: t.id)

    def drop_nearest(self, label: str, xy: Sequence[float], radius_m: float) -> Track | None:
        """Remove the track of ``label`` nearest to the map point ``xy`` within ``radius_m`` (an object
        picked up there); the removed track, or None when there is none."""
        near = [
            (float(np.linalg.norm(t.centre[:2] - np.asarray(xy, dtype=float))), i)
            for i, t in enumerate(self._tracks)
            if t.label == label
        ]
        near = [(distance, i) for distance, i in near if distance <= radius_m]
        if not near:
            return None
        return self._tracks.pop(min(near)[1])

    def rename(self, track_id: str, new_id: str) -> bool:
        """Give the track ``track_id`` the id ``new_id`` (an object put down, known by the robot's id);
        False when no track has ``track_id`` or another track already has ``new_id``."""
        if any(t.id == new_id for t in self._tracks):
            return False
        track = next((t for t in self._tracks if t.id == track_id), None)
        if track is None:
            return False
        track.id = new_id
        return True

    def clear(self) -> None:
        """Forget every track (ids already issued stay used)."""
        self._tracks = []

    def _cost(self, track: Track, obs: Observation) -> float:
        distance = float(np.linalg.norm(track.centre - obs.centre))
        return distance + (0.0 if track.label == obs.label else self._config.gate_m / 2.0)

    def _merge(self, track: Track, obs: Observation, stamp_s: float) -> None:
        alpha = self._config.smoothing
        track.centre = (1 - alpha) * track.centre + alpha * obs.centre
        track.extent = (1 - alpha) * track.extent + alpha * obs.extent
        track.confidence = (1 - alpha) * track.confidence + alpha * obs.score
        track.votes[obs.label] = track.votes.get(obs.label, 0.0) + obs.score
        track.label = max(track.votes, key=lambda label: track.votes[label])
        track.place = obs.place
        track.last_seen = stamp_s
        track.hits += 1

    def _start(self, obs: Observation, stamp_s: float) -> Track:
        key = obs.label.replace(" ", "_")
        self._issued[key] = self._issued.get(key, 0) + 1
        return Track(
            id=f"{key}_{self._issued[key]}",
            label=obs.label,
            confidence=obs.score,
            centre=np.asarray(obs.centre, dtype=float),
            extent=np.asarray(obs.extent, dtype=float),
            place=obs.place,
            first_seen=stamp_s,
            last_seen=stamp_s,
            votes={obs.label: obs.score},
        )

"""Tracking across frames: stable ids, confidence, last seen, forgetting."""

from __future__ import annotations

import numpy as np

from llm_planner_ros.perception.tracking import Observation, Tracker, TrackerConfig


def _obs(label: str, x: float, y: float, score: float = 0.8) -> Observation:
    return Observation(label, score, np.array([x, y, 0.9]), np.array([0.07, 0.07, 0.12]), "table")


def test_ids_stay_stable_while_objects_jitter_and_new_objects_get_new_ids() -> None:
    tracker = Tracker(TrackerConfig())
    rng = np.random.default_rng(0)
    for frame in range(10):
        noise = rng.normal(0, 0.01, 4)
        tracks = tracker.update(
            [_obs("coke", 1 + noise[0], 2 + noise[1]), _obs("coke", 1.3 + noise[2], 2 + noise[3])], frame
        )
        assert [t.id for t in tracks] == ["coke_1", "coke_2"]
    tracks = tracker.update([_obs("coke", 1.0, 2.0), _obs("coke", 1.3, 2.0), _obs("sponge", 2.0, 2.0)], 10.0)
    assert [t.id for t in tracks] == ["coke_1", "coke_2", "sponge_1"]
    assert tracks[0].hits == 11 and tracks[0].last_seen == 10.0 and tracks[0].first_seen == 0.0


def test_a_flickering_label_is_decided_by_the_votes() -> None:
    tracker = Tracker(TrackerConfig())
    for frame, label in enumerate(["coke", "pepsi", "coke", "coke"]):
        tracks = tracker.update([_obs(label, 1.0, 2.0)], frame)
    assert [(t.id, t.label) for t in tracks] == [("coke_1", "coke")]


def test_a_track_missed_in_view_fades_out_but_one_out_of_view_stays() -> None:
    tracker = Tracker(TrackerConfig(miss_decay=0.5, drop_below=0.1))
    tracker.update([_obs("coke", 1.0, 2.0, 0.8), _obs("apple", 3.0, 2.0, 0.8)], 0.0)
    seen = lambda centre: centre[0] < 2.0  # noqa: E731 - the camera sees only x < 2
    confidences = []
    for frame in range(1, 5):
        tracks = tracker.update([], frame, seen)
        confidences.append({t.label: t.confidence for t in tracks})
    assert confidences[0]["coke"] == 0.4 and confidences[1]["coke"] == 0.2
    assert "coke" not in confidences[-1]
    assert confidences[-1]["apple"] == 0.8


def test_tracks_are_forgotten_after_the_timeout_and_ids_never_reused() -> None:
    tracker = Tracker(TrackerConfig(forget_after_s=5.0))
    tracker.update([_obs("coke", 1.0, 2.0)], 0.0)
    assert tracker.update([], 6.0, lambda _: False) == []
    assert [t.id for t in tracker.update([_obs("coke", 1.0, 2.0)], 7.0)] == ["coke_2"]

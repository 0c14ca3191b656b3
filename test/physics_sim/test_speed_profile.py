"""The arm controller's speed profile: it starts and ends at rest, never exceeds its speed or its
acceleration, and covers the whole path."""

from __future__ import annotations

import pytest

from llm_planner_ros.physics_sim.motions import SpeedProfile

DT = 1.0 / 1000.0


@pytest.mark.parametrize("length", [0.0, 0.05, 0.25, 1.0, 3.0])
def test_the_profile_covers_the_path_within_its_speed_and_acceleration(length: float) -> None:
    profile = SpeedProfile(length, speed=1.0, acceleration=4.0)
    steps = int(profile.duration / DT) + 2
    distances = [profile.distance(min(i * DT, profile.duration)) for i in range(steps)]
    speeds = [(b - a) / DT for a, b in zip(distances, distances[1:], strict=False)]
    assert distances[0] == 0.0 and distances[-1] == pytest.approx(length, abs=1e-9)
    assert all(0.0 <= v <= 1.0 + 1e-6 for v in speeds)
    assert all(abs(b - a) / DT <= 4.0 + 1e-3 for a, b in zip(speeds, speeds[1:], strict=False))
    assert speeds[0] < 0.01 and speeds[-1] < 0.01  # at rest at both ends


def test_a_long_path_cruises_at_its_speed_after_one_ramp() -> None:
    profile = SpeedProfile(3.0, speed=1.0, acceleration=4.0)
    assert profile.duration == pytest.approx(3.0 / 1.0 + 1.0 / 4.0)
    assert profile.distance(1.0) - profile.distance(0.9) == pytest.approx(0.1)

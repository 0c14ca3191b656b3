"""PoseHistory: a frame's camera pose found by its stamp, not the newest pose."""

from __future__ import annotations

import numpy as np
import pytest

from llm_planner_ros.perception.geometry import Transform
from llm_planner_ros.perception.pose_history import PoseHistory


def _at_x(x: float) -> Transform:
    return Transform(np.eye(3), np.array([x, 0.0, 1.5]))


def _x(pose: Transform | None) -> float:
    assert pose is not None
    return float(pose.translation[0])


def test_a_frame_gets_the_pose_of_its_own_stamp_even_when_a_newer_one_came() -> None:
    history = PoseHistory()
    for i in range(5):
        history.add(10.0 + 0.2 * i, _at_x(float(i)))
    assert _x(history.at(10.4, 0.05)) == 2.0
    assert _x(history.at(10.43, 0.05)) == 2.0, "the nearest within the slop"
    assert history.at(10.5, 0.05) is None, "between two poses, farther than the slop from both"
    assert history.at(11.5, 0.05) is None, "the frame's pose has not arrived yet"
    assert history.newest_stamp() == pytest.approx(10.8)


def test_old_poses_fall_out_and_a_jump_back_in_time_forgets_the_rest() -> None:
    history = PoseHistory(size=3)
    for i in range(5):
        history.add(float(i), _at_x(float(i)))
    assert history.at(0.0, 0.1) is None and _x(history.at(2.0, 0.1)) == 2.0
    history.add(1.0, _at_x(-1.0))  # a restarted simulator: stamp 1 again, another pose
    assert _x(history.at(1.0, 0.1)) == -1.0 and history.at(4.0, 0.1) is None
    assert history.newest_stamp() == 1.0 and PoseHistory().newest_stamp() is None
    with pytest.raises(ValueError, match="at least one pose"):
        PoseHistory(size=0)

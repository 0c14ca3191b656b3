"""Rollouts observed through the head camera and perception's pipeline (llm_planner_ros.value_functions.perceived):
what the physics graph's robot sees, and its picks planned from that as the moveit executor plans them."""

from __future__ import annotations

import base64
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from llm_planner_ros.cli.main import run_command
from llm_planner_ros.perception.backends import BackendOptions, make_detector
from llm_planner_ros.perception.detection import Detector
from llm_planner_ros.physics_sim import PhysicsKitchen
from llm_planner_ros.physics_sim.scripted import ScriptedSkills
from llm_planner_ros.value_functions.collector import (
    PERCEPTION,
    SHARED_LOCALIZATION,
    SIMULATED,
    RolloutCollector,
    collect,
    load_rollouts,
    shifted,
)
from llm_planner_ros.value_functions.perceived import CROP_PX, HeadCameraPerception, Seen, SeenObject, perceived_pick
from llm_planner_ros.value_functions.relocalize import RelocalizeError, relocalize

LLM_PLANNER = str(Path(sys.executable).parent / "llm-planner")


@pytest.fixture(scope="module")
def detector() -> Detector:
    return make_detector("embedded", BackendOptions())


@pytest.fixture
def sim() -> Iterator[PhysicsKitchen]:
    # sp-01: the robot at the table, an energy bar and an apple on it, a coke on the far counter.
    sim = PhysicsKitchen.from_files(episode_file="domains/saycan_kitchen/dev.yaml", episode_id="sp-01")
    yield sim
    sim.close()


@pytest.fixture
def camera(sim: PhysicsKitchen, detector: Detector) -> HeadCameraPerception:
    return HeadCameraPerception(sim, detector)


def test_the_head_camera_reports_the_objects_in_front_where_they_are(
    sim: PhysicsKitchen, camera: HeadCameraPerception
) -> None:
    seen = camera.look()
    truth = {o.label: o for o in sim.truth().objects}
    reported = {o.perceived.label: o for o in seen.objects}
    # What is on the table in front of the robot; the coke on the far counter is out of view.
    assert {"energy bar", "apple"} <= set(reported) and "coke" not in reported
    for label in ("energy bar", "apple"):
        perceived = reported[label].perceived
        assert perceived.location == "table"
        assert math.dist(perceived.position[:2], truth[label].position[:2]) < 0.04
    # As /scene/objects reads to the executor: the map frame, the height from the perceived size.
    scene = {o.label: o for o in seen.scene()}
    assert scene["apple"].pose.frame == sim.kitchen.config.frame_id
    assert scene["apple"].height == pytest.approx(reported["apple"].perceived.size[2])


def test_a_perceived_pick_holds_the_object_and_keeps_its_crop(
    sim: PhysicsKitchen, camera: HeadCameraPerception
) -> None:
    run, crop = perceived_pick(ScriptedSkills(sim), camera.look(), "energy bar", "table")
    assert run.success, run.message
    assert sim.built.labels[sim.holding()] == "energy bar"
    image = cv2.imdecode(np.frombuffer(base64.b64decode(crop), np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (CROP_PX, CROP_PX, 3) and image.std() > 5  # an object, not a blank


def test_a_pick_planned_off_the_object_fails_as_on_the_graph(sim: PhysicsKitchen, camera: HeadCameraPerception) -> None:
    seen = camera.look()

    # The apple perceived 4 cm to the side, across the base's heading (the robot faces +y at the table):
    # the fingers come down onto it, the graph's approach failure.
    def aside(o: SeenObject) -> SeenObject:
        x, y, z = o.perceived.position
        return (
            replace(o, perceived=replace(o.perceived, position=(x + 0.04, y, z))) if o.perceived.label == "apple" else o
        )

    shifted = tuple(aside(o) for o in seen.objects)
    run, _ = perceived_pick(ScriptedSkills(sim), Seen(shifted, seen.rgb, seen.frame_id), "apple", "table")
    assert not run.success and sim.holding() is None
    assert "pick up the apple (approach): in_collision" in run.message, run.message
    # A label perception does not report: no motion at all, the executor's own refusal.
    run, crop = perceived_pick(ScriptedSkills(sim), seen, "coke", "table")
    assert not run.success and run.primitives == 0 and crop == ""
    assert "perception reports no coke to pick" in run.message


@pytest.mark.timeout(240)
def test_the_collector_command_records_perceived_picks_and_keeps_its_observer(tmp_path: Path) -> None:
    out = tmp_path / "perceived.jsonl"
    command = [LLM_PLANNER, "collect", "value-functions", "--out", str(out),
               "--count", "6", "--seed", "3", "--cycle", "pick", "--observe", PERCEPTION]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=200)
    assert done.returncode == 0, done.stderr
    assert "6/6 this run" in done.stdout
    rollouts = load_rollouts(out)
    assert [r.index for r in rollouts] == list(range(6))
    assert {r.family for r in rollouts} == {"pick"} and {r.observed_by for r in rollouts} == {PERCEPTION}
    # A pick that moved has the crop of what it aimed at; one perception gave nothing to aim at has none.
    for r in rollouts:
        assert bool(r.crop) != r.message.startswith("perception reports no"), r.message
    with pytest.raises(SystemExit, match="observed otherwise"):
        collect(out, 8, seed=3, resume=True, cycle="pick", observed_by=SIMULATED)
    refused = subprocess.run(
        [*command[:-4], "--cycle", "default", "--observe", PERCEPTION], capture_output=True, text=True
    )
    assert refused.returncode != 0 and "runs the pick family only" in refused.stderr


def test_a_rollout_line_with_an_unknown_observer_is_refused_naming_the_line(tmp_path: Path) -> None:
    out = tmp_path / "rollouts.jsonl"
    collect(out, 1, seed=3, resume=False, cycle="pick")
    line = json.loads(out.read_text())
    assert "observed_by" not in line  # simulated rollouts keep the format they had
    out.write_text(out.read_text() + json.dumps({**line, "index": 1, "observed_by": "lidar"}) + "\n")
    with pytest.raises(ValueError, match=r"rollouts.jsonl:2: not a rollout line \(observed_by 'lidar' is none of"):
        load_rollouts(out)


@pytest.mark.timeout(300)
def test_perceived_objects_move_with_the_localization_and_old_files_are_relocalized(
    tmp_path: Path, detector: Detector
) -> None:
    """The collector puts the localization error on the robot and on what its camera saw alike, so the
    robot-to-object geometry is the look's. A file collected before (error on the robot alone, no
    ``localization`` mark) is rewritten by ``llm-planner collect relocalize`` to what the collector records
    now, and training refuses it until then; marked rollouts are kept; a rollout the replay cannot
    reproduce is refused and nothing written."""
    new = tmp_path / "new.jsonl"
    collect(new, 4, seed=3, resume=False, cycle="pick", observed_by=PERCEPTION)
    rollouts = load_rollouts(new)
    assert {r.localization for r in rollouts} == {SHARED_LOCALIZATION}
    sim = PhysicsKitchen.from_files()
    try:
        collector = RolloutCollector(sim, 3, cycle=("pick",), camera=HeadCameraPerception(sim, detector))
        old = []
        for r in rollouts:
            truth, label = collector.pick_setting(collector.generator(r.index))
            assert label == r.argument
            dx, dy = r.observation.robot_xy[0] - truth.robot.x, r.observation.robot_xy[1] - truth.robot.y
            assert 0.0 < math.hypot(dx, dy) < 0.2  # the localization error, 3 cm an axis
            observation = replace(r.observation, objects=shifted(r.observation.objects, -dx, -dy))
            old.append(replace(r, observation=observation, localization=""))
        assert any(r.observation.objects for r in old)
        again = relocalize(old, collector)
        for before, after in zip(rollouts, again, strict=True):
            assert (after.success, after.message, after.crop) == (before.success, before.message, before.crop)
            assert after.localization == SHARED_LOCALIZATION
            assert after.observation.robot_xy == before.observation.robot_xy
            for o, p in zip(after.observation.objects, before.observation.objects, strict=True):
                assert o.label == p.label and o.position == pytest.approx(p.position, abs=2e-4)
        assert relocalize(rollouts, collector) == rollouts  # marked already: kept
        with pytest.raises(RelocalizeError, match=r"rollout 7 \(seed 3\): the replay picks"):
            relocalize([old[0], replace(old[1], index=7)], collector)
    finally:
        sim.close()

    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text("".join(r.to_json() + "\n" for r in old))
    with pytest.raises(SystemExit, match="llm-planner collect relocalize"):
        run_command(["train", "value-functions", "--rollouts", str(legacy), "--out", str(tmp_path / "vf.npz")])
    # The command: a file it cannot vouch for gets no output; an existing output is never overwritten.
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(replace(r, index=r.index + 100).to_json() + "\n" for r in old))
    command = [
        LLM_PLANNER,
        "collect",
        "relocalize",
        str(bad),
        "--out",
        str(tmp_path / "out.jsonl"),
    ]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=200)
    assert refused.returncode == 1 and "rollouts do not replay; nothing written" in refused.stderr, refused.stderr
    assert not (tmp_path / "out.jsonl").exists()
    exists = subprocess.run([*command[:-1], str(new)], capture_output=True, text=True, timeout=60)
    assert exists.returncode != 0 and "exists" in exists.stderr

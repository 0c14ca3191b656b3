"""Lifting detections to the map frame on synthetic RGB-D: geometry, proposals, lifting, places."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from perception_scenes import CAMERA, empty_frame, kitchen_places, scene_frame

from llm_planner_ros.perception.detection import Detection, box_iou, box_of
from llm_planner_ros.perception.geometry import Transform, backproject
from llm_planner_ros.perception.lifting import LiftConfig, lift
from llm_planner_ros.perception.places import PlaceAssigner
from llm_planner_ros.perception.proposals import ProposalConfig, propose, support_heights
from llm_planner_ros.perception.synthetic import SUPPORT_SIZE, render


def test_a_pose_quaternion_round_trips_and_look_at_faces_the_target() -> None:
    camera = Transform.look_at([1.0, 2.0, 1.5], [2.0, 2.5, 0.9])
    again = Transform.from_pose(tuple(camera.translation), camera.quaternion_xyzw())
    assert np.allclose(again.rotation, camera.rotation, atol=1e-9)
    forward = camera.rotation[:, 2]
    expected = np.array([1.0, 0.5, -0.6]) / np.linalg.norm([1.0, 0.5, -0.6])
    assert np.allclose(forward, expected)
    with pytest.raises(ValueError, match="quaternion is zero"):
        Transform.from_pose((0, 0, 0), (0, 0, 0, 0))


@pytest.mark.parametrize("heading_deg", range(-180, 180, 15))
@pytest.mark.parametrize("pitch_deg", [0, 35, 89, 90])
def test_the_quaternion_round_trips_at_every_heading(heading_deg: int, pitch_deg: int) -> None:
    # A head camera looking along -y (heading -90, the kitchen's counters) is a rotation near 180 degrees
    # from the optical frame: its quaternion once came out with flipped signs, and a robot at a counter
    # lifted every detection to the wrong place (nothing seen).
    heading, pitch = np.radians(heading_deg), np.radians(pitch_deg)
    eye = np.array([4.5, 1.35, 1.7])
    target = eye + [np.cos(heading) * np.cos(pitch), np.sin(heading) * np.cos(pitch), -np.sin(pitch)]
    camera = Transform.look_at(eye, target)
    q = camera.quaternion_xyzw()
    assert np.isclose(np.linalg.norm(q), 1.0) and q[3] >= 0.0
    assert np.allclose(Transform.from_pose(tuple(eye), q).rotation, camera.rotation, atol=1e-9)


def test_backprojected_pixels_land_on_the_rendered_surfaces() -> None:
    frame = scene_frame(3)
    near = (frame.segmentation == 0) & (frame.depth < 3.0)  # depth noise grows with range
    points = frame.spec.camera.apply(backproject(frame.depth, CAMERA, near))
    # Background pixels are the floor (z = 0) or the support's top and sides (z <= its height).
    assert np.percentile(points[:, 2], 99) < frame.spec.support_height + 0.02
    assert np.percentile(points[:, 2], 1) > -0.02


def test_supports_are_found_at_the_floor_and_the_top() -> None:
    frame = empty_frame(5)
    points = frame.spec.camera.apply(backproject(frame.depth, CAMERA))
    heights = support_heights(points[:, 2], ProposalConfig().support_fraction)
    assert any(abs(h - frame.spec.support_height) < 0.01 for h in heights), heights


def test_an_empty_support_gives_no_proposal() -> None:
    frame = empty_frame(6)
    assert propose(frame.depth, CAMERA, frame.spec.camera, ProposalConfig()) == []


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_object_gets_one_pure_proposal(seed: int) -> None:
    frame = scene_frame(seed)
    proposals = propose(frame.depth, CAMERA, frame.spec.camera, ProposalConfig())
    found = []
    for proposal in proposals:
        ids, counts = np.unique(frame.segmentation[proposal.mask], return_counts=True)
        assert counts.max() >= 0.9 * proposal.mask.sum(), "a proposal mixes objects or background"
        found.append(int(ids[counts.argmax()]))
    visible = {k + 1 for k in range(len(frame.spec.objects)) if (frame.segmentation == k + 1).sum() >= 40}
    assert visible <= set(found)
    assert len(found) == len(set(found)), "an object was split"


def test_proposal_boxes_sit_centred_on_their_objects() -> None:
    # OpenCV's own 2 x 2 opening moved every proposal a pixel right and down: boxes lost two pixels on
    # the left and top, and the lifted centres sat 5 mm to one side, enough to put an apple's grasp
    # into it. The depth edges still take a pixel off each side, evenly (an object's bottom loses more,
    # to the height it must stand above its support, so only the sides are compared).
    offsets = []
    for seed in range(6):
        frame = scene_frame(seed)
        for proposal in propose(frame.depth, CAMERA, frame.spec.camera, ProposalConfig()):
            ids, counts = np.unique(frame.segmentation[proposal.mask], return_counts=True)
            silhouette = box_of(frame.segmentation == ids[counts.argmax()])
            x0, y0, x1, y1 = proposal.box
            offsets.append((x0 - silhouette[0], y0 - silhouette[1], silhouette[2] - x1, silhouette[3] - y1))
    left, _, right, _ = np.mean(offsets, axis=0)
    assert len(offsets) >= 10
    assert abs(left - right) < 0.5, (left, right)


@pytest.mark.parametrize("use_mask", [True, False])
def test_lifting_recovers_each_objects_centre_within_3_cm(use_mask: bool) -> None:
    """With its mask, or only its box (then the support and background in the box must be removed)."""
    frame = scene_frame(11, labels=["coke", "kettle chips", "apple"], max_objects=3, min_objects=3)
    errors = []
    for index, obj in enumerate(frame.spec.objects, start=1):
        mask = frame.segmentation == index
        if mask.sum() < 100:
            continue
        detection = Detection(box_of(mask), np.array([1.0]), (obj.label,), mask if use_mask else None)
        lifted = lift(detection, frame.depth, CAMERA, frame.spec.camera, LiftConfig())
        assert lifted is not None
        errors.append(float(np.linalg.norm(lifted.centre - np.asarray(obj.centre))))
        assert lifted.extent[2] == pytest.approx(obj.instance.size[2], abs=0.04)
    assert errors and np.median(errors) < 0.03, errors


@pytest.mark.parametrize("seed", range(6))
def test_a_flat_objects_own_top_is_not_taken_for_its_support(seed: int) -> None:
    # A sponge's top face is most of what a mask gives of it: removed as a support plane, the front
    # face alone put its centre about 2 cm toward the camera and its height short.
    frame = scene_frame(seed, labels=["sponge"], max_objects=1, min_objects=1)
    sponge, mask = frame.spec.objects[0], frame.segmentation == 1
    detection = Detection(box_of(mask), np.array([1.0]), (sponge.label,), mask)
    lifted = lift(detection, frame.depth, CAMERA, frame.spec.camera, LiftConfig())
    assert lifted is not None
    assert float(np.linalg.norm(lifted.centre[:2] - np.asarray(sponge.centre[:2]))) < 0.012
    assert lifted.extent[2] == pytest.approx(sponge.instance.size[2], abs=0.006)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_region_that_is_all_top_face_lifts_to_that_top(seed: int) -> None:
    # An energy bar far from the camera shows its top and a row or two of its front: the top was
    # removed as the support, nothing was left to cluster, and a detected bar was never reported.
    frame = scene_frame(seed, labels=["energy bar"], max_objects=1, min_objects=1)
    bar = frame.spec.objects[0]
    heights = np.full(frame.depth.shape, -1.0)
    on_bar = frame.segmentation == 1
    heights[on_bar] = frame.spec.camera.apply(backproject(frame.depth, CAMERA, on_bar))[:, 2]
    top = heights.max()
    mask = on_bar & (heights > top - 0.003)
    detection = Detection(box_of(mask), np.array([1.0]), (bar.label,), mask)
    lifted = lift(detection, frame.depth, CAMERA, frame.spec.camera, LiftConfig())
    assert lifted is not None
    assert lifted.centre[2] == pytest.approx(top, abs=0.004)
    assert float(np.linalg.norm(lifted.centre[:2] - np.asarray(bar.centre[:2]))) < 0.02


def test_a_region_without_depth_lifts_to_nothing() -> None:
    frame = scene_frame(1)
    detection = Detection((0, 0, 5, 5), np.array([1.0]), ("coke",))
    assert lift(detection, np.zeros_like(frame.depth), CAMERA, frame.spec.camera, LiftConfig()) is None


def test_places_are_the_nearest_within_the_radius() -> None:
    places = PlaceAssigner(kitchen_places(), max_distance=1.0)
    assert places.assign(np.array([4.4, 0.6, 0.9])) == "far counter"
    assert places.assign(np.array([2.6, 3.2])) == "table"
    assert places.assign(np.array([10.0, 10.0, 0.0])) == ""


def test_box_helpers() -> None:
    mask = np.zeros((10, 10), dtype=bool)
    mask[2:5, 3:7] = True
    assert box_of(mask) == (3, 2, 7, 5)
    assert box_iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(1 / 3)


def test_something_at_the_supports_height_but_not_on_it_is_no_proposal() -> None:
    """A robot's gripper held in front of a counter's edge is as high as the top, yet stands on nothing."""
    spec = scene_frame(2, labels=["coke"], min_objects=1, max_objects=1).spec
    coke = spec.objects[0]
    # 8 cm beyond the support's edge on the camera's side, along the axis that points most at the camera.
    toward_camera = spec.camera.translation[:2] - np.asarray(spec.support_centre)
    axis = int(np.argmax(np.abs(toward_camera)))
    offset = np.zeros(2)
    offset[axis] = np.sign(toward_camera[axis]) * (SUPPORT_SIZE[axis] / 2 + 0.08)
    floating = (*(np.asarray(spec.support_centre) + offset), coke.centre[2] + 0.01)
    moved = replace(spec, objects=(replace(coke, centre=tuple(map(float, floating))),))
    frame = render(moved, CAMERA, 2)
    assert (frame.segmentation == 1).sum() > 100, "the floating coke should be in view"
    assert propose(frame.depth, CAMERA, moved.camera, ProposalConfig()) == []
    on_top = render(spec, CAMERA, 2)
    assert len(propose(on_top.depth, CAMERA, spec.camera, ProposalConfig())) == 1

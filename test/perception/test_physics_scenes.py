"""Randomised physics-kitchen scenes (llm_planner_ros.perception.physics_scenes): seeded, split apart, with true
masks."""

from __future__ import annotations

import numpy as np
import pytest

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.perception.physics_scenes import (
    SCENES_PER_INSTANCE_SET,
    TRAIN_INSTANCES,
    PhysicsSceneRenderer,
    instance_layout,
    relight,
)
from llm_planner_ros.physics_sim import load_layout


@pytest.fixture(scope="module")
def kitchen_and_layout():  # type: ignore[no-untyped-def]
    kitchen = load_domain_files()
    return kitchen, load_layout(kitchen.config)


def test_a_seed_gives_the_same_scene_and_the_masks_are_the_objects(kitchen_and_layout) -> None:  # type: ignore[no-untyped-def]
    kitchen, layout = kitchen_and_layout
    renderer = PhysicsSceneRenderer(kitchen, layout, "train")
    try:
        first, other, again = renderer.scene(3), renderer.scene(4), renderer.scene(3)
    finally:
        renderer.close()
    assert np.array_equal(first.view.rgb, again.view.rgb) and np.allclose(first.view.depth, again.view.depth)
    assert not np.array_equal(first.view.rgb, other.view.rgb)
    # The tops of the layout: counters and tables, in the order of their names.
    assert first.place in ("close counter", "far counter", "table", "user") and first.view.rgb.shape == (240, 320, 3)
    assert int(first.segmentation.max()) <= len(first.objects)
    seen = [k for k in range(len(first.objects)) if (first.segmentation == k + 1).sum() >= 40]
    assert seen, "no object of the scene is in view"
    for k in seen:
        # A seen object's pixels lie about as far from the camera as its true centre.
        _, centre = first.objects[k]
        distance = float(np.linalg.norm(centre - first.view.camera.translation))
        depth = float(np.median(first.view.depth[first.segmentation == k + 1]))
        assert 0.5 * distance < depth < 1.1 * distance


def test_the_splits_use_other_instances_and_relighting_keeps_the_image(kitchen_and_layout) -> None:  # type: ignore[no-untyped-def]
    _, layout = kitchen_and_layout
    train, held_out = instance_layout(layout, "train", 0), instance_layout(layout, "eval", 0)
    assert all(train.models[label].color != held_out.models[label].color for label in layout.models)
    assert train.models["coke"].shape == layout.models["coke"].shape
    image = np.full((24, 32, 3), 120, np.uint8)
    lit = relight(image, np.random.default_rng(0))
    assert lit.shape == image.shape and lit.dtype == np.uint8 and 60 < lit.mean() < 160
    with pytest.raises(ValueError, match="unknown split"):
        PhysicsSceneRenderer(*kitchen_and_layout, "test")


def test_more_instance_sets_give_later_seeds_instances_of_their_own(kitchen_and_layout) -> None:  # type: ignore[no-untyped-def]
    # Seeds come in blocks of SCENES_PER_INSTANCE_SET; block 8 wraps to set 0 of the 8 default sets, but
    # is set 8 of 32: the same layout with other colours and sizes.
    block_8 = 8 * SCENES_PER_INSTANCE_SET
    renders = {}
    for sets in (TRAIN_INSTANCES, 32):
        renderer = PhysicsSceneRenderer(*kitchen_and_layout, "train", instance_sets=sets)
        try:
            renders[sets] = (renderer.scene(0).view.rgb, renderer.scene(block_8).view.rgb)
        finally:
            renderer.close()
    assert np.array_equal(renders[TRAIN_INSTANCES][0], renders[32][0])
    assert not np.array_equal(renders[TRAIN_INSTANCES][1], renders[32][1])
    with pytest.raises(ValueError, match="instance_sets is 0: give 1 or more"):
        PhysicsSceneRenderer(*kitchen_and_layout, "train", instance_sets=0)

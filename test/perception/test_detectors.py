"""The detector backends behind one interface: tiny random OWL-ViT/OWLv2, the embedded detector."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from perception_scenes import CAMERA, kitchen_places, scene_frame

from llm_planner_ros.cli.main import run_command
from llm_planner_ros.perception.backends import BackendOptions, make_detector
from llm_planner_ros.perception.detection import DetectorError, View
from llm_planner_ros.perception.pipeline import PerceptionConfig, ScenePerception
from llm_planner_ros.perception.places import PlaceAssigner
from llm_planner_ros.perception.region_encoder import FEATURES, EncoderShape, RegionEncoder, region_features


def _view(seed: int, **kwargs: object) -> tuple[View, object]:
    frame = scene_frame(seed, **kwargs)  # type: ignore[arg-type]
    return View(frame.rgb, frame.depth, CAMERA, frame.spec.camera), frame


@pytest.mark.parametrize("kind", ["owlvit", "owlv2"])
def test_owl_backends_return_boxes_with_one_score_per_query(kind: str, request: pytest.FixtureRequest) -> None:
    folder = request.getfixturevalue(f"tiny_{kind}")
    detector = make_detector(kind, BackendOptions(model_dir=str(folder), box_threshold=0.0))
    assert detector.name == kind
    view, _ = _view(0)
    detections = detector.detect(view, ["coke", "sponge", "apple"])
    assert 0 < len(detections) <= 20
    for detection in detections:
        x0, y0, x1, y1 = detection.box
        assert 0 <= x0 < x1 <= 320 and 0 <= y0 < y1 <= 240
        assert detection.scores.shape == (3,) and detection.label in ("coke", "sponge", "apple")
    assert detector.detect(view, []) == []


def test_owl_backend_refuses_a_folder_of_the_other_kind_or_none(tiny_owlvit: Path, tmp_path: Path) -> None:
    with pytest.raises(DetectorError, match="holds a owlvit model"):
        make_detector("owlv2", BackendOptions(model_dir=str(tiny_owlvit)))
    with pytest.raises(DetectorError, match="no config.json"):
        make_detector("owlvit", BackendOptions(model_dir=str(tmp_path)))
    with pytest.raises(DetectorError, match="needs `model_dir`"):
        make_detector("owlvit", BackendOptions())
    with pytest.raises(DetectorError, match="unknown detector backend"):
        make_detector("vild", BackendOptions())


@pytest.mark.model
def test_the_embedded_detector_labels_held_out_instances_and_synonyms() -> None:
    detector = make_detector("embedded", BackendOptions())
    labels = ["coke", "sponge", "apple", "water bottle", "kettle chips"]
    for queries, expected in (
        (labels, labels),
        (["coca-cola", "dish sponge", "apple fruit", "bottle of water", "kettle crisps"], labels),
    ):
        for seed in (1, 2):
            view, frame = _view(seed, labels=labels, min_objects=3, max_objects=3)
            result = ScenePerception(detector, PlaceAssigner(kitchen_places(), 1.0), PerceptionConfig()).process(
                view, queries, 0.0
            )
            truth = {obj.label for obj in frame.spec.objects}  # type: ignore[attr-defined]
            got = {expected[queries.index(item.detection.label)] for item in result.lifted}
            assert got == truth, (queries, got, truth)
            assert {t.place for t in result.tracks} == {frame.spec.place}  # type: ignore[attr-defined]


@pytest.mark.model
def test_a_synonyms_detections_are_tracked_under_its_label() -> None:
    """A world's synonyms are queries of their own (perception adds them); what they find is tracked,
    and published, under the label the planner knows."""
    detector = make_detector("embedded", BackendOptions())
    labels = ["coke", "sponge", "apple", "water bottle", "kettle chips"]
    synonyms = ["coca-cola", "dish sponge", "apple fruit", "bottle of water", "kettle crisps"]
    aliases = dict(zip(synonyms, labels, strict=True))
    view, frame = _view(1, labels=labels, min_objects=3, max_objects=3)
    perception = ScenePerception(detector, PlaceAssigner(kitchen_places(), 1.0), PerceptionConfig())
    result = perception.process(view, synonyms, 0.0, aliases=aliases)
    assert {item.detection.label for item in result.lifted} <= set(synonyms)  # the detector answers in queries
    assert {track.label for track in result.tracks} == {obj.label for obj in frame.spec.objects}  # type: ignore[attr-defined]


def test_the_embedded_detector_asks_for_training_when_the_encoder_is_missing(tmp_path: Path) -> None:
    with pytest.raises(DetectorError, match="llm-planner train region-encoder"):
        make_detector("embedded", BackendOptions(encoder_path=str(tmp_path / "none.safetensors")))


def test_region_features_and_encoder_round_trip(tmp_path: Path) -> None:
    view, frame = _view(4)
    features = region_features(view, frame.segmentation == 1)  # type: ignore[attr-defined]
    assert features is not None and features.shape == (FEATURES,) and np.isfinite(features).all()
    encoder = RegionEncoder(EncoderShape(background=True))
    encoder.save(tmp_path / "enc.safetensors", {"note": "test"})
    again = RegionEncoder.load(tmp_path / "enc.safetensors")
    assert np.allclose(encoder.embed(features[None]), again.embed(features[None]))
    assert np.linalg.norm(again.embed(features[None])) == pytest.approx(1.0)
    assert np.allclose(encoder.background_embedding(), again.background_embedding())  # type: ignore[arg-type]
    assert RegionEncoder(EncoderShape()).background_embedding() is None


@pytest.mark.model
def test_training_is_seeded_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["train", "region-encoder", "--scenes", "3", "--physics-scenes", "2", "--seed", "1"]
    common += ["--work-dir", str(tmp_path / "work")]
    assert run_command([*common, "--epochs", "1", "--out", str(tmp_path / "a.safetensors")]) == 0
    assert run_command([*common, "--epochs", "2", "--resume", "--out", str(tmp_path / "b.safetensors")]) == 0
    out = capsys.readouterr().out
    for source in ("synthetic", "physics"):
        assert out.count(f"data: {source} shard 1/1") == 1, f"the resumed run re-rendered its {source} shard"
    assert "resuming after epoch 1" in out and "epoch 2/2" in out
    assert run_command([*common, "--epochs", "2", "--out", str(tmp_path / "c.safetensors")]) == 0
    b, c = RegionEncoder.load(tmp_path / "b.safetensors"), RegionEncoder.load(tmp_path / "c.safetensors")
    assert all(np.allclose(x.detach(), y.detach()) for x, y in zip(b.parameters(), c.parameters(), strict=True))
    assert json.loads((tmp_path / "c.json").read_text())["physics_scenes"] == 2

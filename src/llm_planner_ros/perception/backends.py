"""The detector backends by name: ``embedded`` (default), ``owlvit`` and ``owlv2``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.paths import repo_path
from llm_planner_ros.perception.detection import Detector, DetectorError
from llm_planner_ros.perception.proposals import ProposalConfig

BACKENDS = ("embedded", "owlvit", "owlv2")
DEFAULT_ENCODER = "data/perception/region_encoder.safetensors"


@dataclass(frozen=True)
class BackendOptions:
    """``model_dir``: the OWL-ViT/OWLv2 folder; ``encoder_path``: the embedded backend's region encoder
    ("" for the shipped one); ``embedder_dir``: sentence-transformers folder ("" for the embedded
    all-MiniLM-L6-v2); ``box_threshold``: OWL box score floor."""

    model_dir: str = ""
    encoder_path: str = ""
    embedder_dir: str = ""
    box_threshold: float = 0.1


def make_detector(backend: str, options: BackendOptions) -> Detector:
    """The detector ``backend`` names; DetectorError says what is missing and how to fix it."""
    # Imported per backend: each pulls in its own heavy stack (sentence-transformers, transformers).
    if backend == "embedded":
        from llm_planner_ros.llm.base import ModelLoadError
        from llm_planner_ros.llm.embedder import SentenceTransformerEmbedder
        from llm_planner_ros.perception.embedded_detector import EmbeddedDetector, TextEmbeddings
        from llm_planner_ros.perception.region_encoder import RegionEncoder

        try:
            path = Path(options.encoder_path) if options.encoder_path else repo_path(DEFAULT_ENCODER)
            embedder = SentenceTransformerEmbedder(options.embedder_dir or None)
        except (FileNotFoundError, ModelLoadError) as error:
            raise DetectorError(str(error)) from error
        return EmbeddedDetector(RegionEncoder.load(path), TextEmbeddings(embedder), ProposalConfig())
    if backend in ("owlvit", "owlv2"):
        from llm_planner_ros.perception.owl_detector import OwlDetector

        if not options.model_dir:
            raise DetectorError(f"backend {backend} needs `model_dir`: a local transformers folder of the model")
        detector = OwlDetector(options.model_dir, options.box_threshold)
        if detector.name != backend:
            raise DetectorError(f"backend {backend} asked for, but {options.model_dir} holds a {detector.name} model")
        return detector
    raise DetectorError(f"unknown detector backend {backend!r}: use one of {', '.join(BACKENDS)}")

"""The detector backends by name: ``embedded`` (default), ``owlvit`` and ``owlv2``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.paths import repo_path
from llm_planner_ros.perception.detection import Detector, DetectorError
from llm_planner_ros.perception.proposals import ProposalConfig

BACKENDS = ("embedded", "owlvit", "owlv2")
DEFAULT_ENCODER = "data/perception/region_encoder.safetensors"
# A domain folder's own region encoder (``llm-planner train region-encoder --domain DIR``).
DOMAIN_ENCODER_FILE = "region_encoder.safetensors"


def default_encoder(world_source: str) -> Path:
    """The region encoder of the domain folder of the world file ``world_source`` where it has one (trained
    on its own object models), else the packaged one (trained on the SayCan kitchen's 15 labels)."""
    own = Path(world_source).parent / DOMAIN_ENCODER_FILE if world_source else None
    return own if own is not None and own.is_file() else repo_path(DEFAULT_ENCODER)


@dataclass(frozen=True)
class BackendOptions:
    """``model_dir``: the OWL-ViT/OWLv2 folder; ``encoder_path``: the embedded backend's region encoder
    ("" for ``default_encoder``); ``embedder_dir``: sentence-transformers folder ("" for the embedded
    all-MiniLM-L6-v2); ``box_threshold``: OWL box score floor."""

    model_dir: str = ""
    encoder_path: str = ""
    embedder_dir: str = ""
    box_threshold: float = 0.1
    world_source: str = ""  # the world file perception runs in: its domain folder may hold an encoder


def make_detector(backend: str, options: BackendOptions) -> Detector:
    """The detector ``backend`` names; DetectorError says what is missing and how to fix it."""
    # Imported per backend: each pulls in its own heavy stack (sentence-transformers, transformers).
    if backend == "embedded":
        from llm_planner_ros.llm.base import ModelLoadError
        from llm_planner_ros.llm.embedder import SentenceTransformerEmbedder
        from llm_planner_ros.perception.embedded_detector import EmbeddedDetector, TextEmbeddings
        from llm_planner_ros.perception.region_encoder import RegionEncoder

        try:
            path = Path(options.encoder_path) if options.encoder_path else default_encoder(options.world_source)
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

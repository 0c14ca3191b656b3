"""How tall the robot's known objects are: a YAML file, or the object models of the domain's layout
(``domain.layout``: a sphere's diameter, a box's third size, a cylinder's height).

Format::

    heights:            # metres, as the object stands when it is set down
      coke: 0.122
      water bottle: 0.2

A put down lowers the held object until its bottom is just above the surface, so it must know how far
the bottom hangs below the fingertips. After its own pick the executor knows (it grasped the object
``grasp_height`` above its bottom). An object the robot already held when it started (an episode's
``holding``, or one handed to it) was not grasped by it: the catalogue gives its height, and the put
down takes it as held the way the arm's own grasp holds one (``ArmSettings.grasp_height``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.domain.config import DomainConfig, load_domain_config
from llm_planner_ros.domain.layout import load_layout
from llm_planner_ros.domain.validation import Checker, ValidationError, join
from llm_planner_ros.paths import read_config_yaml

HEIGHTS_FILE = "object_heights.yaml"


class ObjectHeightsError(ValidationError):
    """An object-height catalogue with problems (each one listed)."""


@dataclass(frozen=True)
class ObjectHeights:
    """Known heights by label (m), read from ``source``."""

    heights: Mapping[str, float]
    source: str = ""

    def height(self, label: str | None) -> float | None:
        """The height of ``label`` objects, None when the catalogue does not know the label."""
        return self.heights.get(label) if label is not None else None


def load_object_heights(path: str | Path | None = None, config: DomainConfig | None = None) -> ObjectHeights:
    """Read and check the catalogue at ``path``; without one, the heights of the object models of
    ``config``'s layout (None: the default domain's). ObjectHeightsError lists a file's problems,
    FileNotFoundError says which parameter names the file."""
    if path is None:
        config = config or load_domain_config()
        models = load_layout(config).models
        return ObjectHeights({label: model.height for label, model in models.items()}, f"the layout of {config.source}")
    fix = (
        "give the executor's object_heights_file parameter a YAML of label heights (format: "
        "llm_planner_ros/robot_motion/object_heights.py), or none: the domain's layout gives its objects' heights"
    )
    source, data = read_config_yaml(path, HEIGHTS_FILE, "object-height catalogue", fix)
    check = Checker()
    heights: dict[str, float] = {}
    top = check.mapping(data, "", required=("heights",))
    entries = check.named_entries(top["heights"], "heights", "object") if top is not None else None
    for label, value in (entries or {}).items():
        height = check.number(value, join("heights", label))
        if height is not None and height <= 0.0:
            check.reject(value, join("heights", label), "must be a height above 0 m")
        elif height is not None:
            heights[label] = height
    check.raise_if_any(str(source), ObjectHeightsError)
    return ObjectHeights(heights, str(source))

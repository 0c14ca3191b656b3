"""``LearnedAffordance``: the value-function models as an affordance model over a perceived observation.

pick, place, go-to and the drawer skills are scored by their model, batched (one forward pass per
family per call).
Two of SayCan's caps stay (appendix D.2): going where the robot already is and picking with a full
gripper get 0; so does picking a label perception reports nowhere, which the executor refuses
("perception reports no ... to pick") and no rollout shows (the collector's targets are always in the
scene, so the model's answer there is an extrapolation: 0.76 for an unseen sponge from the
20,000-rollout models), and putting down at a place the robot map gives no surface (the drawers), which
the ``moveit`` executor refuses and no rollout tries (the place model scored the sponge's put down at
the drawers high, and SayCan chose it in drawer-04 and drawer-06 of the dev suite).
Families without a model (find, terminate) get the analytic model's
answer on the world assembled from the same perception (``analytic.world_of``), so the backend reads
nothing a robot would not have. A find that travels (to the nearest place where the label is seen, as
the executors go) is also a go-to there: its answer is the analytic one times the go-to model's, so a
box in front of that place lowers both.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llm_planner_ros.affordance.calibration import Calibration
from llm_planner_ros.affordance.model import AffordanceError, AffordanceModel
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.skill import FAMILIES, FIND, GOTO, PICK, PLACE, Skill
from llm_planner_ros.value_functions.analytic import world_of
from llm_planner_ros.value_functions.boosted_trees import REBUILD, FamilyEnsemble, WeightFileError, load_value_functions
from llm_planner_ros.value_functions.features import LEARNED_FAMILIES, Featurizer, skill_argument
from llm_planner_ros.value_functions.observation import Observation


class LearnedAffordance:
    """Learned p(success | perceived observation, skill) for a batch of skills; see the module docstring."""

    def __init__(self, weights: str | Path, kitchen: Domain, calibration: Calibration | None = None) -> None:
        self.kitchen = kitchen
        self.featurizer = Featurizer(kitchen.config)
        self.models: dict[str, FamilyEnsemble]
        self.models, self.meta = load_value_functions(weights, self.featurizer)
        missing = [f for f in LEARNED_FAMILIES if f not in self.models]
        if missing:
            raise WeightFileError(f"{weights} has no model for {missing}: {REBUILD}")
        self.analytic = AffordanceModel(calibration)
        place_map = self.featurizer.place_map
        self._no_surface = {name for name, place in place_map.places.items() if place.surface is None}

    @property
    def record(self) -> dict[str, Any]:
        return dict(self.meta.get("record") or {})

    def evaluate(self, skills: Sequence[Skill], observation: Observation) -> list[float]:
        """One probability per skill, in order; AffordanceError for a malformed skill (as the analytic model)."""
        results = [0.0] * len(skills)
        batches: dict[str, list[tuple[int, str]]] = {}
        fallback: list[int] = []
        seen = {obj.label for obj in observation.objects}
        for index, skill in enumerate(skills):
            if skill.family not in FAMILIES:
                raise AffordanceError(
                    f"skill {skill.text!r} has unknown family {skill.family!r}; known: {list(FAMILIES)}"
                )
            if skill.family not in self.models:
                fallback.append(index)
                continue
            argument = skill_argument(skill)
            capped = (
                (skill.family == GOTO and argument == observation.robot_at)
                or (skill.family == PICK and (observation.holding_label is not None or argument not in seen))
                or (skill.family == PLACE and observation.robot_at in self._no_surface)
            )
            if not capped:
                batches.setdefault(skill.family, []).append((index, argument))
        travels: list[tuple[int, str]] = []  # finds that go elsewhere, with the place they go to
        if fallback:
            world = world_of(observation, self.kitchen)
            for i in fallback:
                results[i] = self.analytic.affordance(skills[i], world)
                if skills[i].family == FIND and results[i] > 0.0:
                    destination = world.nearest_place_of(str(skills[i].argument))
                    if destination is not None and destination != observation.robot_at:
                        travels.append((i, destination))
        for family, batch in batches.items():
            features = self.featurizer.matrix([(observation, argument) for _, argument in batch], family)
            for (i, _), probability in zip(batch, self.models[family].probabilities(features), strict=True):
                results[i] = float(probability)
        if travels:
            features = self.featurizer.matrix([(observation, place) for _, place in travels], GOTO)
            for (i, _), probability in zip(travels, self.models[GOTO].probabilities(features), strict=True):
                results[i] *= float(probability)
        return results

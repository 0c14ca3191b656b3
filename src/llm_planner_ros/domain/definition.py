"""A kitchen's static definition (world facts + skill vocabulary) and the worlds built on it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.config import DomainConfig, load_domain_config
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.skill_library import SkillLibrary, load_skill_library
from llm_planner_ros.domain.world import World


@dataclass(frozen=True)
class Domain:
    """World facts (places, positions, labels) and the skill library; shared by every world state."""

    config: DomainConfig
    library: SkillLibrary

    def world(self, initial: Mapping[str, Any] | None = None, source: str = "initial block") -> World:
        """A world from an episode ``initial`` block, or the config's default scene when None."""
        if initial is None:
            return World.from_initial(self, self.config.default_scene, f"{self.config.source}: default_scene")
        return World.from_initial(self, initial, source)


def load_domain_files(world_file: str | Path | None = None, skills_file: str | Path | None = None) -> Domain:
    """The kitchen of domains/saycan_kitchen/world.yaml and domains/saycan_kitchen/skills.yaml (or the given files)."""
    config = load_domain_config(world_file)
    return Domain(config, load_skill_library(config, skills_file))


def domain_skills(world: World | None = None) -> tuple[Skill, ...]:
    """The skills a planner chooses from in ``world`` (default: the kitchen's default scene, whose
    vocabulary is the 51 kitchen skills of the SayCan paper)."""
    return (world or load_domain_files().world()).admissible_skills()


def domain_skill_texts(world: World | None = None) -> list[str]:
    """The texts of ``domain_skills(world)``, as the language model scores them."""
    return [skill.text for skill in domain_skills(world)]

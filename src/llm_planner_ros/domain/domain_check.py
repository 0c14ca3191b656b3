"""Every problem of a domain's files at once: the world, the skills and its episode files, each checked as
far as the files it depends on read (a world with an unknown key still names its places and objects, a
skills file with a bad template still has its other skills), so one mistake hides no other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from llm_planner_ros.domain.config import load_domain_config, readable_domain_config
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.skill_library import load_skill_library, readable_skill_library
from llm_planner_ros.domain.validation import ValidationError


@dataclass
class DomainCheck:
    """What checking a domain's files found: ``kitchen`` when the world and skills files are sound, each
    episode file's episode count, and ``reports``: every file's problems (each with its lines), and the files
    that could not be checked because one they depend on does not read. Sound when ``reports`` is empty."""

    kitchen: Domain | None = None
    episode_counts: dict[Path, int] = field(default_factory=dict)
    reports: list[str] = field(default_factory=list)


def check_domain(world: Path, skills: Path, episode_files: Sequence[Path] = ()) -> DomainCheck:
    found = DomainCheck()
    try:
        config = load_domain_config(world)
    except ValidationError as error:
        found.reports.append(str(error))
        config = readable_domain_config(world)
    if config is None:
        unchecked = ", ".join(path.name for path in [skills, *episode_files])
        found.reports.append(f"not checked until {world.name} names its places and objects: {unchecked}")
        return found
    try:
        found.kitchen = Domain(config, load_skill_library(config, skills))
    except ValidationError as error:
        found.reports.append(str(error))
    readable = found.kitchen
    if readable is None and (library := readable_skill_library(config, skills)) is not None:
        readable = Domain(config, library)  # the templates that expand: the episodes' labels and skills
    for path in episode_files:
        if readable is None:
            found.reports.append(f"{path.name}: not checked until {skills.name} reads")
            continue
        try:
            found.episode_counts[path] = len(load_episodes(path, readable))
        except ValidationError as error:
            found.reports.append(str(error))
    return found

"""Benchmark episode files (docs/episodes.md): loading, validation, goal checks.

An episode file is YAML::

    world: saycan_kitchen
    episodes:
      - id: nl-verb-03                 # unique in the file
        family: nl_verbs               # free text; results are grouped by it
        instruction: "How would you bring me a coke can"
        max_steps: 30                  # optional, default 30
        initial: {robot: {at: table, holding: null}, objects: [...]}   # see llm_planner_ros.domain.scene
        goal: <condition>              # see llm_planner_ros.domain.conditions
        expect: nothing_to_do          # optional: task (default, needs a goal) | nothing_to_do | refused |
                                       # missing: a request the robot must hold back on (no goal; it
                                       # succeeds when no skill is dispatched)

``load_episodes`` checks everything (unknown keys, missing fields, unknown labels and places, duplicate
ids, malformed conditions, a held object that disagrees with ``robot.holding``, ...) and raises one
``EpisodeFileError`` naming the file and, for each problem, the episode and the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.conditions import All, Condition, ConditionCheck, goal_checks, parse_condition
from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.scene import Scene, parse_scene
from llm_planner_ros.domain.validation import Checker, InputError, ValidationError, join, quoted_list, read_yaml
from llm_planner_ros.domain.world import World
from llm_planner_ros.paths import repo_path

DEFAULT_MAX_STEPS = 30

_REQUIRED = ("id", "family", "instruction", "initial")
_OPTIONAL = ("max_steps", "goal", "expect")
TASK = "task"
# What an episode expects: a task carried out, or one of the ends where the robot holds back.
EXPECTATIONS = (TASK, "nothing_to_do", "refused", "missing")


class EpisodeFileError(ValidationError):
    """An episode file that does not match the format; ``problems`` names episode and field of each."""


class UnknownEpisodeError(InputError, KeyError):
    """An episode id the file does not have; the message lists the ids it has."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Episode:
    """One benchmark episode: an instruction, the scene it starts from, and the goal that must hold; or, with
    ``expect`` other than ``task``, a request to hold back on (its goal: true, as nothing may change)."""

    id: str
    family: str
    instruction: str
    max_steps: int
    initial: Scene
    goal: Condition
    expect: str = TASK

    @property
    def holds_back(self) -> bool:
        """Whether the robot must end this request with no skill dispatched."""
        return self.expect != TASK

    def world(self, kitchen: Domain) -> World:
        """A fresh world in this episode's initial state."""
        return World(kitchen, self.initial)

    def goal_holds(self, world: World) -> bool:
        return self.goal.holds(world)

    def goal_checks(self, world: World) -> list[ConditionCheck]:
        return goal_checks(self.goal, world)


@dataclass(frozen=True)
class EpisodeFile:
    """The validated episodes of one file, in file order."""

    source: str
    world: str
    episodes: tuple[Episode, ...]

    def __iter__(self) -> Iterator[Episode]:
        return iter(self.episodes)

    def __len__(self) -> int:
        return len(self.episodes)

    def episode(self, episode_id: str) -> Episode:
        for episode in self.episodes:
            if episode.id == episode_id:
                return episode
        raise UnknownEpisodeError(
            f"{self.source} has no episode {episode_id!r}; its ids: {quoted_list(e.id for e in self.episodes)}"
        )

    def select(self, episode_id: str) -> Episode:
        """The episode named ``episode_id``, or the file's only episode when the id is empty; ValueError
        names the ids to choose from when the id is unknown or missing from a file of several."""
        if not episode_id:
            if len(self.episodes) != 1:
                raise ValueError(
                    f"{self.source} has {len(self.episodes)} episodes; name one with episode_id: "
                    f"{', '.join(e.id for e in self.episodes)}"
                )
            return self.episodes[0]
        try:
            return self.episode(episode_id)
        except KeyError as error:
            raise ValueError(error.args[0]) from error


def load_episodes(path: str | Path, kitchen: Domain | None = None) -> EpisodeFile:
    """Read and validate an episode file against ``kitchen`` (default: the configured kitchen); a relative
    path is a packaged one (``llm_planner_ros.paths.repo_path``: the checkout's or the install's)."""
    fix = "give the path of an episode file (docs/episodes.md)"
    text, data = read_yaml(path, EpisodeFileError, fix, locate=repo_path)
    return parse_episodes(data, kitchen or load_domain_files(), str(path), text)


def parse_episodes(data: Any, kitchen: Domain, source: str, text: str | None = None) -> EpisodeFile:
    """Validate an already-parsed episode document; EpisodeFileError lists every problem (with its line,
    given the document's ``text``)."""
    check = Checker()
    episodes: list[Episode] = []
    top = check.mapping(data, "", required=("world", "episodes"))
    world = None
    if top is not None:
        world = check.one_of(top["world"], "world", (kitchen.config.world,), "world")
        items = check.list_of(top["episodes"], "episodes") or []
        seen: dict[str, int] = {}
        for index, item in enumerate(items):
            episode = _parse_episode(item, index, seen, kitchen, check)
            if episode is not None:
                episodes.append(episode)
    check.raise_if_any(source, EpisodeFileError, text)
    assert world is not None
    return EpisodeFile(source, world, tuple(episodes))


def _parse_episode(item: Any, index: int, seen: dict[str, int], kitchen: Domain, check: Checker) -> Episode | None:
    where = join("episodes", index)
    raw_id = item.get("id") if isinstance(item, dict) else None
    shown = f"{raw_id!r} ({where})" if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) else where
    check = check.for_episode(shown, where)
    problems_before = len(check.problems)
    entry = check.mapping(item, "", required=_REQUIRED, optional=_OPTIONAL)
    if entry is None:
        return None
    episode_id = check.identifier(entry["id"], "id")
    if episode_id is not None and episode_id in seen:
        check.add("id", f"duplicate episode id {episode_id!r}, first used by episodes[{seen[episode_id]}]")
    elif episode_id is not None:
        seen[episode_id] = index
    family = check.string(entry["family"], "family")
    instruction = check.string(entry["instruction"], "instruction")
    max_steps = check.positive_int(entry.get("max_steps", DEFAULT_MAX_STEPS), "max_steps")
    scene = parse_scene(entry["initial"], kitchen.config, check, "initial")
    expect = check.one_of(entry.get("expect", TASK), "expect", EXPECTATIONS, "expectation")
    goal: Condition | None = All(())
    if expect == TASK and "goal" not in entry:
        check.add("goal", "missing (required) for a task; or set `expect:` to how the robot holds back")
        goal = None
    elif expect != TASK and "goal" in entry:
        check.add("goal", f"an episode that expects {expect} has no goal (nothing may be done): remove it")
        goal = None
    elif "goal" in entry:
        goal = parse_condition(entry["goal"], kitchen.config, check, "goal")
    if scene is not None and goal is not None:
        _check_goal_places(goal, scene, kitchen, check)
    if len(check.problems) > problems_before:
        return None
    assert episode_id and family and instruction and max_steps and scene and goal is not None and expect
    return Episode(episode_id, family, instruction, max_steps, scene, goal, expect)


def _check_goal_places(goal: Condition, scene: Scene, kitchen: Domain, check: Checker) -> None:
    """A goal about the drawer needs a scene with the drawer (else it could never hold)."""
    drawer = kitchen.config.drawer
    if drawer is None or scene.has_drawer:
        return
    drawer_places = goal.places() & {drawer.location, drawer.contents_at}
    if drawer_places:
        check.add(
            "goal",
            f"mentions {quoted_list(sorted(drawer_places))} but the scene has no drawer: "
            "add `drawer: {open: false}` to initial",
        )

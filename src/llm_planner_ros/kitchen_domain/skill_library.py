"""The kitchen's skill vocabulary, expanded from the templates of config/kitchen_skills.yaml.

Each template names a family, a text pattern, what it expands over (every object label, listed
locations, or nothing), its executor, and the world preconditions and effects of the skills it makes.
The 51 kitchen skills are: find / pick up / put down for the 15 labels, go to the 4 places, "bring it
to you" and "done"; drawer scenes add "go to the drawers", "open the drawer", "close the drawer" and
"put the <object> in the drawer".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.kitchen_domain.config import ConfigError, KitchenConfig
from llm_planner_ros.kitchen_domain.paths import resolve_config
from llm_planner_ros.kitchen_domain.skill import EXECUTORS, FAMILIES, NO_EXECUTOR, Skill, SkillRule
from llm_planner_ros.kitchen_domain.validation import Checker, join
from llm_planner_ros.kitchen_domain.world import EFFECTS, PRECONDITIONS

SKILLS_FILE = "kitchen_skills.yaml"

_TEMPLATE_KEYS = ("family", "text", "executor", "for_each", "locations", "requires_drawer", "preconditions", "effects")


class SkillLibrary:
    """Every skill rule of a kitchen, in config order, and per-family failure probabilities.

    ``skills(with_drawer)`` is a scene's vocabulary; ``find(text)`` looks a rule up by its text.
    Immutable once built.
    """

    def __init__(self, rules: Iterable[SkillRule], failure_probability: Mapping[str, float], source: str = "") -> None:
        self.rules = tuple(rules)
        self.failure_probability = dict(failure_probability)
        self.source = source
        self._by_text = {rule.skill.text: rule for rule in self.rules}

    def skills(self, with_drawer: bool = False) -> tuple[Skill, ...]:
        return tuple(rule.skill for rule in self.rules if with_drawer or not rule.requires_drawer)

    def find(self, text: str) -> SkillRule | None:
        return self._by_text.get(text)

    def families(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(rule.skill.family for rule in self.rules))


def load_skill_library(config: KitchenConfig, path: str | Path | None = None) -> SkillLibrary:
    """Read and expand a skills file (default: config/kitchen_skills.yaml); ConfigError lists its problems."""
    source = resolve_config(path, SKILLS_FILE)
    text = source.read_text()
    check = Checker()
    library = parse_skill_library(yaml.safe_load(text), config, check, str(source))
    check.raise_if_any(str(source), ConfigError, text)
    assert library is not None
    return library


def parse_skill_library(data: Any, config: KitchenConfig, check: Checker, source: str) -> SkillLibrary | None:
    top = check.mapping(data, "", required=("skills",), optional=("failure_probability",))
    if top is None:
        return None
    templates = check.list_of(top["skills"], "skills") or []
    rules = [
        rule
        for index, template in enumerate(templates)
        for rule in _expand(template, config, check, join("skills", index))
    ]
    texts = [rule.skill.text for rule in rules]
    for text in sorted({t for t in texts if texts.count(t) > 1}):
        check.add("skills", f"two templates make the skill {text!r}; skill texts must be unique")
    failures = _failure_probabilities(top.get("failure_probability", {}), check)
    if check.problems:
        return None
    return SkillLibrary(tuple(rules), failures, source)


def _expand(template: Any, config: KitchenConfig, check: Checker, where: str) -> list[SkillRule]:
    """The rules one template makes, or [] after recording its problems."""
    problems_before = len(check.problems)
    entry = check.mapping(template, where, required=("family", "text", "executor"), optional=_TEMPLATE_KEYS[3:])
    if entry is None:
        return []
    family = check.one_of(entry["family"], join(where, "family"), FAMILIES, "family")
    text = check.string(entry["text"], join(where, "text"))
    executor = _executor(entry["executor"], check, join(where, "executor"))
    requires_drawer = check.boolean(entry.get("requires_drawer", False), join(where, "requires_drawer"))
    preconditions = _names(entry.get("preconditions", []), PRECONDITIONS, check, join(where, "preconditions"))
    effects = _names(entry.get("effects", []), EFFECTS, check, join(where, "effects"))
    bindings = _bindings(entry, config, bool(requires_drawer), check, where)
    if len(check.problems) > problems_before or text is None or family is None or executor is None:
        return []
    rules = []
    for arguments, values in bindings:
        try:
            skill_text = text.format(**values)
        except (KeyError, IndexError) as error:
            check.add(join(where, "text"), f"placeholder {error} has no value here; use {sorted(values)}")
            return []
        skill = Skill(skill_text, family, arguments, executor)
        rules.append(SkillRule(skill, tuple(preconditions), tuple(effects), bool(requires_drawer)))
    return rules


def _bindings(
    entry: Mapping[str, Any], config: KitchenConfig, requires_drawer: bool, check: Checker, where: str
) -> list[tuple[tuple[str, ...], dict[str, str]]]:
    """(arguments, placeholder values) of each skill a template expands into."""
    for_each = entry.get("for_each")
    if for_each is None:
        return [((), {})]
    if for_each == "object":
        return [((label,), {"object": label, "article": article}) for label, article in config.articles.items()]
    if for_each == "location":
        places = config.places(with_drawer=requires_drawer)
        listed = check.list_of(entry.get("locations"), join(where, "locations")) or []
        names = [
            check.one_of(name, join(join(where, "locations"), i), places, "location") for i, name in enumerate(listed)
        ]
        return [((name,), {"location": name}) for name in names if name is not None]
    check.add(join(where, "for_each"), f"must be 'object' or 'location' (or left out), got {for_each!r}")
    return []


def _executor(value: Any, check: Checker, where: str) -> str | None:
    if value is None:
        return NO_EXECUTOR
    return check.one_of(value, where, EXECUTORS, "executor")


def _names(value: Any, known: Mapping[str, Any], check: Checker, where: str) -> list[str]:
    names = check.list_of(value, where, allow_empty=True) or []
    return [name for i, name in enumerate(names) if check.one_of(name, join(where, i), tuple(known), "name")]


def _failure_probabilities(value: Any, check: Checker) -> dict[str, float]:
    entries = check.mapping(value, "failure_probability", optional=FAMILIES)
    if entries is None:
        return {}
    probabilities = {family: check.probability(p, join("failure_probability", family)) for family, p in entries.items()}
    return {family: p for family, p in probabilities.items() if p is not None}

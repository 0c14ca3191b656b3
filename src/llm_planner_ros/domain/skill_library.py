"""The kitchen's skill vocabulary, expanded from the templates of domains/saycan_kitchen/skills.yaml. Each template
names a family, a text pattern, what it expands over (every object label, listed locations, or nothing), its
executor, and the world preconditions and effects of the skills it makes: built-in names
(llm_planner_ros.domain.world), or conditions and fact changes written in the file (``{fact:
door_open}``, ``{holding: "{object}"}``, ``{set: "table_clean({location})"}``), whose placeholders are
filled like the text's, and optionally ``requests``: how people ask for what the skill does ("call the
elevator"), the words a domain's generated bank uses besides the skill's text. The file declares its skill
families and executors (``families``, ``executors``: names, or names with each family's affordance source
and each executor's ROS 2 action, llm_planner_ros.domain.vocabulary); a file that leaves them out
gets the SayCan kitchen's. The 51 kitchen skills are: find / pick up / put down for the 15 labels, go to the
4 places, "bring it to you" and "done"; drawer scenes add "go to the drawers", "open the drawer", "close the
drawer" and "put the <object> in the drawer"."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from llm_planner_ros.domain.conditions import Condition, parse_condition
from llm_planner_ros.domain.config import ConfigError, DomainConfig
from llm_planner_ros.domain.facts import HERE
from llm_planner_ros.domain.skill import (
    AT_ROBOT,
    EXECUTORS,
    FAMILIES,
    IN_GRIPPER,
    NO_EXECUTOR,
    Consume,
    Create,
    FactChange,
    PutHeld,
    Skill,
    SkillRule,
    WrittenEffect,
)
from llm_planner_ros.domain.validation import Checker, join, read_yaml
from llm_planner_ros.domain.vocabulary import (
    PLACEHOLDER,
    SERVER,
    ActionBinding,
    AffordanceSource,
    parse_executors,
    parse_families,
)
from llm_planner_ros.domain.world import BUILT_IN_ARGUMENT, EFFECTS, PRECONDITIONS
from llm_planner_ros.paths import default_domain_file, repo_path

SKILLS_FILE = "skills.yaml"

_TEMPLATE_KEYS = (
    "family",
    "text",
    "executor",
    "for_each",
    "locations",
    "requires_drawer",
    "preconditions",
    "effects",
    "requests",
)


class SkillLibrary:
    """Every skill rule of a kitchen, in config order, per-family failure probabilities, and the skill
    families and executors the file declares (``affordance_sources``: the families whose affordance the
    file says where to find; ``action_bindings``: the executors whose skills run as goals of a ROS action).

    ``skills(with_drawer)`` is a scene's vocabulary; ``find(text)`` looks a rule up by its text.
    Immutable once built.
    """

    def __init__(
        self,
        rules: Iterable[SkillRule],
        failure_probability: Mapping[str, float],
        source: str = "",
        declared_families: Iterable[str] = FAMILIES,
        executors: Iterable[str] = EXECUTORS,
        affordance_sources: Mapping[str, AffordanceSource] | None = None,
        action_bindings: Mapping[str, ActionBinding] | None = None,
    ) -> None:
        self.rules = tuple(rules)
        self.failure_probability = dict(failure_probability)
        self.source = source
        self.declared_families = tuple(declared_families)
        self.executors = tuple(executors)
        self.affordance_sources = dict(affordance_sources or {})
        self.action_bindings = dict(action_bindings or {})
        self._by_text = {rule.skill.text: rule for rule in self.rules}

    def skills(self, with_drawer: bool = False) -> tuple[Skill, ...]:
        return tuple(rule.skill for rule in self.rules if with_drawer or not rule.requires_drawer)

    def find(self, text: str) -> SkillRule | None:
        return self._by_text.get(text)

    def families(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(rule.skill.family for rule in self.rules))

    def created_labels(self) -> frozenset[str]:
        """The labels a skill makes (``create``): absent from a scene until made, and so never missing."""
        return frozenset(label for rule in self.rules for label in rule.creates)

    def affordance_servers(self) -> dict[str, str]:
        """The user's EvaluateAffordance action of each family the file leaves to one (family -> action)."""
        return {family: source.action for family, source in self.affordance_sources.items() if source.kind == SERVER}


def load_skill_library(config: DomainConfig, path: str | Path | None = None) -> SkillLibrary:
    """Read and expand a skills file (default: domains/saycan_kitchen/skills.yaml); ConfigError lists its problems."""
    source = repo_path(path) if path else default_domain_file(SKILLS_FILE)
    text, data = read_yaml(
        source, ConfigError, "give the path of a skills file (docs/domains.md: a domain folder's skills.yaml)"
    )
    check = Checker()
    library = parse_skill_library(data, config, check, str(source))
    check.raise_if_any(str(source), ConfigError, text)
    assert library is not None
    return library


def readable_skill_library(config: DomainConfig, path: str | Path) -> SkillLibrary | None:
    """The skills file as far as it can be used despite its problems (the templates that expand), to check
    episode files against it; None when it is not a mapping with ``skills``."""
    _, data = read_yaml(repo_path(path), ConfigError, "give the path of a skills file")
    return parse_skill_library(data, config, Checker(), str(path), lenient=True)


def parse_skill_library(
    data: Any, config: DomainConfig, check: Checker, source: str, lenient: bool = False
) -> SkillLibrary | None:
    top = check.mapping(data, "", required=("skills",), optional=("families", "executors", "failure_probability"))
    if top is None:
        return None
    check.plain_texts(data)
    families, sources = parse_families(top.get("families", list(FAMILIES)), check)
    executors, bindings = parse_executors(top.get("executors", list(EXECUTORS)), check)
    templates = check.list_of(top["skills"], "skills") or []
    made = [
        (index, rule)
        for index, template in enumerate(templates)
        for rule in _expand(template, config, families, executors, check, join("skills", index))
    ]
    rules = [rule for _, rule in made]
    # A repeated skill is named at the template that repeats it, with the one that made it first.
    first: dict[str, int] = {}
    for index, rule in made:
        earlier = first.setdefault(rule.skill.text, index)
        if earlier != index:
            check.add(
                join("skills", index),
                f"makes the skill {rule.skill.text!r}, which skills[{earlier}] makes too; skill texts must be "
                "unique: remove one, or narrow its locations or objects",
            )
    failures = _failure_probabilities(top.get("failure_probability", {}), families, check)
    if check.problems and not lenient:
        return None
    return SkillLibrary(tuple(rules), failures, source, families, executors, sources, bindings)


def _expand(
    template: Any,
    config: DomainConfig,
    families: tuple[str, ...],
    executors: tuple[str, ...],
    check: Checker,
    where: str,
) -> list[SkillRule]:
    """The rules one template makes, or [] after recording its problems."""
    problems_before = len(check.problems)
    entry = check.mapping(template, where, required=("family", "text", "executor"), optional=_TEMPLATE_KEYS[3:])
    if entry is None:
        return []
    family = check.one_of(entry["family"], join(where, "family"), families, "family")
    text = check.string(entry["text"], join(where, "text"))
    executor = _executor(entry["executor"], executors, check, join(where, "executor"))
    requires_drawer = check.boolean(entry.get("requires_drawer", False), join(where, "requires_drawer"))
    preconditions = check.list_of(entry.get("preconditions", []), join(where, "preconditions"), allow_empty=True)
    effects = check.list_of(entry.get("effects", []), join(where, "effects"), allow_empty=True)
    listed = check.list_of(entry.get("requests", []), join(where, "requests"), allow_empty=True) or []
    requests = [check.string(item, join(join(where, "requests"), i)) for i, item in enumerate(listed)]
    bindings = _bindings(entry, config, bool(requires_drawer), check, where)
    if len(check.problems) > problems_before or text is None or family is None or executor is None:
        return []
    rules = []
    problems: dict[tuple[str, str], None] = {}
    for arguments, values in bindings:
        skill_text = _filled(text, values, check, join(where, "text"))
        if skill_text is None:
            return []
        # Every binding is checked (a fact over places may lack one of the template's locations), and a
        # problem that all bindings share is reported once.
        scratch = Checker()
        # A condition or change may also name the robot's place when the skill runs, which stays {here}.
        at_run = {**values, "here": HERE}
        required = [
            _precondition(item, at_run, config, scratch, join(join(where, "preconditions"), i))
            for i, item in enumerate(preconditions or [])
        ]
        changes = [
            _effect(item, at_run, config, scratch, join(join(where, "effects"), i))
            for i, item in enumerate(effects or [])
        ]
        asked = [_filled(item, values, scratch, join(join(where, "requests"), i)) for i, item in enumerate(requests)]
        problems.update(dict.fromkeys((problem.field, problem.message) for problem in scratch.problems))
        if not scratch.problems:
            skill = Skill(skill_text, family, arguments, executor)
            rules.append(SkillRule(skill, tuple(required), tuple(changes), bool(requires_drawer), tuple(asked)))  # type: ignore[arg-type]
    for field, message in problems:
        check.add(field, message)
    return [] if problems else rules


def _precondition(
    item: Any, values: Mapping[str, str], config: DomainConfig, check: Checker, where: str
) -> str | Condition | None:
    """A built-in precondition's name, or the condition a mapping writes (placeholders filled)."""
    if isinstance(item, str):
        name = check.one_of(item, where, tuple(PRECONDITIONS), "precondition")
        return name if name is None or _argument_fits(name, values, check, where) else None
    filled = _filled(item, values, check, where)
    return None if filled is None else parse_condition(filled, config, check, where, here=True)


def _argument_fits(name: str, values: Mapping[str, str], check: Checker, where: str) -> bool:
    """Whether the built-in ``name`` can read the skill's argument (``BUILT_IN_ARGUMENT``); else a problem."""
    kind = BUILT_IN_ARGUMENT.get(name)
    if kind is None or kind in values:
        return True
    has = "a location" if "location" in values else "an object" if "object" in values else "no argument"
    check.add(
        where,
        f"{name} reads the skill's {kind}, and this skill has {has}: write a condition or fact change "
        "instead (docs/domains.md), e.g. {holding: ...} or {robot_at: ...}",
    )
    return False


# The effects a skills file writes as a mapping of one key (docs/domains.md).
WRITTEN_EFFECTS = ("set", "clear", "put_held", "create", "consume")


def _effect(
    item: Any, values: Mapping[str, str], config: DomainConfig, check: Checker, where: str
) -> str | WrittenEffect | None:
    """A built-in effect's name, or the effect a mapping writes: ``{set: <fact>}`` / ``{clear: <fact>}``,
    ``{put_held: <place>}``, ``{create: {label: <label>, at: robot | here | <place>}}``, ``{consume: <label>}``."""
    if isinstance(item, str):
        name = check.one_of(item, where, tuple(EFFECTS), "effect")
        return name if name is None or _argument_fits(name, values, check, where) else None
    if not isinstance(item, Mapping) or len(item) != 1 or next(iter(item)) not in WRITTEN_EFFECTS:
        check.add(
            where,
            f"an effect is a built-in name ({', '.join(EFFECTS)}) or one of {{set: <fact>}}, {{clear: <fact>}}, "
            "{put_held: <place>}, {create: {label: <label>, at: robot | here | <place>}}, {consume: <label>}",
        )
        return None
    ((kind, value),) = item.items()
    field = join(where, kind)
    filled = _filled(value, values, check, field)
    if filled is None:
        return None
    places = config.places(with_drawer=True)
    if kind == "put_held":
        place = check.one_of(filled, field, places, "place")
        return None if place is None else PutHeld(place)
    if kind == "consume":
        label = check.one_of(filled, field, config.labels, "label")
        return None if label is None else Consume(label)
    if kind == "create":
        entry = check.mapping(filled, field, required=("label", "at"))
        if entry is None:
            return None
        label = check.one_of(entry["label"], join(field, "label"), config.labels, "label")
        at = check.one_of(entry["at"], join(field, "at"), (IN_GRIPPER, AT_ROBOT, *places), "place")
        return None if label is None or at is None else Create(label, at)
    atom = config.fact_names().check_atom(filled, check, field, here=True)
    return None if atom is None else FactChange(atom, kind == "set")


class TemplateError(ValueError):
    """A template string with something other than plain ``{name}`` placeholders of its values."""


def _filled(value: Any, values: Mapping[str, str], check: Checker, where: str) -> Any:
    """``value`` with the template's placeholders filled in every string of it; None after a problem."""
    try:
        return _fill(value, values)
    except TemplateError as error:
        check.add(where, str(error))
        return None


def _fill(value: Any, values: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return _substituted(value, values)
    if isinstance(value, Mapping):
        return {key: _fill(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, values) for item in value]
    return value


def _substituted(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each plain placeholder ``{name}`` replaced by ``values[name]``. Nothing else of
    Python's format syntax: attributes, indexes, format specs and conversions (``{object.__init__}``,
    ``{object:>99}``) would name memory addresses or make huge names, so they, an unknown name and a
    brace outside a placeholder raise TemplateError with the fix."""
    known = ", ".join(f"{{{name}}}" for name in values) or "none (this template has no for_each)"
    for name in PLACEHOLDER.findall(template):
        if name not in values:
            raise TemplateError(
                f"{{{name}}} is not a placeholder of this template; write one of {known} as it is "
                "(no attributes, indexes or format specs)"
            )
    if any(brace in PLACEHOLDER.sub("", template) for brace in "{}"):
        raise TemplateError(f"{template!r} has a brace outside a placeholder; write placeholders as {{name}}: {known}")
    return PLACEHOLDER.sub(lambda match: values[match[1]], template)


def _bindings(
    entry: Mapping[str, Any], config: DomainConfig, requires_drawer: bool, check: Checker, where: str
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


def _executor(value: Any, executors: tuple[str, ...], check: Checker, where: str) -> str | None:
    if value is None:
        return NO_EXECUTOR
    return check.one_of(value, where, executors, "executor")


def _failure_probabilities(value: Any, families: tuple[str, ...], check: Checker) -> dict[str, float]:
    entries = check.mapping(value, "failure_probability", optional=families)
    if entries is None:
        return {}
    probabilities = {family: check.probability(p, join("failure_probability", family)) for family, p in entries.items()}
    return {family: p for family, p in probabilities.items() if p is not None}

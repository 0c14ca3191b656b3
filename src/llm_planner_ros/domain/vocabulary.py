"""The skill families and executors a skills file declares, with how each is scored and run.

``families`` and ``executors`` are lists of names, or mappings from names to what the domain says about
them (docs/domains.md):

    families:
      wipe: {affordance: analytic}              # its written preconditions decide (the default here)
      elevator: {affordance: {constant: 0.9}}   # 0.9 whenever its written preconditions hold
      door: {affordance: {server: door_affordance}}  # the user's own EvaluateAffordance server
    executors:
      wiper:
        action:                                 # run its skills as goals of any ROS 2 action
          type: control_msgs/action/GripperCommand
          name: wiper/gripper_cmd
          goal: {command: {position: 0.0, max_effort: "{effort}"}}
          success: {field: reached_goal}
          timeout_s: 30

Everything here is plain data checked as the file loads; the executor node imports the action type
(skill_executors.action_backend) and the planner and affordance server route the ``server`` families.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from llm_planner_ros.domain.validation import Checker, join

T = TypeVar("T")

# How a family's affordance is found (``affordance`` of a family entry).
ANALYTIC = "analytic"
CONSTANT = "constant"
SERVER = "server"

# ROS 2 action type names: package/action/Name.
_ACTION_TYPE = re.compile(r"^[a-z][a-z0-9_]*/action/[A-Z][A-Za-z0-9]*$")
# ROS 2 names: tokens of letters, digits and underscores, separated by '/', optionally absolute.
_ROS_NAME = re.compile(r"^/?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$")
# A goal template's placeholder: {location}, {place.x}.
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class AffordanceSource:
    """Where a family's affordance comes from: ``analytic`` (the kitchen families' calibrated functions,
    any other family's written preconditions), ``constant`` (``value`` while the written preconditions
    hold, else 0) or ``server`` (the EvaluateAffordance action ``action``, relative to the planner's
    namespace, which the user runs; the project's affordance_server leaves the family to it)."""

    kind: str = ANALYTIC
    value: float = 1.0
    action: str = ""


@dataclass(frozen=True)
class SuccessRule:
    """How an action's result says the skill succeeded: the goal SUCCEEDED and, with ``field`` (a dotted
    path into the result), that field equals ``equals`` (or, without it, is true). ``message`` names
    the result field whose text becomes the skill's message."""

    field: str = ""
    equals: Any = None
    message: str = ""


@dataclass(frozen=True)
class ActionBinding:
    """An executor whose skills run as goals of the ROS 2 action ``name`` of type ``type``
    (``package/action/Name``). ``goal`` maps the goal's fields to values; strings may hold the
    placeholders of ``GOAL_PLACEHOLDERS``; ``timeout_s`` bounds one goal."""

    type: str
    name: str
    goal: Mapping[str, Any] = field(default_factory=dict)
    success: SuccessRule = SuccessRule()
    timeout_s: float = 300.0

    def placeholders(self) -> set[str]:
        """Every placeholder the goal template uses."""
        found: set[str] = set()

        def visit(value: Any) -> None:
            if isinstance(value, str):
                found.update(PLACEHOLDER.findall(value))
            elif isinstance(value, Mapping):
                for item in value.values():
                    visit(item)
            elif isinstance(value, list):
                for item in value:
                    visit(item)

        visit(dict(self.goal))
        return found


# What a goal template may ask for: the skill's own fields and arguments, and the base pose of the place
# it goes to or works at from the executor's place map (map_file).
GOAL_PLACEHOLDERS = ("skill", "family", "object", "location", "place.x", "place.y", "place.yaw")


def parse_families(value: Any, check: Checker) -> tuple[tuple[str, ...], dict[str, AffordanceSource]]:
    """The declared families in order and the affordance source of each one that names it."""
    return _parse_declared(value, "families", "family", "affordance", _affordance_source, check)


def parse_executors(value: Any, check: Checker) -> tuple[tuple[str, ...], dict[str, ActionBinding]]:
    """The declared executors in order and the action binding of each one that has one."""
    return _parse_declared(value, "executors", "executor", "action", _action_binding, check)


def _parse_declared(
    value: Any,
    field: str,
    what: str,
    key: str,
    parse: Callable[[Any, str, Checker], T | None],
    check: Checker,
) -> tuple[tuple[str, ...], dict[str, T]]:
    """Names of a ``families``/``executors`` declaration and, per entry that has ``key``, its parsed value."""
    names, entries = _names_and_entries(value, field, what, check)
    parsed: dict[str, T] = {}
    for name, entry in entries.items():
        where = join(field, name)
        fields = check.mapping(entry, where, optional=(key,))
        if fields is not None and key in fields:
            result = parse(fields[key], join(where, key), check)
            if result is not None:
                parsed[name] = result
    return names, parsed


def _names_and_entries(value: Any, field: str, what: str, check: Checker) -> tuple[tuple[str, ...], dict[str, Any]]:
    """Names of a list, or of a mapping with their entries (``None`` entries mean nothing said)."""
    if isinstance(value, Mapping):
        names, entries = [], {}
        for name, entry in value.items():
            if _valid_name(name, join(field, str(name)), what, check, names):
                names.append(name)
                if entry is not None:
                    entries[name] = entry
        if not names:
            check.add(field, f"must declare at least one {what}")
        return tuple(names), entries
    items = check.list_of(value, field) or []
    names = []
    for index, name in enumerate(items):
        if _valid_name(name, join(field, index), what, check, names):
            names.append(name)
    return tuple(names), {}


def _valid_name(name: Any, where: str, what: str, check: Checker, declared: list[str]) -> bool:
    text = check.string(name, where)
    if text is None:
        return False
    if not text.isidentifier():
        check.add(where, f"{what} {text!r} must be an identifier (letters, digits, _): it names a ROS action")
        return False
    if text in declared:
        check.add(where, f"{what} {text!r} is declared twice")
        return False
    return True


def _affordance_source(value: Any, where: str, check: Checker) -> AffordanceSource | None:
    if value == ANALYTIC:
        return AffordanceSource(ANALYTIC)
    if isinstance(value, Mapping) and len(value) == 1:
        kind, argument = next(iter(value.items()))
        if kind == CONSTANT:
            probability = check.probability(argument, join(where, CONSTANT))
            return None if probability is None else AffordanceSource(CONSTANT, value=probability)
        if kind == SERVER:
            action = _ros_name(argument, join(where, SERVER), check)
            return None if action is None else AffordanceSource(SERVER, action=action)
    check.add(
        where,
        f"must be {ANALYTIC!r}, {{{CONSTANT}: <probability>}} or {{{SERVER}: <EvaluateAffordance action name>}}, "
        f"got {value!r}",
    )
    return None


def _action_binding(value: Any, where: str, check: Checker) -> ActionBinding | None:
    fields = check.mapping(value, where, required=("type", "name"), optional=("goal", "success", "timeout_s"))
    if fields is None:
        return None
    problems_before = len(check.problems)
    action_type = check.string(fields["type"], join(where, "type"))
    if action_type is not None and not _ACTION_TYPE.match(action_type):
        check.add(join(where, "type"), f"{action_type!r} is not an action type: write package/action/Name")
    name = _ros_name(fields["name"], join(where, "name"), check)
    goal = fields.get("goal", {})
    if not isinstance(goal, Mapping):
        check.add(join(where, "goal"), f"must be a mapping of the goal's fields to values, got {goal!r}")
    success = _success_rule(fields.get("success", {}), join(where, "success"), check)
    timeout = check.number(fields.get("timeout_s", 300.0), join(where, "timeout_s"))
    if timeout is not None and timeout <= 0:
        check.add(join(where, "timeout_s"), f"must be positive, got {timeout}")
    binding = None
    if len(check.problems) == problems_before:
        assert action_type is not None and name is not None and success is not None and timeout is not None
        binding = ActionBinding(action_type, name, dict(goal), success, timeout)
        known = ", ".join("{" + name + "}" for name in GOAL_PLACEHOLDERS)
        for unknown in sorted(binding.placeholders() - set(GOAL_PLACEHOLDERS)):
            check.add(join(where, "goal"), f"unknown placeholder {{{unknown}}}; a goal may use {known}")
    return binding if len(check.problems) == problems_before else None


def _success_rule(value: Any, where: str, check: Checker) -> SuccessRule | None:
    fields = check.mapping(value, where, optional=("field", "equals", "message"))
    if fields is None:
        return None
    result_field = fields.get("field", "")
    message = fields.get("message", "")
    for key, text in (("field", result_field), ("message", message)):
        if text and check.string(text, join(where, key)) is None:
            return None
    if "equals" in fields and not result_field:
        check.add(join(where, "equals"), "needs `field`: the result field to compare")
        return None
    return SuccessRule(result_field, fields.get("equals"), message)


def _ros_name(value: Any, where: str, check: Checker) -> str | None:
    text = check.string(value, where)
    if text is not None and not _ROS_NAME.match(text):
        check.add(where, f"{text!r} is not a ROS name (tokens of letters, digits and _ separated by '/')")
        return None
    return text

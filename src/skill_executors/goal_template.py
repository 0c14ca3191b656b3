"""A domain's goal template (llm_planner_ros.domain.vocabulary.ActionBinding) made into a goal message.

The template mirrors the goal's fields: a mapping fills a nested message, a list a sequence, anything
else a field of a built-in type. Strings may hold placeholders (``"wipe_{location}"``); a string that is
one placeholder and fills a number or a boolean is converted to the field's type (``"{place.x}"`` into a
``float64``). ``fill_goal`` raises TemplateError naming the template's path, the message's fields and
what to write instead, so a wrong template stops the executor at start-up rather than at its first skill.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from typing import Any

from llm_planner_ros.domain.vocabulary import PLACEHOLDER

_INTEGER = re.compile(r"^u?int(8|16|32|64)$|^(byte|char|octet)$")
_FLOAT = re.compile(r"^float(32|64)$|^double$")
_SEQUENCE = re.compile(r"^sequence<(?P<element>[^,>]+)(,\s*\d+)?>$|^(?P<array>[^\[]+)\[\d*\]$")


class TemplateError(ValueError):
    """A goal template that does not fit its action's goal message, or a placeholder without a value."""


def import_action(type_name: str) -> Any:
    """The action class of ``package/action/Name``; TemplateError says how to make it importable."""
    package, _, name = type_name.split("/")
    try:
        module = importlib.import_module(f"{package}.action")
    except ModuleNotFoundError as error:
        raise TemplateError(
            f"action type {type_name}: the interface package {package!r} is not installed in this Python "
            "environment; build it (colcon build) and source its workspace before starting the executor"
        ) from error
    action = getattr(module, name, None)
    if action is None:
        known = sorted(n for n in dir(module) if n[:1].isupper())
        raise TemplateError(f"action type {type_name}: {package} has no action {name!r} (it has {', '.join(known)})")
    return action


def fill_goal(goal_type: Any, template: Mapping[str, Any], values: Mapping[str, str]) -> Any:
    """A ``goal_type`` message with ``template`` filled from ``values`` (placeholder name -> text)."""
    goal = goal_type()
    _fill_message(goal, template, values, "goal")
    return goal


def _fill_message(message: Any, template: Mapping[str, Any], values: Mapping[str, str], where: str) -> None:
    types: dict[str, str] = message.get_fields_and_field_types()
    for name, value in template.items():
        path = f"{where}.{name}"
        if name not in types:
            raise TemplateError(
                f"{path}: {_type_name(message)} has no field {name!r}; its fields are {', '.join(types)}"
            )
        field_type = types[name]
        if isinstance(value, Mapping):
            nested = getattr(message, name)
            if not hasattr(nested, "get_fields_and_field_types"):
                raise TemplateError(f"{path} is a {field_type}, not a message: give it a value, not a mapping")
            _fill_message(nested, value, values, path)
        elif isinstance(value, list):
            setattr(message, name, _sequence(field_type, value, values, path))
        else:
            setattr(message, name, _scalar(field_type, value, values, path))


def _sequence(field_type: str, items: list[Any], values: Mapping[str, str], where: str) -> list[Any]:
    match = _SEQUENCE.match(field_type)
    if match is None:
        raise TemplateError(f"{where} is a {field_type}, not a sequence: give it one value, not a list")
    element = (match.group("element") or match.group("array")).strip()
    filled = []
    for index, item in enumerate(items):
        path = f"{where}[{index}]"
        if isinstance(item, Mapping):
            if "/" not in element:
                raise TemplateError(f"{path}: the elements are {element}, not messages")
            message = _message_class(element)()
            _fill_message(message, item, values, path)
            filled.append(message)
        else:
            filled.append(_scalar(element, item, values, path))
    return filled


def _type_name(message: Any) -> str:
    """``GripperCommand goal`` for rosidl's ``GripperCommand_Goal`` class, else the class name."""
    name = type(message).__name__
    for part in ("Goal", "Result", "Feedback"):
        if name.endswith(f"_{part}"):
            return f"{name.removesuffix(f'_{part}')} {part.lower()}"
    return name


def _message_class(type_name: str) -> Any:
    package, *_, name = type_name.split("/")
    return getattr(importlib.import_module(f"{package}.msg"), name)


def _scalar(field_type: str, value: Any, values: Mapping[str, str], where: str) -> Any:
    if isinstance(value, str):
        value = _substitute(value, values, where)
    try:
        if _FLOAT.match(field_type):
            return float(value)
        if _INTEGER.match(field_type):
            return int(value)
        if field_type == "boolean":
            return value if isinstance(value, bool) else {"true": True, "false": False}[str(value).lower()]
        if field_type.startswith("string") or field_type.startswith("wstring"):
            return str(value)
    except (ValueError, KeyError) as error:
        raise TemplateError(f"{where} is a {field_type}; {value!r} is not one") from error
    raise TemplateError(f"{where} is a {field_type}: fill it with a mapping of its fields")


def _substitute(text: str, values: Mapping[str, str], where: str) -> str:
    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise TemplateError(f"{where}: {{{name}}} has no value for this skill (it has {', '.join(values)})")
        return values[name]

    return PLACEHOLDER.sub(value_of, text)

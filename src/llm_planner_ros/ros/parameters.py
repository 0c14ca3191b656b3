"""The one way every node of this project declares its ROS parameters, and the one typing rule.

Each parameter is a ``Parameter``: a default (whose type is the parameter's type), a description,
and optionally inclusive bounds (numbers) or choices (strings). The value a node starts with (from a
parameter file or ``-p name:=value``) is checked by ``accept``:

- an integer given for a float parameter is taken as that float (YAML ``60`` for ``60.0`` is not a
  user error), also inside a list of floats;
- any other type, a number out of bounds, or a string outside the choices raises ``StartupError``
  naming the parameter, the value given, what is expected and the fix (``run_node`` turns it into one
  fatal log line and exit status 1).

Bounds also go into the ParameterDescriptor (``ros2 param describe`` shows them, and rclpy refuses
a later ``ros2 param set`` outside them); choices go into its ``additional_constraints`` text, and a
``ros2 param set`` outside them is refused with the same message. A parameter a node reads only when it
starts (a topic name, a queue depth) is ``read_only``: a later set is refused instead of being accepted
and never taking effect.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter as RclpyParameter

from llm_planner_ros.ros.node_startup import StartupError

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


@dataclasses.dataclass(frozen=True)
class Parameter:
    """One node parameter. ``minimum``/``maximum`` are inclusive bounds of a number; ``choices`` are the
    values a string (or each string of a list) may take. A default that breaks its own rule is a
    programming error (ValueError at import)."""

    default: Any
    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    read_only: bool = False

    def __post_init__(self) -> None:
        if self.default is None or (isinstance(self.default, list) and not self.default):
            raise ValueError(f"parameter default {self.default!r} has no type: give a non-empty default")
        try:
            accept("<default>", self, self.default)
        except StartupError as error:
            raise ValueError(str(error)) from None

    def descriptor(self) -> ParameterDescriptor:
        """The descriptor rclpy declares the parameter with (static type: the default's)."""
        descriptor = ParameterDescriptor(description=self.description, read_only=self.read_only)
        if self.choices:
            descriptor.additional_constraints = f"one of: {', '.join(self.choices)}"
        if self.minimum is None and self.maximum is None:
            return descriptor
        if _kind(self.default) is int:
            low = _INT64_MIN if self.minimum is None else int(self.minimum)
            high = _INT64_MAX if self.maximum is None else int(self.maximum)
            descriptor.integer_range = [IntegerRange(from_value=low, to_value=high, step=1)]
        elif _kind(self.default) is float:
            low = -math.inf if self.minimum is None else float(self.minimum)
            high = math.inf if self.maximum is None else float(self.maximum)
            descriptor.floating_point_range = [FloatingPointRange(from_value=low, to_value=high, step=0.0)]
        return descriptor


def accept(name: str, spec: Parameter, value: Any) -> Any:
    """``value`` as parameter ``name`` takes it (ints converted for float parameters); StartupError
    naming the parameter, the value, what is expected and the fix when the value breaks ``spec``."""
    converted = _convert(value, spec.default)
    if converted is None:
        _refuse(name, spec, value, f"{_expected_type(spec.default)}, not {_type_name(value)}")
    items = converted if isinstance(converted, list) else [converted]
    if spec.choices and any(item not in spec.choices for item in items):
        _refuse(name, spec, value, f"one of {', '.join(spec.choices)}")
    if any(_outside(item, spec) for item in items if isinstance(item, (int, float))):
        _refuse(name, spec, value, f"{_expected_type(spec.default)} {_bounds(spec)}")
    return converted


def declare_parameters(node: Node, specs: Mapping[str, Parameter]) -> dict[str, Any]:
    """Declare every parameter of ``specs`` on ``node`` (statically typed like its default, with its
    bounds) and return the values in effect; StartupError for a value ``accept`` refuses."""
    values: dict[str, Any] = {}
    for name, spec in specs.items():
        # Read what the user gave with dynamic typing first: rclpy would refuse 60 for 60.0 outright,
        # and with its own message. Then declare for real, with the converted value and a static type.
        given = node.declare_parameter(name, spec.default, ParameterDescriptor(dynamic_typing=True)).value
        node.undeclare_parameter(name)
        values[name] = accept(name, spec, given)
        node.declare_parameter(name, values[name], spec.descriptor(), ignore_override=True)
    node.add_on_set_parameters_callback(lambda changes: _check_changes(specs, changes))
    return values


def _check_changes(specs: Mapping[str, Parameter], changes: list[RclpyParameter]) -> SetParametersResult:
    """A later ``ros2 param set`` is checked by the rule the start-up value was (rclpy itself checks only
    the type, the bounds and read_only, not the choices)."""
    for change in changes:
        spec = specs.get(change.name)
        if spec is None:
            continue
        try:
            accept(change.name, spec, change.value)
        except StartupError as error:
            return SetParametersResult(successful=False, reason=str(error))
    return SetParametersResult(successful=True)


def field_parameters(kind: type, prefix: str = "") -> dict[str, Parameter]:
    """One Parameter per field of the dataclass ``kind`` (``prefix`` + field name), from the field's
    default and its metadata ``help`` (the description) and optional ``choices``."""
    return {
        f"{prefix}{f.name}": Parameter(f.default, f.metadata["help"], choices=tuple(f.metadata.get("choices", ())))
        for f in dataclasses.fields(kind)
    }


def _kind(value: Any) -> type:
    return type(value[0]) if isinstance(value, list) else type(value)


def _convert(value: Any, default: Any) -> Any:
    """``value`` converted to ``default``'s type, or None when it is of another type."""
    if isinstance(default, list):
        if not isinstance(value, (list, tuple)):
            return None
        items = [_convert(item, default[0]) for item in value]
        return None if any(item is None for item in items) else items
    if type(value) is type(default):
        return value
    if type(default) is float and type(value) is int:
        return float(value)
    return None


def _outside(value: float, spec: Parameter) -> bool:
    return (spec.minimum is not None and value < spec.minimum) or (spec.maximum is not None and value > spec.maximum)


def _bounds(spec: Parameter) -> str:
    if spec.minimum is not None and spec.maximum is not None:
        return f"from {spec.minimum:g} to {spec.maximum:g}"
    return f"of at least {spec.minimum:g}" if spec.minimum is not None else f"of at most {spec.maximum:g}"


# What a value of each type is called, alone and in a list.
_TYPE_NAMES = {
    bool: ("a boolean (true or false)", "booleans"),
    int: ("an integer", "integers"),
    float: ("a float", "floats"),
    str: ("a string", "strings"),
}


def _expected_type(default: Any) -> str:
    if isinstance(default, list):
        return f"a list of {_TYPE_NAMES[type(default[0])][1]}"
    return _TYPE_NAMES[type(default)][0]


def _type_name(value: Any) -> str:
    if value is None:  # how rclpy reads `-p name:=[]` (an empty list has no element type)
        return "an empty value"
    if isinstance(value, (list, tuple)):
        plural = _TYPE_NAMES.get(type(value[0]), ("", "values"))[1] if value else "values"
        return f"a list of {plural}"
    return _TYPE_NAMES.get(type(value), (type(value).__name__, ""))[0]


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ",".join(_literal(item) for item in value) + "]"
    return str(value) if not isinstance(value, str) or value else "''"


def _refuse(name: str, spec: Parameter, value: Any, expected: str) -> None:
    raise StartupError(
        f"parameter {name} is {value!r}, expected {expected}: fix it in the node's parameter file or its "
        f"--ros-args -p {name}:=... override (default: {_literal(spec.default)})"
    )

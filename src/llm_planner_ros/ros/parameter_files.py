"""What a ROS parameter file gives which node, read as rcl reads it, and which parameters each node of
this project declares: the one rule by which ``llm-planner up``/``demo``, ``ros2 launch`` (through
``bringup.check_params_file``) and every node started alone (``ros2 run ... --ros-args --params-file``,
through ``check_node_parameter_files``) refuse a key that no node would take.

rcl applies a node-name key to the nodes whose fully qualified name it matches, and says nothing of a
parameter no node declares: ``require_confirmaton: true`` or ``confirm_each_step: true`` left the
planner running without a person's approval. A key reaches a node in any of these forms (checked
against rclpy): ``planner``, ``/planner``, ``/robot1/planner``, ``robot1: {planner: ...}`` (nested
namespaces), ``/*`` (one name token) and ``/**`` (any number) wildcards such as ``/**``,
``/**/planner``, ``/robot1/*``. Nested mappings under ``ros__parameters`` are dotted names
(``llm: {backend: replay}`` is ``llm.backend``).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.yaml_text import load_yaml

ROS_PARAMETERS = "ros__parameters"
# What rclpy declares on every node by itself.
BUILT_IN_PARAMETERS = frozenset({"use_sim_time", "start_type_description_service"})


class ParameterFileError(ValueError):
    """A parameter file that is not YAML, not a mapping of node names to ``ros__parameters``, or that
    gives a node a parameter it does not declare; the message names the file, the key and the fix."""


@dataclasses.dataclass(frozen=True)
class Entry:
    """The parameters one node-name key of a file gives: ``key`` as written (nested namespaces joined
    with ``/``), ``pattern`` the absolute name rcl matches node names against, ``parameters`` the
    dotted parameter names and their values."""

    key: str
    pattern: str
    parameters: Mapping[str, Any]

    @property
    def wildcard(self) -> bool:
        """Whether the key addresses nodes by pattern (``*``/``**`` tokens) rather than by name."""
        return any(token in ("*", "**") for token in self.pattern.split("/"))

    def matches(self, fully_qualified_name: str) -> bool:
        """Whether rcl gives these parameters to the node ``fully_qualified_name`` (``/robot1/planner``)."""
        return _pattern_regex(self.pattern).fullmatch(fully_qualified_name) is not None


@functools.lru_cache(maxsize=256)
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """The regex rcl reads a node-name key as: ``*`` is one name token, ``**`` any number of them (none too)."""
    tokens = {"**": "(/[^/]+)*", "*": "/[^/]+"}
    return re.compile("".join(tokens.get(token, "/" + re.escape(token)) for token in pattern.strip("/").split("/")))


def read_document(path: Path) -> dict[Any, Any]:
    """The YAML mapping of the parameter file ``path``; ParameterFileError says why it cannot be one."""
    try:
        document = load_yaml(path.read_text(encoding="utf-8"), str(path)) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ParameterFileError(f"params_file {path} cannot be read as YAML: {error}") from error
    if not isinstance(document, dict):
        raise ParameterFileError(f"params_file {path} is not a ROS parameter file (node name: ros__parameters: ...)")
    return document


def file_entries(document: Mapping[Any, Any], namespace: str = "") -> tuple[list[Entry], list[str]]:
    """The entries of a parameter file's ``document`` and its malformed keys (one line each). With a
    ``namespace`` the top-level keys without a leading ``/`` are read inside it, as
    ``bringup.namespaced_param_file`` rewrites them."""
    entries: list[Entry] = []
    problems: list[str] = []
    for key, value in document.items():
        key = str(key)
        prefix = "" if key.startswith("/") else namespace
        for path, parameters in _node_sections(key, value):
            if parameters is None:
                problems.append(f"{path}: expected '{ROS_PARAMETERS}:' with a mapping of parameter names to values")
            else:
                pattern = "/" + "/".join(token for token in f"{prefix}/{path}".split("/") if token)
                entries.append(Entry(path, pattern, dict(_dotted(parameters))))
    return entries, problems


def _node_sections(path: str, value: Any) -> Iterator[tuple[str, Mapping[str, Any] | None]]:
    """``(key, ros__parameters)`` for every node section under ``path`` (nested keys are namespaces);
    None for a section that has no ``ros__parameters`` mapping."""
    if not isinstance(value, dict) or not value:
        yield path, None
        return
    for key, inner in value.items():
        if key == ROS_PARAMETERS:
            yield path, inner if isinstance(inner, dict) else None
        else:
            yield from _node_sections(f"{path}/{key}", inner)


def _dotted(parameters: Mapping[Any, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for name, value in parameters.items():
        if isinstance(value, dict):
            yield from _dotted(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def suggestion(name: str, known: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for the known name one typo away from ``name``, else ""."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
    return f" (did you mean {close[0]!r}?)" if close else ""


@dataclasses.dataclass(frozen=True)
class DeclaringModule:
    """The module whose dicts (``names``) an executable gives ``declare_parameters``; called, the merged
    dict of each parameter's ``ros.parameters.Parameter`` (the module is imported only then)."""

    module: str
    names: tuple[str, ...]

    def __call__(self) -> Mapping[str, Any]:
        declared = importlib.import_module(self.module)
        return {key: spec for name in self.names for key, spec in getattr(declared, name).items()}


def _module_parameters(module: str, *names: str) -> DeclaringModule:
    return DeclaringModule(module, names)


_EXECUTOR = _module_parameters("skill_executors.executor_node", "PARAMETERS")
# Where each executable of the package declares its parameters (the dicts it gives declare_parameters),
# cheapest import first: a node checking a `/**` key it does not declare stops at the first that does.
DECLARED_BY: dict[str, DeclaringModule] = {
    "plan_recorder": _module_parameters("llm_planner_ros.nodes.plan_recorder_node", "PARAMETERS"),
    "sim_world": _module_parameters("llm_planner_ros.kitchen_sim.sim_world_node", "PARAMETERS"),
    "saycanpay_scorer": _module_parameters("affordance_servers.saycanpay_scorer_node", "PARAMETERS"),
    "llm_service": _module_parameters("llm_planner_ros.nodes.llm_service_node", "_PARAMETERS"),
    "affordance_server": _module_parameters(
        "affordance_servers.affordance_server_node", "PARAMETERS", "CALIBRATION_PARAMETERS"
    ),
    "manipulator_executor": _EXECUTOR,
    "mobile_base_executor": _EXECUTOR,
    "skill_executor": _EXECUTOR,
    "planner": _module_parameters("llm_planner_ros.nodes.planner_node", "DECLARED_PARAMETERS"),
    "physics_sim": _module_parameters("llm_planner_ros.kitchen_sim.physics_sim_node", "PARAMETERS"),
    "perception": _module_parameters("llm_planner_ros.perception.perception_node", "PARAMETERS"),
    "operator_console": _module_parameters("llm_planner_ros.nodes.operator_console_node", "PARAMETERS"),
}


@functools.cache
def declared_parameters(executable: str) -> frozenset[str]:
    """The parameter names a node of ``executable`` declares, rclpy's own included."""
    return frozenset(DECLARED_BY[executable]()) | BUILT_IN_PARAMETERS


def declared_default(executable: str, name: str) -> Any:
    """The default a node of ``executable`` declares for its parameter ``name``: what it runs with where no
    file sets it (KeyError when it declares no such parameter)."""
    return DECLARED_BY[executable]()[name].default


def declared_by_some_node(name: str) -> bool:
    """Whether any executable of the package declares ``name`` (what a ``/**`` key needs)."""
    return any(name in declared_parameters(executable) for executable in DECLARED_BY)


def ros_params_files(argv: Sequence[str]) -> list[Path]:
    """The ``--params-file`` paths of the ``--ros-args`` sections of a command line."""
    files: list[Path] = []
    in_ros_args = False
    for index, arg in enumerate(argv):
        if arg == "--ros-args":
            in_ros_args = True
        elif arg == "--":
            in_ros_args = False
        elif in_ros_args and arg == "--params-file" and index + 1 < len(argv):
            files.append(Path(argv[index + 1]))
    return files


def check_node_parameter_files(
    fully_qualified_name: str, declares: Callable[[str], bool], all_declared: Sequence[str], argv: Sequence[str]
) -> None:
    """Refuse (ParameterFileError, every problem listed) a key of the node's ``--params-file`` files that the
    node ``fully_qualified_name`` would be given and does not declare (``declares``; ``all_declared``
    goes into the message). A key given by a wildcard (``/**``) reaches every node, so it is refused
    only when no node of the package declares it."""
    problems: list[str] = []
    for path in ros_params_files(argv):
        entries, _ = file_entries(read_document(path))
        for entry in entries:
            if not entry.matches(fully_qualified_name):
                continue
            for name in entry.parameters:
                if declares(name) or (entry.wildcard and declared_by_some_node(name)):
                    continue
                problems.append(
                    f"{path}: {entry.key}.{name}: not a parameter of {fully_qualified_name}"
                    f"{suggestion(name, all_declared)}; its parameters: {', '.join(sorted(all_declared))}"
                )
    if problems:
        raise ParameterFileError(
            f"{len(problems)} parameter file key(s) that this node does not declare would be ignored; remove "
            "or correct them:\n  " + "\n  ".join(problems)
        )

"""How the parameters of a graph's nodes are layered (packaged files, the domain folder's, the user's
``params_file``) and checked before anything starts: a user's file that would be misread, and domain files
the nodes would refuse, are refused here with every problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from llm_planner_ros.bringup.graphs import RENAMED_NODES, NodeSpec, Placement, planner_spec
from llm_planner_ros.bringup.options import GraphOptionError, GraphOptions
from llm_planner_ros.domain.config import load_domain_config
from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_check import check_domain
from llm_planner_ros.domain.domain_folder import SKILLS_FILE, WORLD_FILE
from llm_planner_ros.domain.skill import EXECUTOR_NODE_SUFFIX
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.paths import default_domain_file, repo_path
from llm_planner_ros.ros.parameter_files import (
    Entry,
    ParameterFileError,
    declared_parameters,
    file_entries,
    read_document,
    suggestion,
)
from llm_planner_ros.yaml_text import load_yaml


def packaged_parameters(spec: NodeSpec) -> dict[str, object]:
    """The parameters ``spec``'s packaged files set for its node name, later files winning."""
    merged: dict[str, object] = {}
    for path in spec.param_paths():
        document = load_yaml(path.read_text(), str(path)) or {}
        merged.update((document.get(spec.name) or {}).get("ros__parameters") or {})
    return merged


def _same_kind(given: object, packaged: object) -> bool:
    """Whether rcl applies ``given`` over ``packaged``: a value of another type is dropped without a word
    when both come from parameter files (the packaged value stays), so it must be refused here."""
    if isinstance(packaged, bool) or isinstance(given, bool):
        return type(given) is type(packaged)
    if isinstance(packaged, float):
        return isinstance(given, (int, float))
    if isinstance(packaged, list):
        return isinstance(given, list) and (not packaged or all(_same_kind(item, packaged[0]) for item in given))
    return type(given) is type(packaged)


def check_params_file(path: Path, placements: Sequence[Placement]) -> None:
    """Refuse a user's parameter file that would be misread without a word, listing every problem: a
    node key that reaches no node of ``placements`` (``planer:``, ``/robot2/planner`` in a graph under
    /robot1), a parameter no node it reaches declares (``require_confirmaton``, ``confirm_each_step``;
    the node's parameters are listed), and a value of another type than the packaged one (rcl keeps the
    packaged value: ``max_steps: "thirty"`` ran with 30). Every key form rcl reads is checked alike
    (``planner``, ``/planner``, ``/robot1/planner``, nested namespaces, ``/**``, ``/**/planner``); a
    wildcard key reaches several nodes, so one of them declaring a parameter is enough."""
    try:
        document = read_document(path)
    except ParameterFileError as error:
        raise GraphOptionError(str(error)) from error
    problems: list[str] = []
    reached: dict[str, tuple[Entry, list[NodeSpec]]] = {}
    for namespace, specs in placements:
        entries, malformed = file_entries(document, namespace)
        problems += [line for line in malformed if line not in problems]
        for entry in entries:
            nodes = [spec for spec in specs if entry.matches(_qualified(namespace, spec.name))]
            reached.setdefault(entry.key, (entry, []))[1].extend(nodes)
    for entry, nodes in reached.values():
        lines = _entry_problems(entry, nodes) if nodes else [_no_node(entry, placements)]
        problems += [line for line in lines if line not in problems]
    if problems:
        raise GraphOptionError(
            f"params_file {path} has {len(problems)} problem(s); fix them and start again:\n  " + "\n  ".join(problems)
        )


def _qualified(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


def _no_node(entry: Entry, placements: Sequence[Placement]) -> str:
    """The problem of a key that reaches no node: the nodes there are (by name when all are at the root)."""
    rooted = all(not namespace for namespace, _ in placements)
    names = [spec.name if rooted else _qualified(ns, spec.name) for ns, specs in placements for spec in specs]
    given = entry.key if rooted else entry.pattern
    read_as = "" if rooted or entry.pattern == f"/{entry.key}" else f" (read as {entry.pattern})"
    old_name = entry.key.rsplit("/", 1)[-1]
    hint = (
        f" (named {RENAMED_NODES[old_name]!r} since 0.4.0)" if old_name in RENAMED_NODES else suggestion(given, names)
    )
    return f"{entry.key}{read_as}: not a node of this graph{hint}; its nodes: {', '.join(names)}"


def _entry_problems(entry: Entry, nodes: Sequence[NodeSpec]) -> list[str]:
    """The parameters of ``entry`` that none of the ``nodes`` it reaches declares, or whose value has
    another type than a packaged one of those nodes."""
    problems = []
    for name, value in entry.parameters.items():
        declaring = [spec for spec in nodes if name in declared_parameters(spec.executable)]
        if not declaring:
            problems.append(_undeclared(entry, name, nodes))
        for spec in declaring:
            packaged = packaged_parameters(spec)
            if name in packaged and not _same_kind(value, packaged[name]):
                problems.append(
                    f"{entry.key}.{name}: {value!r} is {type(value).__name__}, the parameter is "
                    f"{type(packaged[name]).__name__} (packaged value {packaged[name]!r})"
                )
                break
    return problems


def _undeclared(entry: Entry, name: str, nodes: Sequence[NodeSpec]) -> str:
    """The problem of a parameter no node ``entry`` reaches declares: with the node's parameters when it
    reaches one node (in each namespace), with the nodes it reaches otherwise."""
    labels = list(dict.fromkeys(spec.name for spec in nodes))
    known = sorted({known for spec in nodes for known in declared_parameters(spec.executable)})
    hint = suggestion(name, known)
    if len(labels) == 1:
        return f"{entry.key}.{name}: not a parameter of {labels[0]}{hint}; its parameters: {', '.join(known)}"
    return f"{entry.key}.{name}: not a parameter of any node it applies to ({', '.join(labels)}){hint}"


def check_domain_files(specs: tuple[NodeSpec, ...], options: GraphOptions) -> None:
    """Load the world and skills files every node of ``specs`` would load (its ``world_file`` and
    ``skills_file`` after the packaged files and ``params_file``), so that a bad one is refused here, once,
    with every problem and its line, instead of by each node as it starts (where the CLI could only say
    the graph did not come up). GraphOptionError names the nodes and the file."""
    user = user_parameters(options)
    readers: dict[tuple[str, str | None], list[str]] = {}
    for spec in specs:
        params = effective_parameters(spec, user, options.namespace)
        if "world_file" in params:
            skills = str(params.get("skills_file") or "") if "skills_file" in params else None
            readers.setdefault((str(params["world_file"] or ""), skills), []).append(spec.name)
    for (world, skills), nodes in readers.items():
        try:
            if skills is None:
                load_domain_config(world or None)
            else:
                found = check_domain(
                    repo_path(world) if world else default_domain_file(WORLD_FILE),
                    repo_path(skills) if skills else default_domain_file(SKILLS_FILE),
                )
                if found.reports:  # both files' problems at once
                    raise InputError("\n".join(found.reports))
        except (InputError, OSError, yaml.YAMLError) as error:
            raise GraphOptionError(
                f"the domain files of {', '.join(nodes)} cannot be used; fix them and start again:\n{error}"
            ) from error


def domain_executors(specs: tuple[NodeSpec, ...], options: GraphOptions) -> tuple[NodeSpec, ...]:
    """A ``skill_executor`` node (``<name>_executor``) for every executor the graph's domain declares beyond
    the executors ``specs`` start; none for a part of a graph without executors, or when the domain files
    cannot be read (``check_domain_files`` then says why)."""
    started = {
        spec.name.removesuffix(EXECUTOR_NODE_SUFFIX) for spec in specs if spec.name.endswith(EXECUTOR_NODE_SUFFIX)
    }
    if not started:
        return ()
    try:
        library = load_domain_files(*planner_domain_files(specs, options)).library
    except (InputError, OSError, yaml.YAMLError):
        return ()
    return tuple(
        NodeSpec("skill_executor", f"{name}{EXECUTOR_NODE_SUFFIX}", ())
        for name in library.executors
        if name not in started
    )


def planner_domain_files(specs: tuple[NodeSpec, ...], options: GraphOptions) -> tuple[str | None, str | None]:
    """The world and skills files the graph's planner reads (None: the packaged kitchen's), for a client
    that must read the graph's state as the planner does (``llm-planner demo``/``up``)."""
    planner = planner_spec(specs)
    if planner is None:
        return None, None
    params = effective_parameters(planner, user_parameters(options), options.namespace)
    return str(params.get("world_file") or "") or None, str(params.get("skills_file") or "") or None


def effective_parameters(spec: NodeSpec, layers: Sequence[Sequence[Entry]], namespace: str) -> dict[str, object]:
    """A node's parameters after its packaged files and the user's ``layers`` (each: the keys that reach
    the node in ``namespace``, wildcard keys first)."""
    merged = packaged_parameters(spec)
    name = _qualified(namespace, spec.name)
    for layer in layers:
        for entry in sorted(layer, key=lambda entry: not entry.wildcard):
            if entry.matches(name):
                merged.update(entry.parameters)
    return merged


def user_parameters(options: GraphOptions) -> list[list[Entry]]:
    """The entries of the user's files and the domain's, in the order they apply."""
    return [
        _entries({key: {"ros__parameters": values} for key, values in layer.items()}, options.namespace)
        if isinstance(layer, dict)
        else _file_entries(layer, options.namespace)
        for layer in options.user_layers(options.domain_parameters())
    ]


def _file_entries(path: Path, namespace: str) -> list[Entry]:
    """The entries of a parameter file; none for one that cannot be read (``check_params_file`` says why)."""
    try:
        return _entries(read_document(path), namespace)
    except ParameterFileError:
        return []


def _entries(document: Mapping[object, object], namespace: str) -> list[Entry]:
    return file_entries(document, namespace)[0]


def namespaced_param_file(path: Path, namespace: str, scratch: Path) -> Path:
    """``path`` with every top-level node-name key ``name`` written as ``<namespace>/name`` (a file in
    ``scratch``, one per source file and namespace)."""
    document = load_yaml(path.read_text(), str(path)) or {}
    if not isinstance(document, dict):
        raise GraphOptionError(f"{path} is not a ROS parameter file (a mapping of node names to ros__parameters)")
    rewritten = {key if str(key).startswith("/") else f"{namespace}/{key}": value for key, value in document.items()}
    scratch.mkdir(parents=True, exist_ok=True)
    target = scratch / f"{namespace.strip('/').replace('/', '_')}-{path.name}"
    if target.resolve() == path.resolve():
        raise GraphOptionError(
            f"{path} would be overwritten by its namespaced copy: keep params files out of {scratch}"
        )
    target.write_text(yaml.safe_dump(rewritten, sort_keys=False))
    return target

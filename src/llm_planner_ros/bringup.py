"""The node graphs of this stack, declared once for both ``ros2 launch`` and ``llm-planner up``.

``launch/sim.launch.py``, ``launch/physics.launch.py`` and ``launch/robot.launch.py`` turn these specs
into launch_ros Nodes on a machine with a ROS 2 install; ``llm-planner up``/``demo`` start the same
executables with the same parameter files as processes (launch is not on PyPI). Keeping one list makes the two bring-ups
impossible to drift apart; ``node_starts`` is the one translation of the graph options (``params_file``,
``namespace``, ``use_sim_time``) into what each node is started with, for both.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml

from llm_planner_ros.domain.config import load_domain_config
from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_check import check_domain
from llm_planner_ros.domain.domain_folder import (
    SKILLS_FILE,
    WORLD_FILE,
    DomainFolder,
    DomainFolderError,
    domain_folder,
    folder_adapter_file,
)
from llm_planner_ros.domain.skill import EXECUTOR_NODE_SUFFIX
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.paths import config_file, default_domain_file, repo_path
from llm_planner_ros.ros.parameter_files import (
    Entry,
    ParameterFileError,
    declared_parameters,
    file_entries,
    read_document,
    suggestion,
)


@dataclass(frozen=True)
class NodeSpec:
    """One node of a graph: its console entry point, its ROS node name, and its parameter files
    (names in config/, applied in order so later files override earlier ones)."""

    executable: str
    name: str
    param_files: tuple[str, ...]

    def param_paths(self) -> list[Path]:
        return [config_file(name) for name in self.param_files]


SIM_GRAPH: tuple[NodeSpec, ...] = (
    NodeSpec("sim_world_node", "sim_world_node", ("sim_world.yaml",)),
    NodeSpec("affordance_server", "affordance_server", ("affordance.yaml",)),
    NodeSpec("manipulator_executor", "manipulator_executor", ("executors.yaml",)),
    NodeSpec("mobile_base_executor", "mobile_base_executor", ("executors.yaml",)),
    NodeSpec("llm_service_node", "llm_service", ("llm_service.yaml",)),
    NodeSpec("planner_node", "planner", ("planner_node.yaml",)),
)

# On a robot the simulator is gone: affordances read the perceived scene and the robot state, and the
# executors drive MoveIt 2 and Nav2 (robot.yaml overrides the sim defaults of each node).
ROBOT_GRAPH: tuple[NodeSpec, ...] = (
    NodeSpec("affordance_server", "affordance_server", ("affordance.yaml", "robot.yaml")),
    NodeSpec("manipulator_executor", "manipulator_executor", ("executors.yaml", "robot.yaml")),
    NodeSpec("mobile_base_executor", "mobile_base_executor", ("executors.yaml", "robot.yaml")),
    NodeSpec("llm_service_node", "llm_service", ("llm_service.yaml",)),
    NodeSpec("planner_node", "planner", ("planner_node.yaml", "robot.yaml")),
)

# The PyBullet kitchen in place of the symbolic simulator, driven as a robot is: the executors' nav2 and
# moveit backends send NavigateToPose, MoveGroup and GripperCommand goals to physics_sim_node
# (physics.yaml overrides each node's defaults; docs/physics_sim.md).
PHYSICS_GRAPH: tuple[NodeSpec, ...] = (
    NodeSpec("physics_sim_node", "physics_sim_node", ("physics.yaml",)),
    NodeSpec("affordance_server", "affordance_server", ("affordance.yaml", "physics.yaml")),
    NodeSpec("manipulator_executor", "manipulator_executor", ("executors.yaml", "physics.yaml")),
    NodeSpec("mobile_base_executor", "mobile_base_executor", ("executors.yaml", "physics.yaml")),
    NodeSpec("llm_service_node", "llm_service", ("llm_service.yaml",)),
    NodeSpec("planner_node", "planner", ("planner_node.yaml", "physics.yaml")),
)

# The physics graph as users start it (`llm-planner demo/up --sim physics`, launch/physics.launch.py): the
# scene comes from perception_node on the simulator's head camera, not from its ground truth
# (physics_perception.yaml). PHYSICS_GRAPH above, whose scene is the ground truth, is what the kitchen
# benchmark and the execution tests run (no cameras needed), and `--scene truth`.
PHYSICS_PERCEPTION_GRAPH: tuple[NodeSpec, ...] = (
    *(
        NodeSpec(spec.executable, spec.name, (*spec.param_files, "physics_perception.yaml"))
        if "physics.yaml" in spec.param_files
        else spec
        for spec in PHYSICS_GRAPH
    ),
    NodeSpec("perception_node", "perception", ("perception.yaml", "physics_perception.yaml")),
)

GRAPHS: dict[str, tuple[NodeSpec, ...]] = {
    "sim": SIM_GRAPH,
    "robot": ROBOT_GRAPH,
    "physics": PHYSICS_PERCEPTION_GRAPH,
}

# Nodes a graph runs only when asked for: `perception` publishes /scene/objects from a camera (on a
# robot, or beside a simulator that renders images), in place of the simulator's ground truth;
# `saycanpay_can`/`saycanpay_pay` serve SayCanPay's learned models (planners.yaml: can_service, pay_service).
OPTIONAL_NODES: dict[str, NodeSpec] = {
    "perception": NodeSpec("perception_node", "perception", ("perception.yaml",)),
    "saycanpay_can": NodeSpec("saycanpay_scorer", "saycanpay_can", ("saycanpay_scorer.yaml",)),
    "saycanpay_pay": NodeSpec("saycanpay_scorer", "saycanpay_pay", ("saycanpay_scorer.yaml",)),
}


def with_optional(graph: tuple[NodeSpec, ...], names: tuple[str, ...]) -> tuple[NodeSpec, ...]:
    """``graph`` plus the OPTIONAL_NODES ``names``; GraphOptionError for an unknown name."""
    unknown = [name for name in names if name not in OPTIONAL_NODES]
    if unknown:
        raise GraphOptionError(f"unknown optional node(s) {unknown}: choose from {', '.join(OPTIONAL_NODES)}")
    return (*graph, *(OPTIONAL_NODES[name] for name in names))


# The launch arguments of launch/*.launch.py: name -> (default, description). `llm-planner up`/`demo` take the
# same as --params-file, --namespace, --use-sim-time.
LAUNCH_ARGUMENTS: dict[str, tuple[str, str]] = {
    "params_file": (
        "",
        "YAML applied after the packaged parameter files: node-name keys (planner:, "
        "affordance_server:, ...) or /** for every node",
    ),
    "namespace": (
        "",
        "namespace every node of the graph is pushed into: robot1 serves /robot1/llm_planner/execute_instruction",
    ),
    "use_sim_time": ("false", "true: every node takes its time from /clock"),
    "domain": (
        "",
        "a domain folder (world.yaml, skills.yaml, optional params.yaml; docs/domains.md) every node plans in",
    ),
    "without": (
        "",
        "comma-separated names of nodes to leave out, for nodes of your own to take their place "
        "(affordance_server,wiper_executor)",
    ),
    "record": ("false", "true: plan_recorder keeps every plan as a rosbag2 bag (docs/operator.md)"),
    "console": (
        "auto",
        "true | false | auto: the operator console's web page (docs/operator.md); auto starts it where the "
        "planner waits for a person's approval of each step (require_confirmation: the robot graph)",
    ),
}

T = TypeVar("T")

# ROS namespace tokens: letters, digits and underscores, not starting with a digit.
_NAMESPACE = re.compile(r"(/[A-Za-z_][A-Za-z0-9_]*)+")


class GraphOptionError(InputError, ValueError):
    """A graph option that cannot work (a params file that is not there, an invalid namespace, a domain file
    the nodes would refuse); the CLI prints it without a traceback and exits with status 2."""


@dataclass(frozen=True)
class GraphOptions:
    """What a user sets for a whole graph. ``params_file``: YAML applied after the packaged files, so it
    overrides any node's parameter; ``namespace``: "" (none) or an absolute namespace such as ``/robot1``;
    ``use_sim_time``: set on every node when true (false leaves it to the parameter files); ``without``:
    node names the graph does not start (the user runs their own executor or affordance server there);
    ``domain``: a domain folder (its ``params.yaml``, then its world and skills files, apply before
    ``params_file``); ``record``: the graph also runs plan_recorder (``recorder_spec``); ``console``: the
    graph also runs operator_console (None: when its planner requires confirmation; ``console_spec``)."""

    params_file: Path | None = None
    namespace: str = ""
    use_sim_time: bool = False
    without: tuple[str, ...] = ()
    domain: DomainFolder | None = None
    record: bool = False
    console: bool | None = None

    def parameter_files(self) -> list[Path]:
        """The user's parameter files in the order they apply: the domain's ``params.yaml``, ``params_file``."""
        return [layer for layer in self.user_layers(None) if layer is not None]

    def user_layers(self, domain_files: T) -> list[Path | T]:
        """What applies after the packaged files, in order: the domain's ``params.yaml``, ``domain_files``
        (what gives every node the domain's world and skills files; only with a domain), ``params_file``."""
        layers: list[Path | T] = []
        if self.domain is not None:
            layers += [*([self.domain.params] if self.domain.params else []), domain_files]
        return [*layers, *([self.params_file] if self.params_file else [])]

    def domain_parameters(self) -> dict[str, dict[str, object]]:
        """The world and skills files of ``domain`` for every node (``/**``); {} without a domain. The model
        service merges the folder's SayCan adapter, or none where it has none: another domain's adapter
        (``adapter: auto``, the default domain's) learned that domain's plans."""
        if self.domain is None:
            return {}
        layer: dict[str, dict[str, object]] = {
            "/**": {"world_file": str(self.domain.world), "skills_file": str(self.domain.skills)}
        }
        if not self._domain_sets_adapter():
            own = folder_adapter_file(self.domain.path, "saycan")
            layer["llm_service"] = {"adapter": str(own) if own is not None else "none"}
        return layer

    def _domain_sets_adapter(self) -> bool:
        """Whether the domain's own params.yaml chooses the model service's adapter (it then wins)."""
        if self.domain is None or self.domain.params is None:
            return False
        document = yaml.safe_load(self.domain.params.read_text(encoding="utf-8")) or {}
        service = document.get("llm_service") if isinstance(document, dict) else None
        parameters = service.get("ros__parameters") if isinstance(service, dict) else None
        return isinstance(parameters, dict) and "adapter" in parameters

    @classmethod
    def parse(
        cls,
        params_file: str | Path | None = None,
        namespace: str = "",
        use_sim_time: bool | str = False,
        without: str | Sequence[str] = (),
        domain: str | Path | None = None,
        record: bool | str = False,
        console: bool | str | None = None,
    ) -> GraphOptions:
        """Options from the CLI's or the launch arguments' values (launch passes strings: "true"/"false");
        GraphOptionError says what is wrong and how to fix it."""
        path = Path(params_file).expanduser().resolve() if params_file else None
        if path is not None and not path.is_file():
            raise GraphOptionError(f"params_file {path} not found: give the path of a ROS parameter YAML file")
        use_sim_time = _flag("use_sim_time", use_sim_time)
        record = _flag("record", record)
        console = None if console is None or console == "auto" else _flag("console", console, "true, false or auto")
        names = without.split(",") if isinstance(without, str) else without
        try:
            folder = domain_folder(domain) if domain else None
        except DomainFolderError as error:
            raise GraphOptionError(str(error)) from error
        names = tuple(n.strip() for n in names if n.strip())
        return cls(path, normalize_namespace(namespace), use_sim_time, names, folder, record, console)


def _flag(name: str, value: bool | str, choices: str = "true or false") -> bool:
    """A launch argument's "true"/"false" (or the CLI's bool); GraphOptionError, naming ``choices``, for
    anything else."""
    if isinstance(value, bool):
        return value
    if value.lower() not in ("true", "false"):
        raise GraphOptionError(f"{name} must be {choices}, got {value!r}")
    return value.lower() == "true"


def _companions(graph: tuple[NodeSpec, ...], options: GraphOptions) -> tuple[NodeSpec, ...]:
    """The nodes that watch ``graph``'s planner which ``options`` ask for: plan_recorder, operator_console."""
    planner = _planner(graph)
    if planner is None:
        return ()
    console = options.console
    if console is None:
        planner_parameters = _effective_parameters(planner, _user_parameters(options), options.namespace)
        console = bool(planner_parameters.get("require_confirmation"))
    specs = (recorder_spec(graph) if options.record else None, console_spec(graph) if console else None)
    return tuple(spec for spec in specs if spec is not None)


def _planner(graph: tuple[NodeSpec, ...]) -> NodeSpec | None:
    return next((spec for spec in graph if spec.executable == "planner_node"), None)


def _beside_planner(graph: tuple[NodeSpec, ...], executable: str) -> NodeSpec | None:
    """``executable`` for ``graph``: its packaged file, then the graph's own files of the planner (robot.yaml
    gives the robot's state topic); None for a part of a graph without the planner."""
    planner = _planner(graph)
    if planner is None:
        return None
    own = tuple(name for name in planner.param_files if name != "planner_node.yaml")
    return NodeSpec(executable, executable, (f"{executable}.yaml", *own))


def recorder_spec(graph: tuple[NodeSpec, ...]) -> NodeSpec | None:
    """plan_recorder for ``graph`` (None for a part of a graph without the planner)."""
    return _beside_planner(graph, "plan_recorder")


def console_spec(graph: tuple[NodeSpec, ...]) -> NodeSpec | None:
    """operator_console for ``graph`` (None for a part of a graph without the planner)."""
    return _beside_planner(graph, "operator_console")


def normalize_namespace(namespace: str) -> str:
    """The namespace in absolute form, "" for none (``robot1`` and ``/robot1/`` are ``/robot1``); GraphOptionError
    when rcl would refuse it."""
    stripped = namespace.strip().strip("/")
    if not stripped:
        return ""
    absolute = f"/{stripped}"
    if not _NAMESPACE.fullmatch(absolute):
        raise GraphOptionError(
            f"namespace {namespace!r} is not a ROS namespace: use letters, digits and '_' in "
            "'/'-separated tokens that do not start with a digit (e.g. robot1)"
        )
    return absolute


@dataclass(frozen=True)
class NodeStart:
    """How one node of a graph is started: its executable, node name and namespace ("" for none), the
    parameter files in the order they apply, and parameters set after them (they win)."""

    executable: str
    name: str
    namespace: str
    param_files: tuple[Path, ...]
    params: Mapping[str, object] = field(default_factory=dict)


# Where a launch starts nodes: a namespace ("" for the root) and the nodes it starts there.
Placement = tuple[str, Sequence[NodeSpec]]


def node_starts(
    specs: tuple[NodeSpec, ...],
    options: GraphOptions,
    scratch: Path,
    graph: tuple[NodeSpec, ...] | None = None,
    placements: Sequence[Placement] | None = None,
) -> list[NodeStart]:
    """What every node of ``specs`` gets under ``options``: its packaged files, then the domain folder's
    ``params.yaml`` and files, then ``params_file``, then ``use_sim_time``. Under a namespace a file's
    node-name keys would no longer match (rcl reads ``planner:`` as ``/planner``, not
    ``/robot1/planner``), so such files are rewritten into ``scratch`` with those keys inside the
    namespace; ``/``-keys (``/**``, ``/**/planner``) are kept as they are. The user's files are checked
    first against the whole ``graph`` (default: ``specs``; a launch that starts a graph in parts names
    it) in ``options.namespace``, or against ``placements`` (a launch that starts nodes in several
    namespaces names them all), by ``check_params_file``: GraphOptionError lists every problem. A
    ``skill_executor`` is added for every executor the domain declares beyond the graph's own
    (``domain_executors``). The nodes ``options.without`` names are left out (GraphOptionError for a
    name that is no node of the graph)."""
    extra = (*domain_executors(specs, options), *_companions(specs, options))
    whole = (*graph, *domain_executors(graph, options), *_companions(graph, options)) if graph else (*specs, *extra)
    for path in options.parameter_files():
        check_params_file(path, placements or [(options.namespace, whole)])
    unknown = [name for name in options.without if name not in {spec.name for spec in whole}]
    if unknown:
        raise GraphOptionError(
            f"without: {', '.join(unknown)} is no node of this graph; its nodes are "
            f"{', '.join(spec.name for spec in whole)}"
        )
    specs = tuple(spec for spec in (*specs, *extra) if spec.name not in options.without)
    check_domain_files(specs, options)
    params = {"use_sim_time": True} if options.use_sim_time else {}
    starts = []
    generated = None
    if options.domain is not None:
        scratch.mkdir(parents=True, exist_ok=True)
        generated = scratch / f"domain-{options.domain.path.name}.yaml"
        layer = {key: {"ros__parameters": values} for key, values in options.domain_parameters().items()}
        generated.write_text(yaml.safe_dump(layer))
    user_files = [path for path in options.user_layers(generated) if path is not None]
    for spec in specs:
        files = [*spec.param_paths(), *user_files]
        if options.namespace:
            files = [namespaced_param_file(path, options.namespace, scratch) for path in files]
        starts.append(NodeStart(spec.executable, spec.name, options.namespace, tuple(files), params))
    return starts


def packaged_parameters(spec: NodeSpec) -> dict[str, object]:
    """The parameters ``spec``'s packaged files set for its node name, later files winning."""
    merged: dict[str, object] = {}
    for path in spec.param_paths():
        document = yaml.safe_load(path.read_text()) or {}
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
    return f"{entry.key}{read_as}: not a node of this graph{suggestion(given, names)}; its nodes: {', '.join(names)}"


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
    user = _user_parameters(options)
    readers: dict[tuple[str, str | None], list[str]] = {}
    for spec in specs:
        params = _effective_parameters(spec, user, options.namespace)
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
        NodeSpec("skill_executor", f"{name}{EXECUTOR_NODE_SUFFIX}", ("executors.yaml",))
        for name in library.executors
        if name not in started
    )


def planner_domain_files(specs: tuple[NodeSpec, ...], options: GraphOptions) -> tuple[str | None, str | None]:
    """The world and skills files the graph's planner reads (None: the packaged kitchen's), for a client
    that must read the graph's state as the planner does (``llm-planner demo``/``up``)."""
    planner = next((spec for spec in specs if spec.executable == "planner_node"), None)
    if planner is None:
        return None, None
    params = _effective_parameters(planner, _user_parameters(options), options.namespace)
    return str(params.get("world_file") or "") or None, str(params.get("skills_file") or "") or None


def _effective_parameters(spec: NodeSpec, layers: Sequence[Sequence[Entry]], namespace: str) -> dict[str, object]:
    """A node's parameters after its packaged files and the user's ``layers`` (each: the keys that reach
    the node in ``namespace``, wildcard keys first)."""
    merged = packaged_parameters(spec)
    name = _qualified(namespace, spec.name)
    for layer in layers:
        for entry in sorted(layer, key=lambda entry: not entry.wildcard):
            if entry.matches(name):
                merged.update(entry.parameters)
    return merged


def _user_parameters(options: GraphOptions) -> list[list[Entry]]:
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
    document = yaml.safe_load(path.read_text()) or {}
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


def launch_description(graph: str):
    """A ``launch.LaunchDescription`` declaring ``LAUNCH_ARGUMENTS`` and starting ``GRAPHS[graph]`` with
    them (used by the files in launch/)."""
    from launch.actions import DeclareLaunchArgument, OpaqueFunction

    from launch import LaunchDescription

    return LaunchDescription(
        [
            *(
                DeclareLaunchArgument(name, default_value=default, description=description)
                for name, (default, description) in LAUNCH_ARGUMENTS.items()
            ),
            OpaqueFunction(function=lambda context: launch_nodes(graph, context.launch_configurations)),
        ]
    )


def launch_nodes(graph: str, arguments: Mapping[str, str]) -> list:
    """launch_ros Nodes of ``GRAPHS[graph]`` for the launch ``arguments`` (names of LAUNCH_ARGUMENTS)."""
    options = GraphOptions.parse(
        **{name: arguments.get(name, default) for name, (default, _) in LAUNCH_ARGUMENTS.items()}
    )
    return launch_ros_nodes(node_starts(GRAPHS[graph], options, launch_scratch()))


def launch_scratch() -> Path:
    """Where a launch process writes the parameter files it generates."""
    return Path(tempfile.gettempdir()) / f"llm_planner_ros_launch_{os.getpid()}"


def launch_ros_nodes(starts: Sequence[NodeStart]) -> list:
    """launch_ros Nodes for ``starts`` (their packaged parameter files, then their own parameters)."""
    from launch_ros.actions import Node

    return [
        Node(
            package="llm_planner_ros",
            executable=start.executable,
            name=start.name,
            namespace=start.namespace,
            parameters=[*map(str, start.param_files), *([dict(start.params)] if start.params else [])],
            output="screen",
        )
        for start in starts
    ]

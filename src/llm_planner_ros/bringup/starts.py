"""The one translation of a graph and its options into how each node is started (``node_starts``), for
``ros2 launch`` and ``llm-planner up``/``demo`` alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from llm_planner_ros.bringup.graphs import NodeSpec, Placement, console_spec, planner_spec, recorder_spec
from llm_planner_ros.bringup.options import GraphOptionError, GraphOptions
from llm_planner_ros.bringup.parameters import (
    check_domain_files,
    check_params_file,
    domain_executors,
    effective_parameters,
    namespaced_param_file,
    user_parameters,
)
from llm_planner_ros.ros.parameter_files import declared_default


@dataclass(frozen=True)
class NodeStart:
    """How one node of a graph is started: its executable, node name and namespace ("" for none), the
    parameter files in the order they apply, and parameters set after them (they win)."""

    executable: str
    name: str
    namespace: str
    param_files: tuple[Path, ...]
    params: Mapping[str, object] = field(default_factory=dict)


def companions(graph: tuple[NodeSpec, ...], options: GraphOptions) -> tuple[NodeSpec, ...]:
    """The nodes that watch ``graph``'s planner which ``options`` ask for: plan_recorder, operator_console."""
    planner = planner_spec(graph)
    if planner is None:
        return ()
    console = options.console
    if console is None:  # what the planner will run with: the files' value, else the default it declares
        planner_parameters = effective_parameters(planner, user_parameters(options), options.namespace)
        default = declared_default(planner.executable, "require_confirmation")
        console = bool(planner_parameters.get("require_confirmation", default))
    specs = (recorder_spec(graph) if options.record else None, console_spec(graph) if console else None)
    return tuple(spec for spec in specs if spec is not None)


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
    extra = (*domain_executors(specs, options), *companions(specs, options))
    whole = (*graph, *domain_executors(graph, options), *companions(graph, options)) if graph else (*specs, *extra)
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

"""Every node's parameters as Markdown, written from the dicts the nodes declare them with
(``ros.parameter_files.DECLARED_BY``): docs/parameters.md is this text (``llm-planner parameters``), and a
test keeps the two equal, so the reference cannot drift from what the nodes declare.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from llm_planner_ros.ros.parameter_files import DECLARED_BY
from llm_planner_ros.ros.parameters import Parameter

TITLE = "# Node parameters"
INTRO = """Written by `llm-planner parameters > docs/parameters.md` from the parameters each node declares (a test
checks that this page is that command's output). A node started alone runs with the defaults below; the
graphs start each node with its packaged `config/<node>.yaml` first (docs/architecture.md), which may set
other values. Set a parameter in your params file under the node's name (`planner: {ros__parameters:
{max_steps: 12}}`), or on one node with `--ros-args -p name:=value`. A value outside what the column
"accepts" says is refused when the node starts, with the parameter's name."""


def parameter_reference(executables: Sequence[str] = ()) -> str:
    """The Markdown reference of ``executables`` (all by default); executables that declare the same
    parameters (the executors) share one section."""
    chosen = list(executables) or sorted(DECLARED_BY)
    unknown = [name for name in chosen if name not in DECLARED_BY]
    if unknown:
        raise KeyError(f"no node executable {', '.join(unknown)}: one of {', '.join(sorted(DECLARED_BY))}")
    sections: dict[Any, list[str]] = {}
    for name in chosen:
        sections.setdefault(DECLARED_BY[name], []).append(name)
    lines = [TITLE, "", INTRO]
    for declaring, names in sections.items():
        lines += ["", f"## {', '.join(f'`{name}`' for name in names)}", "", f"Declared in `{declaring.module}`.", ""]
        lines += _table(declaring())
    return "\n".join(lines) + "\n"


def _table(parameters: Mapping[str, Parameter]) -> list[str]:
    rows = ["| parameter | default | accepts | meaning |", "|---|---|---|---|"]
    for name in sorted(parameters):
        spec = parameters[name]
        rows.append(f"| `{name}` | {_default(spec.default)} | {_accepts(spec)} | {_cell(spec.description)} |")
    return rows


def _default(value: Any) -> str:
    if isinstance(value, str):
        return f"`{value}`" if value else '`""`'
    return f"`{json.dumps(value)}`"


def _accepts(spec: Parameter) -> str:
    kind = _kind_name(spec.default)
    rules = []
    if spec.minimum is not None:
        rules.append(f">= {spec.minimum:g}")
    if spec.maximum is not None:
        rules.append(f"<= {spec.maximum:g}")
    if spec.choices:
        rules.append("one of " + ", ".join(f"`{choice}`" for choice in spec.choices))
    if spec.read_only:
        rules.append("read at start")
    return " ".join([kind, *rules]) if rules else kind


def _kind_name(value: Any) -> str:
    if isinstance(value, list):
        return f"list of {_kind_name(value[0])}"
    return {bool: "bool", int: "int", float: "float", str: "string"}[type(value)]


def _cell(text: str) -> str:
    """``text`` as one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")

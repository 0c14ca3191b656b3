"""What a user sets for a whole graph (the launch arguments and the CLI's options of the same names),
read and checked once: ``GraphOptions.parse``, and the error every graph option problem raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from llm_planner_ros.domain.domain_folder import (
    DomainFolder,
    DomainFolderError,
    domain_folder,
    serving_adapter_parameter,
)
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.yaml_text import load_yaml

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
        service merges the folder's SayCan adapter, else the general one trained across generated domains
        (``domain_folder.serving_adapter_file``), never another domain's (``adapter: auto``, the default
        domain's, learned that domain's plans)."""
        if self.domain is None:
            return {}
        layer: dict[str, dict[str, object]] = {
            "/**": {"world_file": str(self.domain.world), "skills_file": str(self.domain.skills)}
        }
        if not self._domain_sets_adapter():
            layer["llm_service"] = {"adapter": serving_adapter_parameter(self.domain.path, "saycan")}
        return layer

    def _domain_sets_adapter(self) -> bool:
        """Whether the domain's own params.yaml chooses the model service's adapter (it then wins)."""
        if self.domain is None or self.domain.params is None:
            return False
        document = load_yaml(self.domain.params.read_text(encoding="utf-8"), str(self.domain.params)) or {}
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

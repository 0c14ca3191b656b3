"""Planning methods by name, built from shared resources and their section of config/planners.yaml.

Each method module exposes ``build(resources: PlannerResources) -> Planner``; ``PLANNERS`` maps the
public name (the ExecuteInstruction goal's ``planner`` field, ``--planner`` on the command line) to
that module, imported only when the method is used.
"""

from __future__ import annotations

import importlib
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.base import Embedder, LanguageModel
from llm_planner_ros.paths import resolve_config
from llm_planner_ros.planning.plan_loop import Planner
from llm_planner_ros.yaml_text import load_yaml

if TYPE_CHECKING:  # the models module loads torch: only methods that use it import it
    from llm_planner_ros.planning.saycanpay.models import CanPayScorer

PLANNERS: dict[str, str] = {
    "saycan": "llm_planner_ros.planning.saycan.planner",
    "zero_shot": "llm_planner_ros.planning.zero_shot.planner",
    "llm_planner": "llm_planner_ros.planning.llm_planner.planner",
    "progprompt": "llm_planner_ros.planning.progprompt.planner",
    "saycanpay": "llm_planner_ros.planning.saycanpay.planner",
}
DEFAULT_PLANNER = "saycan"


class UnknownPlannerError(ValueError):
    """The requested method is not one of PLANNERS."""


@dataclass
class PlannerResources:
    """What methods share: the language model, a lazily loaded sentence embedder, the kitchen (skill
    vocabulary and world facts), per-method options (``options[name]``, from config/planners.yaml), and
    for a planner running in a ROS node, ``scorer_service(kind, service)``: a client of SayCanPay's
    Can or Pay model served at that ROS service (None outside a node)."""

    model: LanguageModel
    kitchen: Domain
    embedder_factory: Callable[[], Embedder]
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    scorer_service: Callable[[str, str], CanPayScorer] | None = None

    @cached_property
    def embedder(self) -> Embedder:
        return self.embedder_factory()

    def served_scorer(self, kind: str, service: str) -> CanPayScorer:
        """The ``kind`` (can | pay) model served at ``service``; ValueError where no ROS node runs the planner."""
        if self.scorer_service is None:
            raise ValueError(
                f"saycanpay {kind}_service {service!r} needs the planner node (ROS): "
                f"set it to '' to load {kind}_model here"
            )
        return self.scorer_service(kind, service)

    def options_for(self, name: str) -> dict[str, Any]:
        return dict(self.options.get(name, {}))


# The section of config/planners.yaml that holds the benchmark domains' option sections.
BENCHMARK_DOMAINS = "domains"


def load_planner_options(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Per-method options from config/planners.yaml (or ``path``): a mapping of method name to options."""
    return _read_planner_options(path)[0]


def load_benchmark_options(domain: str, path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The option sections of config/planners.yaml's ``domains: {domain: ...}`` (or ``path``'s): per method,
    the options that replace its section in that benchmark domain. ValueError names a domain the file has
    not, or a method it does not know."""
    resolved = resolve_config(path, "planners.yaml")
    sections = _read_planner_options(path)[1]
    if domain not in sections:
        raise ValueError(f"{resolved}: no `{BENCHMARK_DOMAINS}: {domain}:` section; it has {', '.join(sections)}")
    return sections[domain]


def _read_planner_options(path: str | Path | None) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    resolved = resolve_config(path, "planners.yaml")
    data = load_yaml(resolved.read_text(), str(resolved)) or {}
    if not isinstance(data, dict) or any(not isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{resolved}: expected a mapping of planner name to a mapping of options")
    domains = data.pop(BENCHMARK_DOMAINS, {})
    unknown = sorted(set(data) - set(PLANNERS))
    if unknown:
        raise ValueError(f"{resolved}: unknown planner(s) {', '.join(unknown)}; known: {', '.join(PLANNERS)}")
    for name, methods in domains.items():
        if not isinstance(methods, dict) or any(not isinstance(v, dict) for v in methods.values()):
            raise ValueError(f"{resolved}: {BENCHMARK_DOMAINS}: {name}: expected a mapping of planner name to options")
        strangers = sorted(set(methods) - set(PLANNERS))
        if strangers:
            raise ValueError(
                f"{resolved}: {BENCHMARK_DOMAINS}: {name}: unknown planner(s) {', '.join(strangers)}; "
                f"known: {', '.join(PLANNERS)}"
            )
    return data, domains


def override_options(options: dict[str, dict[str, Any]], planner: str, overrides: Mapping[str, str]) -> None:
    """Set ``--option key=value`` overrides (values read as YAML) in ``planner``'s section of ``options``
    (load_planner_options). InputError names the option and the fix for a key the packaged section lacks
    (config/planners.yaml lists every option of a method, so it is a typo), for a value that is no plain
    YAML (unclosed brackets, a ``!!python`` tag: safe_load refuses tags), and for a value that is not
    true/false where the packaged one is, or not a number where the packaged one is (an integer option
    takes integers only), and for nan or inf anywhere (they would reach the method's arithmetic only once
    the model is loaded). Options packaged as text, a mapping or null take any other value (``examples``
    is "none", "file" or a count)."""
    section = options.setdefault(planner, {})
    for key, text in overrides.items():
        if key not in section:
            raise InputError(f"--option {key}: {planner} has no such option; known: {', '.join(sorted(section))}")
        value, packaged = _option_value(key, text), section[key]
        wanted = _wanted_type(value, packaged)
        if wanted is not None:
            raise InputError(f"--option {key}={text}: {planner}'s {key} takes {wanted} (packaged: {packaged!r})")
        section[key] = value


def _option_value(key: str, text: str) -> Any:
    """``text`` read as YAML; InputError naming the option where it is none."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or " ".join(str(error).split())
        raise InputError(
            f"--option {key}={text}: not a plain YAML value ({problem}); give a number, true/false or text, "
            f"quoted to keep it as written (--option '{key}=\"...\"')"
        ) from error


def _wanted_type(value: Any, packaged: Any) -> str | None:
    """What an option packaged as ``packaged`` takes, where ``value`` is not that; None where it is. No
    option takes nan or inf, not even one packaged as null (``terminate_affordance``)."""
    if isinstance(packaged, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(packaged, int) and (isinstance(value, bool) or not isinstance(value, int)):
        return "a whole number"
    if isinstance(packaged, float) and (isinstance(value, bool) or not isinstance(value, int | float)):
        return "a number"
    if isinstance(value, float) and not math.isfinite(value):
        return "a finite number"
    return None


def build_planner(name: str, resources: PlannerResources) -> Planner:
    """The method called ``name`` (empty: the default, saycan); UnknownPlannerError lists the known ones."""
    name = name or DEFAULT_PLANNER
    if name not in PLANNERS:
        raise UnknownPlannerError(f"unknown planner {name!r}; choose one of: {', '.join(PLANNERS)}")
    module = importlib.import_module(PLANNERS[name])
    return module.build(resources)


class PlannerCache:
    """Each method built once over one set of resources, then handed out again for every instruction.

    ``run_plan`` starts every instruction with the method's ``reset``, which clears all of its
    per-instruction state (SayCan, zero-shot, LLM-Planner and ProgPrompt alike), so a node need not
    rebuild a method, and reload its sentence embedder and example vectors, for each goal. A method
    is used by one plan at a time (planner runs one goal at a time). A build that fails is not
    kept: the next ``get`` tries again and raises the same error if nothing changed.
    """

    def __init__(self, resources: PlannerResources) -> None:
        self.resources = resources
        self._built: dict[str, Planner] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> Planner:
        """The method called ``name`` (empty: the default), built on first use; errors as ``build_planner``."""
        name = name or DEFAULT_PLANNER
        with self._lock:
            if name not in self._built:
                self._built[name] = build_planner(name, self.resources)
            return self._built[name]

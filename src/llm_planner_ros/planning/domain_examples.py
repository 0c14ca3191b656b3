"""The prompt examples a method shows in the domain it plans in.

A method reads the example file its domain folder holds for it (``examples/<method>.yaml``: the SayCan
kitchen has ProgPrompt's, zero-shot's and LLM-Planner's), else the domain's bank (its training episodes
solved by the oracle: ``llm-planner domain build DIR``), else GENERATED_EXAMPLES tasks written from the
domain's files and solved by the oracle when the planner is built (``planning.domain_tasks``, seed 0, none
equal to a request of the folder's ``episodes.yaml`` or ``dev.yaml``): a folder written by hand plans with
every method before anything is built. A prompt shows no example where the model runs the adapter the
folder holds for that method (``adapters/<method>.safetensors``), or the general one shipped for it, which
knows the format; else it shows examples of the bank.
"""

from __future__ import annotations

from pathlib import Path

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.domain_folder import (
    DEV_FILE,
    EPISODES_FILE,
    SKILLS_FILE,
    WORLD_FILE,
    DomainFolderError,
    build_command,
    built_files_folder,
    domain_adapter_file,
    domain_bank_file,
    domain_folder,
    general_adapter_file,
)
from llm_planner_ros.domain.layout import LAYOUT_FILE
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.base import MergedAdapter
from llm_planner_ros.planning.domain_tasks import generate_examples, held_out_requests
from llm_planner_ros.planning.saycan.bank import PlanExample, load_bank

# Examples a prompt shows in a domain without an adapter, where the method's option asks for none
# (they were set for the kitchen's adapters).
DOMAIN_PROMPT_EXAMPLES = 3
# Tasks written for a domain without a bank: enough for a near demonstration of most requests, written in
# about 2 s on one core.
GENERATED_EXAMPLES = 60


class MissingDomainBankError(InputError, FileNotFoundError):
    """A domain has no example bank yet; the message has the command."""


def prompt_shows_examples(kitchen: Domain, method: str, adapter: MergedAdapter) -> bool:
    """Whether ``method``'s prompt must show examples in ``kitchen``'s domain: unless the model runs
    ``adapter``, the one the domain serves that method (its own, else the general one shipped for the method,
    ``domain_folder.general_adapter_file``), which knows the format without examples (``--llm adapter=none``,
    another model, or one service's SayCan adapter serving another method all get the examples). A model
    that cannot say which adapter it runs is taken to run the one served."""
    served = domain_adapter_file(kitchen, method) or general_adapter_file(method)
    if served is None:
        return True
    return adapter.known and not adapter.is_file(served)


def domain_bank(kitchen: Domain) -> tuple[Path, list[PlanExample]]:
    """The path and examples of the domain's bank; MissingDomainBankError says how to build it."""
    path = domain_bank_file(kitchen)
    if not path.is_file():
        raise MissingDomainBankError(
            f"domain {kitchen.config.world!r} has no example bank at {path}: build it from the domain's "
            f"train.yaml with `{build_command(kitchen)}`"
        )
    return path, load_bank(path)


def prompt_examples(kitchen: Domain) -> tuple[str, list[PlanExample]]:
    """Where a method's prompt examples come from in ``kitchen``'s domain (for messages) and the examples:
    the domain's bank, else GENERATED_EXAMPLES tasks written from its files (the module docstring). Written
    once per domain and version of its files in a process."""
    path = domain_bank_file(kitchen)
    if path.is_file():
        return str(path), load_bank(path)
    folder = built_files_folder(kitchen)
    key = (folder, *(_stamp(folder / name) for name in _GENERATION_INPUTS))
    if key not in _GENERATED:
        _GENERATED.clear()
        evaluated = held_out_requests(_evaluation_files(folder), kitchen)
        try:
            _GENERATED[key] = list(generate_examples(kitchen, GENERATED_EXAMPLES, 0, evaluated))
        except ValueError as error:
            raise MissingDomainBankError(
                f"{error}, too few to show a method as prompt examples: write the domain's train.yaml and build "
                f"its bank with `{build_command(kitchen)}`"
            ) from error
    return f"{GENERATED_EXAMPLES} tasks written from the files of {folder} (no {path.name} there)", _GENERATED[key]


# The files the generated examples depend on: the domain's and the evaluated requests they avoid.
_GENERATION_INPUTS = (WORLD_FILE, SKILLS_FILE, LAYOUT_FILE, EPISODES_FILE, DEV_FILE)
_GENERATED: dict[tuple[Path | int, ...], list[PlanExample]] = {}


def _stamp(path: Path) -> int:
    return path.stat().st_mtime_ns if path.is_file() else 0


def _evaluation_files(folder: Path) -> list[Path]:
    """The folder's episode files a generated example must not copy a request of (none where the world file
    lies outside a domain folder)."""
    try:
        files = domain_folder(folder)
    except DomainFolderError:
        return []
    return [path for path in (files.episodes, files.development) if path is not None]


def diverse_examples(bank: list[PlanExample], count: int) -> list[PlanExample]:
    """``count`` examples for a fixed prompt: the longest plan of each family in turn, families in bank
    order, so the prompt shows as many kinds of task as it can."""
    by_family: dict[str, list[PlanExample]] = {}
    for example in bank:
        by_family.setdefault(example.family, []).append(example)
    queues = [sorted(examples, key=lambda e: -len(e.steps)) for examples in by_family.values()]
    chosen: list[PlanExample] = []
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop(0))
    return chosen

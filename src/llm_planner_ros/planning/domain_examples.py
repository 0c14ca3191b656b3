"""The prompt examples a method shows in the domain it plans in.

A method reads the example file its domain folder holds for it (``examples/<method>.yaml``: the SayCan
kitchen has ProgPrompt's, zero-shot's and LLM-Planner's), else the domain's bank (its training episodes
solved by the oracle: ``llm-planner domain build DIR``). A prompt shows no example where the model runs the
adapter the folder holds for that method (``adapters/<method>.safetensors``), which knows the format; else
it shows examples of the bank.
"""

from __future__ import annotations

from pathlib import Path

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.domain_folder import build_command, domain_adapter_file, domain_bank_file
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.llm.base import MergedAdapter
from llm_planner_ros.planning.saycan.bank import PlanExample, load_bank

# Examples a prompt shows in a domain without an adapter, where the method's option asks for none
# (they were set for the kitchen's adapters).
DOMAIN_PROMPT_EXAMPLES = 3


class MissingDomainBankError(InputError, FileNotFoundError):
    """A domain has no example bank yet; the message has the command."""


def prompt_shows_examples(kitchen: Domain, method: str, adapter: MergedAdapter) -> bool:
    """Whether ``method``'s prompt must show examples in ``kitchen``'s domain: unless the model runs
    ``adapter``, the one trained for that method and domain, which knows the format (``--llm adapter=none``,
    another model, or one service's SayCan adapter serving another method all get the examples). A model
    that cannot say which adapter it runs is taken to run the domain's own where the folder has one."""
    own = domain_adapter_file(kitchen, method)
    if own is None:
        return True
    return adapter.known and not adapter.is_file(own)


def domain_bank(kitchen: Domain) -> tuple[Path, list[PlanExample]]:
    """The path and examples of the domain's bank; MissingDomainBankError says how to build it."""
    path = domain_bank_file(kitchen)
    if not path.is_file():
        raise MissingDomainBankError(
            f"domain {kitchen.config.world!r} has no example bank at {path}: build it from the domain's "
            f"train.yaml with `{build_command(kitchen)}`"
        )
    return path, load_bank(path)


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

"""The prompt examples a method shows in the domain it plans in.

In the packaged SayCan kitchen every method reads its packaged examples (``config/*_examples.yaml``,
``data/saycan/bank.jsonl``), and the embedded model carries an adapter trained on that method's prompt, so
most prompts show no example at all. In any other domain those examples name skills the domain has not,
and the adapters learned kitchen plans. There a method takes its examples from the domain's own bank (its
training episodes solved by the oracle: ``llm-planner domain build DIR``) and shows them in the prompt,
unless the domain folder holds an adapter trained for that method (``adapters/<method>.safetensors``),
which then knows the format as the kitchen's adapters do.
"""

from __future__ import annotations

from pathlib import Path

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.domain_folder import (
    build_command,
    domain_adapter_file,
    domain_bank_file,
    is_packaged_world,
)
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.planning.saycan.bank import PlanExample, load_bank

# Examples a prompt shows in a domain without an adapter, where the method's option asks for none
# (they were set for the kitchen's adapters).
DOMAIN_PROMPT_EXAMPLES = 3


class MissingDomainBankError(InputError, FileNotFoundError):
    """A domain other than the packaged kitchen has no example bank yet; the message has the command."""


def uses_packaged_examples(kitchen: Domain) -> bool:
    """Whether methods read their packaged example files: only in the world they were written for."""
    return is_packaged_world(kitchen)


def prompt_shows_examples(kitchen: Domain, method: str) -> bool:
    """Whether ``method``'s prompt must show examples in ``kitchen``'s domain: no adapter trained for that
    method and domain knows the format. Never in the packaged kitchen, whose methods have their adapters."""
    return not is_packaged_world(kitchen) and domain_adapter_file(kitchen, method) is None


def domain_bank(kitchen: Domain) -> tuple[Path, list[PlanExample]]:
    """The path and examples of the domain's bank; MissingDomainBankError says how to build it."""
    path = domain_bank_file(kitchen)
    if not path.is_file():
        raise MissingDomainBankError(
            f"domain {kitchen.config.world!r} has no example bank at {path}, and the packaged examples are the "
            f"SayCan kitchen's: build it from the domain's train.yaml with `{build_command(kitchen)}`"
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

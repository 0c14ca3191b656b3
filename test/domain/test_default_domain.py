"""The default domain is a folder like any other (config/domains.yaml names it): loading it by its path,
through the checks every user's folder gets, gives the domain the stack plans in when nothing names one,
and its folder holds every optional file of docs/domains.md that the methods read from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import (
    built_files_folder,
    domain_adapter_file,
    domain_bank_file,
    domain_examples_file,
    domain_folder,
    domain_value_functions_file,
    load_domain,
)
from llm_planner_ros.paths import default_domain, packaged_path


def test_the_default_domain_loaded_by_its_folder_is_the_domain_loaded_by_default() -> None:
    by_folder = load_domain(default_domain())
    by_default = load_domain_files()
    assert by_folder.config == by_default.config
    assert [s.text for s in by_folder.world().admissible_skills()] == [
        s.text for s in by_default.world().admissible_skills()
    ]
    assert built_files_folder(by_default) == packaged_path(default_domain()).resolve()


def test_the_default_folder_passes_the_folder_checks_and_has_its_dev_set() -> None:
    folder = domain_folder(default_domain())
    assert folder.development is not None and folder.development.name == "dev.yaml"


@pytest.mark.parametrize("method", ["saycan", "progprompt", "llm_planner", "zero_shot"])
def test_each_method_finds_its_adapter_in_the_folder(method: str) -> None:
    found = domain_adapter_file(load_domain_files(), method)
    assert found == packaged_path(default_domain()).resolve() / "adapters" / f"{method}.safetensors"


def test_a_method_without_an_adapter_of_its_own_uses_the_one_shared_yaml_lends_it() -> None:
    assert domain_adapter_file(load_domain_files(), "saycanpay") == domain_adapter_file(load_domain_files(), "saycan")


def test_a_folder_without_shared_yaml_lends_nothing(tmp_path: Path) -> None:
    office = load_domain("domains/office")
    assert domain_adapter_file(office, "saycanpay") is None


@pytest.mark.parametrize("method", ["progprompt", "llm_planner", "zero_shot"])
def test_the_folder_holds_the_methods_example_files_the_bank_and_the_value_functions(method: str) -> None:
    kitchen = load_domain_files()
    examples = domain_examples_file(kitchen, method)
    assert examples is not None and examples.parent.name == "examples"
    assert domain_bank_file(kitchen).is_file() and domain_value_functions_file(kitchen).is_file()
    assert domain_examples_file(load_domain("domains/office"), method) is None

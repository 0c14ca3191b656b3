"""Which LoRA adapter the hf backend merges: the embedded model gets the default domain's SayCan adapter
unless told otherwise, any other model none, and a relative path is read from the checkout; a domain folder
without an adapter of its own gets the general one where one is shipped for the method."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.domain.domain_folder import general_adapter_file, load_domain
from llm_planner_ros.llm.factory import (
    BENCHMARK_ADAPTERS,
    LLMConfig,
    adapter_file,
    method_llm_config,
    parse_config,
)
from llm_planner_ros.paths import default_domain_file, repo_path

EMBEDDED_ADAPTER = default_domain_file("adapters/saycan.safetensors")


def default_domain_adapter(method: str) -> Path:
    return BENCHMARK_ADAPTERS.get(method) or default_domain_file(f"adapters/{method}.safetensors")


def test_the_embedded_model_gets_the_saycan_adapter_by_default() -> None:
    found = adapter_file(parse_config(LLMConfig, {}))
    assert found == EMBEDDED_ADAPTER and found.is_file()


@pytest.mark.parametrize("value", ["none", ""])
def test_none_or_empty_means_the_base_model(value: str) -> None:
    assert adapter_file(parse_config(LLMConfig, {"adapter": value})) is None


def test_another_model_gets_no_adapter_by_default(tmp_path: Path) -> None:
    # an adapter only fits the weights it was trained on
    assert adapter_file(parse_config(LLMConfig, {"model": str(tmp_path / "other.gguf")})) is None


def test_a_relative_adapter_path_is_read_from_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert adapter_file(parse_config(LLMConfig, {"adapter": "data/saycan/x.safetensors"})) == repo_path(
        "data/saycan/x.safetensors"
    )
    assert adapter_file(parse_config(LLMConfig, {"adapter": "/abs/y.safetensors"})) == Path("/abs/y.safetensors")


@pytest.mark.parametrize("method", ["progprompt", "llm_planner", "zero_shot", "alfred_hlp"])
def test_a_generative_method_names_its_own_adapter(method: str) -> None:
    found = adapter_file(parse_config(LLMConfig, {"adapter": method}))
    assert found == repo_path(default_domain_adapter(method)) and found.is_file()
    assert found != EMBEDDED_ADAPTER


def test_a_service_for_one_generative_method_gets_its_adapter_unless_told_otherwise() -> None:
    progprompt = str(default_domain_file("adapters/progprompt.safetensors"))
    assert method_llm_config({}, "progprompt") == {"adapter": progprompt}
    llm_planner = str(default_domain_file("adapters/llm_planner.safetensors"))
    assert method_llm_config({"threads": 1}, "llm_planner") == {"threads": 1, "adapter": llm_planner}
    assert method_llm_config({}, "saycan") == method_llm_config({}, "") == {"adapter": str(EMBEDDED_ADAPTER)}
    # SayCanPay's Say prompt is SayCan's: the kitchen folder's adapters/shared.yaml lends it SayCan's adapter.
    assert method_llm_config({}, "saycanpay") == {"adapter": str(EMBEDDED_ADAPTER)}
    assert method_llm_config({}, "alfred_hlp") == {"adapter": "alfred_hlp"}
    for config in ({"adapter": "none"}, {"model": "other.gguf"}, {"backend": "openai"}, {"backend": "replay"}):
        assert method_llm_config(config, "progprompt") == config


def test_a_domain_without_an_adapter_of_its_own_gets_the_general_one(tmp_path: Path) -> None:
    """A user's folder plans with the adapters trained across generated domains: SayCan's, and the one
    data/general_adapters/shared.yaml lends the generative methods; a method with none gets none, and an
    adapter the folder has wins."""
    for name in ("world.yaml", "skills.yaml"):
        (tmp_path / name).write_text((REPO_ROOT / "test" / "data" / "break_room" / name).read_text())
    room = load_domain(tmp_path)
    general = general_adapter_file("saycan")
    assert general is not None and general.parent.name == "general_adapters" and general.stat().st_size > 1_000_000
    assert method_llm_config({}, "saycan", room) == {"adapter": str(general)}
    generative = general_adapter_file("progprompt")
    assert generative is not None and generative.name == "generative.safetensors"
    assert general_adapter_file("zero_shot") == general_adapter_file("llm_planner") == generative
    assert method_llm_config({}, "progprompt", room) == {"adapter": str(generative)}
    assert general_adapter_file("saycanpay") is None
    assert method_llm_config({}, "saycanpay", room) == {"adapter": "none"}
    (tmp_path / "adapters").mkdir()
    (tmp_path / "adapters" / "saycan.safetensors").write_bytes(b"")
    assert method_llm_config({}, "saycan", room) == {"adapter": str(tmp_path / "adapters" / "saycan.safetensors")}

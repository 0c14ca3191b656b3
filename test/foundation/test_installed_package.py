"""An install adds only the design's three top-level packages, and a colcon install carries every file
the package reads: run from the install, outside the checkout, the SayCan adapter that ``adapter: auto``
resolves to, the SayCan bank a planner loads and the kitchen episode suite are the install's.

The probe runs in a subprocess with the workspace's setup environment (install/setup.bash: AMENT_PREFIX_PATH,
PYTHONPATH), from a folder outside the checkout, with the checkout's src/ (the editable install's .pth
entry) taken off sys.path, so the checkout cannot answer for a file the install lacks.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib.metadata import distribution
from pathlib import Path

import pytest
from colcon_ws import Workspace

from llm_planner_ros import paths
from llm_planner_ros.domain.episodes import load_episodes

PROBE = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    checkout_src = Path(sys.argv[1]).resolve()
    sys.path = [p for p in sys.path if not p or Path(p).resolve() != checkout_src]

    import llm_planner_ros.paths
    from llm_planner_ros.domain.episodes import load_episodes
    from llm_planner_ros.domain.definition import load_domain_files
    from llm_planner_ros.llm.factory import LLMConfig, adapter_file, load_embedder, load_language_model, parse_config
    from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
    from llm_planner_ros.planning.saycan.bank import BANK_FILE, load_bank

    options = load_planner_options()
    options["saycan"] = {**options["saycan"], "examples": "retrieved"}
    model = load_language_model({"backend": "replay", "recording": sys.argv[2]})
    resources = PlannerResources(model, load_domain_files(), lambda: load_embedder({}), options)
    planner = build_planner("saycan", resources)
    planner.reset("bring me a coke")
    prompt = planner.current_prompt()
    bank = load_bank()
    print(json.dumps({
        "module": llm_planner_ros.paths.__file__,
        "adapter": str(adapter_file(parse_config(LLMConfig, {}))),
        "bank": str(llm_planner_ros.paths.repo_path(BANK_FILE)),
        "bank_size": len(bank),
        "episodes": len(load_episodes("domains/saycan_kitchen/dev.yaml")),
        "retrieved": [example.instruction for example in bank if example.instruction in prompt],
    }))
""")


@pytest.mark.timeout(300)
def test_the_install_resolves_the_adapter_bank_and_episodes_without_the_checkout(
    repo_root: Path, tmp_path: Path, colcon_workspace: Workspace
) -> None:
    install = colcon_workspace.install
    (tmp_path / "recording.jsonl").touch()
    (tmp_path / "probe.py").write_text(PROBE)
    probe = subprocess.run(
        [sys.executable, "probe.py", str(repo_root / "src"), "recording.jsonl"],
        cwd=tmp_path,
        env=colcon_workspace.env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert probe.returncode == 0, probe.stdout + probe.stderr
    found = json.loads(probe.stdout.strip().splitlines()[-1])

    share = install / "llm_planner_ros" / "share" / "llm_planner_ros"
    assert Path(found["module"]).is_relative_to(install), f"the probe imported the checkout: {found['module']}"
    assert Path(found["adapter"]) == share / "domains" / "saycan_kitchen" / "adapters" / "saycan.safetensors"
    assert (
        Path(found["adapter"]).stat().st_size
        == (repo_root / "domains" / "saycan_kitchen" / "adapters" / "saycan.safetensors").stat().st_size
    )
    assert Path(found["bank"]) == share / "domains" / "saycan_kitchen" / "bank.jsonl"
    bank_lines = (repo_root / "domains" / "saycan_kitchen" / "bank.jsonl").read_text(encoding="utf-8").splitlines()
    assert found["bank_size"] == sum(1 for line in bank_lines if line.strip())
    assert found["episodes"] == len(load_episodes(repo_root / "domains" / "saycan_kitchen" / "dev.yaml"))
    # the planner built with examples: retrieved put the install's bank examples into its prompt
    assert any("coke" in request for request in found["retrieved"]), found["retrieved"]


def test_outside_a_checkout_a_packaged_file_is_read_from_the_first_install_that_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paths, "_CHECKOUT", tmp_path / "not_a_checkout")
    overlay, underlay = tmp_path / "overlay", tmp_path / "underlay"
    for prefix in (overlay, underlay):
        (prefix / "share" / "llm_planner_ros" / "data").mkdir(parents=True)
    (underlay / "share" / "llm_planner_ros" / "data" / "bank.jsonl").touch()
    monkeypatch.setenv("AMENT_PREFIX_PATH", f"{overlay}:{underlay}")

    assert paths.repo_path("data/bank.jsonl") == underlay / "share" / "llm_planner_ros" / "data" / "bank.jsonl"
    (overlay / "share" / "llm_planner_ros" / "data" / "bank.jsonl").touch()
    assert paths.repo_path("data/bank.jsonl") == overlay / "share" / "llm_planner_ros" / "data" / "bank.jsonl"
    with pytest.raises(paths.PackagedFileNotFoundError) as missing:
        paths.repo_path("data/other.jsonl")
    message = str(missing.value)
    for tried in (
        tmp_path / "not_a_checkout",
        overlay / "share" / "llm_planner_ros" / "data" / "other.jsonl",
        underlay / "share" / "llm_planner_ros" / "data" / "other.jsonl",
    ):
        assert str(tried) in message
    assert "colcon build" in message


@pytest.mark.parametrize("in_checkout", [True, False])
def test_a_config_folder_in_the_current_directory_never_replaces_the_packaged_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_checkout: bool
) -> None:
    packaged = paths.config_file("planners.yaml")
    if not in_checkout:
        monkeypatch.setattr(paths, "_CHECKOUT", tmp_path / "not_a_checkout")
        share = tmp_path / "prefix" / "share" / "llm_planner_ros"
        (share / "config").mkdir(parents=True)
        packaged = share / "config" / "planners.yaml"
        packaged.write_text("saycan: {}\n")
        monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path / "prefix"))
    elsewhere = tmp_path / "somewhere"
    (elsewhere / "config").mkdir(parents=True)
    (elsewhere / "config" / "planners.yaml").write_text("saycan: {someone: else}\n")
    monkeypatch.chdir(elsewhere)

    assert paths.config_file("planners.yaml") == packaged
    assert paths.resolve_config(None, "planners.yaml") == packaged
    # A path the user names is still read where they are.
    assert paths.repo_path("config/planners.yaml") == elsewhere / "config" / "planners.yaml"


def test_a_packaged_path_that_moved_resolves_to_the_new_file_with_a_warning(tmp_path: Path) -> None:
    with pytest.warns(FutureWarning, match="config/kitchen_world.yaml moved to domains/saycan_kitchen/world.yaml"):
        moved = paths.packaged_path("config/kitchen_world.yaml")
    assert moved == paths.default_domain_file("world.yaml") and moved.is_file()
    with pytest.warns(FutureWarning, match="adapters/progprompt.safetensors"):
        assert paths.packaged_path("data/progprompt/progprompt_adapter.safetensors").is_file()


DESIGN_PACKAGES = {"llm_planner_ros", "affordance_servers", "skill_executors"}


def test_the_venv_install_adds_only_the_designs_top_level_packages() -> None:
    top_level = distribution("llm_planner_ros").read_text("top_level.txt") or ""
    assert set(top_level.split()) == DESIGN_PACKAGES


def test_the_colcon_install_adds_only_the_designs_top_level_packages(colcon_workspace: Workspace) -> None:
    (site,) = (colcon_workspace.install / "llm_planner_ros" / "lib").glob("python3*/site-packages")
    packages = {path.name for path in site.iterdir() if (path / "__init__.py").is_file()}
    assert packages == DESIGN_PACKAGES

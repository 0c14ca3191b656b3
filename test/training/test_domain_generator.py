"""Whole domains drawn at random (``training.domain_generator``, ``llm-planner domain generate``): each
seed's world and skills files load as any user's folder does, its tasks have oracle plans, the same seed
gives the same domain, and the seeds together use every form the format has."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.cli.main import main
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.oracle import shortest_plan
from llm_planner_ros.training.domain_generator import SETTINGS, generate_domain, write_domain

SEEDS = range(16)
# Four seeds that together use every form (seed 7: a door, something made; seed 8: surfaces wiped where
# the robot stands): writing a folder costs about a second.
WRITTEN = range(6, 10)


def test_the_same_seed_gives_the_same_domain_and_seeds_differ() -> None:
    assert generate_domain(7) == generate_domain(7)
    assert len({generate_domain(seed).world["world"] for seed in SEEDS}) == len(SEEDS)
    texts = {generate_domain(seed).skills["skills"][1]["text"] for seed in SEEDS}
    assert len(texts) > 1, "the skills are worded more than one way across domains"


def test_every_category_is_asked_for_with_its_own_article() -> None:
    """Every generated category states its article: "some tools", "a drink", never "an instruments"."""
    articles = {
        name: spec["article"]
        for seed in range(60)
        for name, spec in generate_domain(seed).world.get("categories", {}).items()
    }
    assert articles["drink"] == "a" and articles["tools"] == "some", articles
    plural = {name: article for name, article in articles.items() if name.endswith("s")}
    assert plural and set(plural.values()) == {"some"}, plural


def test_every_seed_writes_a_folder_whose_tasks_the_oracle_solves(tmp_path: Path) -> None:
    forms: Counter[str] = Counter()
    for seed in WRITTEN:
        domain = generate_domain(seed)
        kitchen = write_domain(domain, tmp_path / domain.name, 2, seed)
        episodes = load_episodes(tmp_path / domain.name / "episodes.yaml", kitchen)
        assert len(episodes) == 2
        for episode in episodes:
            assert shortest_plan(episode, kitchen=kitchen) is not None, (domain.name, episode.id)
        rules = kitchen.library.rules
        forms.update(
            {
                "categories": bool(kitchen.config.categories),
                "door": "door_open" in kitchen.config.facts,
                "facts over listed places": any(spec.arguments for spec in kitchen.config.facts.values()),
                "here": any("{here}" in str(effect) for rule in rules for effect in rule.effects),
                "made objects": bool(kitchen.library.created_labels()),
                "some": "some" in kitchen.config.articles.values(),
            }
        )
    assert set(forms) == {"categories", "door", "facts over listed places", "here", "made objects", "some"}
    assert all(count > 0 for count in forms.values()), forms


def test_the_command_writes_folders_the_domain_check_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["domain", "generate", str(tmp_path), "--seeds", "3:5", "--episodes", "2"]) == 0
    folders = sorted(path.name for path in tmp_path.iterdir())
    assert folders == ["gen_0003", "gen_0004"]
    for name in folders:
        assert main(["domain", "check", str(tmp_path / name)]) == 0
        allowed = load_domain(tmp_path / name)
        assert allowed.library.rules
    assert "episodes.yaml: 2 episodes" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        main(["domain", "generate", str(tmp_path), "--seeds", "5:5"])
    assert refused.value.code == 2 and "names no seed: write A:B with A < B" in capsys.readouterr().err


def test_no_generated_name_is_a_name_of_the_shipped_office() -> None:
    """The office measures planning in a domain no generated one resembles by name (a fairness check of
    the cross-domain models): no place, object, synonym, device or made thing of the settings is one of its."""
    office = load_domain(REPO_ROOT / "domains" / "office").config
    names = {name for thing in (*office.labels, *office.locations) for name in office.names(thing)}
    for setting in SETTINGS.values():
        used = {*setting.places, *setting.objects, *(word for spec in setting.objects.values() for word in spec[1])}
        used |= {device for device, _ in setting.devices} | {name for made in setting.makes for name in made[:2]}
        assert not used & names, used & names

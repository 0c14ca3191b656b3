"""Categories of a domain's objects (docs/domains.md): the world file's format and its problems, goals that
name a category, the request check that grounds one in the scene, and generated requests that ask by
category or by need (domains/office)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.domain import Domain, load_domain_files
from llm_planner_ros.domain.conditions import condition_from_yaml
from llm_planner_ros.domain.config import ConfigError, load_domain_config
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.validation import ValidationError
from llm_planner_ros.planning.domain_tasks import TaskWriter, generate_examples
from llm_planner_ros.planning.instruction_check import ObjectVocabulary, check_instruction
from llm_planner_ros.planning.plan_loop import EndReason

OFFICE = REPO_ROOT / "domains" / "office"


@pytest.fixture(scope="module")
def office() -> Domain:
    return load_domain(OFFICE)


def _world_file(tmp_path: Path, objects: str, categories: str = "") -> Path:
    path = tmp_path / "world.yaml"
    path.write_text(
        "world: t\n"
        "locations:\n  desk: {x: 0, y: 0, synonyms: [workstation]}\n  user: {x: 1, y: 1}\n"
        f"objects:\n{objects}"
        f"{categories}"
        "default_scene:\n  robot: {at: desk, holding: null}\n  objects: []\n"
    )
    return path


def test_objects_list_their_categories_and_the_world_gives_them_words(office: Domain) -> None:
    categories = office.config.categories
    assert categories["office supplies"].labels == ("stapler", "notepad", "marker")
    assert categories["drink"].synonyms == ("something to drink", "a beverage")
    assert categories["food"].needs == ("I'm hungry", "I skipped lunch")
    assert categories["food"].asked == "some food" and categories["drink"].asked == "a drink"


def test_every_problem_of_the_categories_is_reported_at_once_with_its_line(tmp_path: Path) -> None:
    path = _world_file(
        tmp_path,
        "  mug: {article: a, categories: [drink, mug]}\n"
        "  bottle: {article: a, synonyms: [flask], categories: [drink, desk]}\n"
        "  apple: {article: an, categories: food}\n",
        "categories:\n  drink: {synonyms: [flask, workstation], article: the}\n  tool: {}\n",
    )
    with pytest.raises(ConfigError) as refused:
        load_domain_config(path)
    message = str(refused.value)
    assert "7 problems" in message, message
    assert "line 6, field objects.mug.categories[1]: 'mug' is already the object label 'mug'" in message
    assert "line 7, field objects.bottle.categories[1]: 'desk' is already the location 'desk'" in message
    assert "line 8, field objects.apple.categories: must be a non-empty list, got str 'food'" in message
    assert "line 10, field categories.drink.synonyms[0]: 'flask' is already a synonym of 'bottle'" in message
    assert "line 10, field categories.drink.synonyms[1]: 'workstation' is already a synonym of 'desk'" in message
    assert "line 10, field categories.drink.article: unknown article 'the'" in message
    assert "line 11, field categories.tool: no object lists the category 'tool'" in message


def test_a_goal_may_name_a_category_for_any_of_its_objects(office: Domain) -> None:
    goal = condition_from_yaml({"at": {"label": "office supplies", "location": "user"}}, office.config)
    assert str(goal) == "at(stapler|notepad|marker, user)"
    scene = {"robot": {"at": "desk", "holding": None}, "objects": [{"id": "m", "label": "marker", "at": "user"}]}
    assert goal.holds(office.world(scene))
    holding = condition_from_yaml({"holding": ["drink", "mug"]}, office.config)
    assert str(holding) == "holding(water bottle|mug)"
    with pytest.raises(
        ValidationError, match="unknown label or category 'drinks'; known labels or categories: .*'food'"
    ):
        condition_from_yaml({"at": {"label": "drinks", "location": "user"}}, office.config)


def test_a_category_asked_for_is_absent_only_when_none_of_its_objects_is_in_the_scene(office: Domain) -> None:
    vocabulary = ObjectVocabulary.of_kitchen(office.config)
    assert vocabulary.named("I'm thirsty, could you get me a beverage?") == ("drink",)
    assert vocabulary.named("Bring me the pens and something to eat, but no stationery.") == ("writing tool", "food")
    scene = {
        "robot": {"at": "desk", "holding": None},
        "objects": [{"id": "m", "label": "marker", "at": "printer"}, {"id": "a", "label": "mug", "at": "desk"}],
    }
    world = office.world(scene)

    def check(text: str):  # type: ignore[no-untyped-def]
        return check_instruction(text, vocabulary, 500, "refuse", lambda: world, lambda *_: (False, ""))

    found = check("I need something to write with.")
    assert found.refusal is None and found.named == ("marker",)
    missing = check("I'm so thirsty, bring me something to drink.")
    assert missing.refusal is not None and missing.refusal.reason == EndReason.MISSING
    assert missing.refusal.message.startswith("not in the scene: drink (water bottle) (seen: marker, mug)")


def test_no_request_of_the_offices_own_episodes_is_refused_in_its_scene(office: Domain) -> None:
    """The categories ground requests that name them; none the office's train and dev episodes make (each
    achievable in its scene) is called absent."""
    vocabulary = ObjectVocabulary.of_kitchen(office.config)
    for name in ("train.yaml", "dev.yaml"):
        for episode in load_episodes(OFFICE / name, office).episodes:
            world = episode.world(office)
            verdict = check_instruction(
                episode.instruction, vocabulary, 500, "refuse", lambda w=world: w, lambda *_: (False, "")
            )
            assert verdict.refusal is None, f"{name} {episode.id}: {verdict.refusal}"


def test_generated_requests_ask_by_category_or_need_and_their_plans_deliver_one(office: Domain) -> None:
    examples = [example for example in generate_examples(office, 40, seed=5) if example.kind == "category"]
    assert len(examples) >= 3, "a domain with categories should get category requests"
    categories = office.config.categories
    for example in examples:
        category = categories[example.goal["at"]["label"]]
        words = [category.asked, *category.synonyms, *category.needs]
        assert any(word in example.instruction for word in words), example.instruction
        picked = next(step for step in example.steps if step.startswith("pick up the "))
        assert picked.removeprefix("pick up the ") in category.labels, example.steps


def test_a_domain_without_categories_draws_no_category_task_and_its_old_weights() -> None:
    """The category kind is drawn only where the world has categories, and the other kinds keep their
    weights there: a domain without categories draws the same tasks for the same seed as before."""
    corner = REPO_ROOT / "test" / "data" / "office_corner"
    plain = load_domain_files(corner / "world.yaml", corner / "skills.yaml")
    assert not plain.config.categories
    writer = TaskWriter(plain, random.Random(0))
    assert "category" not in writer.kind_weights
    assert sum(writer.kind_weights.values()) == pytest.approx(1.0)

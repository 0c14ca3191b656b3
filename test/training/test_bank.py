"""The generated example bank: requests the oracle solved, replayable, decontaminated, all families."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from llm_planner_ros.domain.conditions import condition_from_yaml
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.oracle import shortest_plan
from llm_planner_ros.planning.domain_tasks import normalized
from llm_planner_ros.planning.saycan.bank import BANK_FILE, PlanExample, load_bank
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.training.saycan_bank import generate_examples
from llm_planner_ros.training.saycan_tasks import TaskWriter, load_lexicon

FAMILIES = {
    "nl_single_primitive",
    "nl_nouns",
    "nl_verbs",
    "structured_language",
    "embodiment",
    "crowd_sourced",
    "long_horizon",
    "drawer",
    "multilingual",
}


def _replays(example: PlanExample, kitchen: Domain) -> bool:
    world = kitchen.world(example.initial)
    goal = condition_from_yaml(example.goal, kitchen.config)
    if example.steps[-1] != "done" or goal.holds(world) or describe_scene(world, unsaid=True) != example.scene:
        return False
    for step in example.steps[:-1]:
        world.apply(step)  # raises SkillError for a step that cannot run
    return goal.holds(world)


def test_generated_examples_are_shortest_plans_that_reach_their_goals(kitchen: Domain) -> None:
    examples = list(generate_examples(kitchen, 80, seed=7))
    assert len(examples) == 80
    for example in examples:
        assert _replays(example, kitchen), example
        optimal = shortest_plan(
            kitchen.world(example.initial), condition_from_yaml(example.goal, kitchen.config), max_depth=40
        )
        assert optimal is not None and len(optimal) == len(example.steps), example.id


def test_generation_is_reproducible_and_drops_excluded_instructions(kitchen: Domain) -> None:
    first = list(generate_examples(kitchen, 30, seed=3))
    assert first == list(generate_examples(kitchen, 30, seed=3))
    excluded = [example.instruction.upper() + " " for example in first[:10]]
    cleaned = list(generate_examples(kitchen, 30, seed=3, exclude=excluded))
    assert not {normalized(e.instruction) for e in cleaned} & {normalized(text) for text in excluded}


def test_every_task_kind_writes_tasks(kitchen: Domain) -> None:
    writer = TaskWriter(load_lexicon(), kitchen, random.Random(5))
    for kind in writer.kinds:
        tasks = [task for task in (writer.write(kind) for _ in range(40)) if task is not None]
        assert tasks, f"{kind} never wrote a task in 40 draws"
        assert all(task.instruction.strip() and "{" not in task.instruction for task in tasks), kind


@pytest.fixture(scope="module")
def shipped() -> list[PlanExample]:
    return load_bank(BANK_FILE)


def test_the_shipped_bank_replays_and_covers_every_family(shipped: list[PlanExample], kitchen: Domain) -> None:
    assert len(shipped) >= 2000
    assert {example.family for example in shipped} == FAMILIES
    for example in random.Random(0).sample(shipped, 150):
        assert _replays(example, kitchen), example.id


def test_the_shipped_bank_holds_no_dev_suite_instruction(
    shipped: list[PlanExample], kitchen: Domain, repo_root: Path
) -> None:
    dev = {
        normalized(episode.instruction)
        for episode in load_episodes(repo_root / "domains/saycan_kitchen/dev.yaml", kitchen)
    }
    assert not dev & {normalized(example.instruction) for example in shipped}


def test_a_missing_bank_says_how_to_generate_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="llm-planner train saycan-bank"):
        load_bank(tmp_path / "absent.jsonl")


def test_every_long_horizon_style_writes_tasks_the_oracle_solves(kitchen: Domain) -> None:
    writer = TaskWriter(load_lexicon(), kitchen, random.Random(9))
    solved: dict[str, int] = {}
    for _ in range(1500):
        task = writer.write("long")
        if task is None:
            continue
        world = kitchen.world(task.initial.to_initial())
        goal = condition_from_yaml(task.goal, kitchen.config)
        if not goal.holds(world) and shortest_plan(world, goal, max_depth=40) is not None:
            solved[task.style] = solved.get(task.style, 0) + 1
    assert set(solved) == set(load_lexicon()["long"]), solved


def test_a_long_horizon_style_without_a_writer_is_refused_by_name(kitchen: Domain) -> None:
    lexicon = load_lexicon()
    lexicon["long"] = {"juggle": ["juggle {x}"]}
    with pytest.raises(ValueError, match="'juggle' has no writer; known styles: .*sequence"):
        TaskWriter(lexicon, kitchen, random.Random(0)).write("long")


def test_polite_wrappers_go_around_commands_only(kitchen: Domain) -> None:
    writer = TaskWriter(load_lexicon(), kitchen, random.Random(4))
    openings = ("could you ", "would you ", "can you ", "how would you ", "i need you to ", "please ", "hey robot, ")
    statements = ("i ", "i'd ", "i'll ", "i'm ", "can i ", "the ", "a ", "an ")
    wrapped = 0
    for kind in writer.kinds:
        for task in filter(None, (writer.write(kind) for _ in range(100))):
            text = task.instruction.lower()
            opening = next((o for o in openings if text.startswith(o)), None)
            if opening is not None:
                wrapped += 1
                assert not text[len(opening) :].startswith(statements), task.instruction
    assert wrapped > 200


def test_busy_requests_come_with_a_full_gripper(kitchen: Domain) -> None:
    writer = TaskWriter(load_lexicon(), kitchen, random.Random(6))
    tasks = [task for task in (writer.write("busy") for _ in range(40)) if task is not None]
    assert len(tasks) >= 30
    assert all(any(obj.at == "robot" for obj in task.initial.objects) for task in tasks)


def test_exclusion_requests_are_solved_with_an_allowed_member(kitchen: Domain) -> None:
    lexicon = load_lexicon()
    writer = TaskWriter(lexicon, kitchen, random.Random(8))
    for task in filter(None, (writer.write("exclude") for _ in range(30))):
        allowed, ruled_out = (part["at"]["label"] for part in (task.goal["all"][0], task.goal["all"][1]["not"]))
        ruled_out = {ruled_out} if isinstance(ruled_out, str) else set(ruled_out)
        assert any(obj.label in ruled_out for obj in task.initial.objects), task.instruction
        plan = shortest_plan(
            kitchen.world(task.initial.to_initial()), condition_from_yaml(task.goal, kitchen.config), max_depth=40
        )
        assert plan is not None
        picked = {skill.text.removeprefix("pick up the ") for skill in plan if skill.text.startswith("pick up")}
        assert picked and not picked & ruled_out, (task.instruction, picked)
        assert picked & set([allowed] if isinstance(allowed, str) else allowed)

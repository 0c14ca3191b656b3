"""VirtualHome's prompt examples: read only from programs that are not evaluated tasks, checked against the
evaluated tasks, and the packaged file exactly what its command writes."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from llm_planner_ros.planning.virtualhome_environment import VirtualHomeEnvironment
from llm_planner_ros.training.virtualhome_examples import (
    Evaluated,
    build_example,
    evaluated,
    fairness_check,
    task_example,
)
from llm_planner_ros.virtualhome_domain.examples import (
    development_split,
    goal_subset,
    load_examples,
    program_ids,
    program_task,
)
from llm_planner_ros.virtualhome_domain.tasks import task_names, tasks
from llm_planner_ros.virtualhome_domain.vocabulary import skill_from_text

pytestmark = pytest.mark.timeout(180)


def test_examples_come_only_from_programs_that_are_not_evaluated_tasks() -> None:
    programs = program_ids()
    assert len(programs) == 176 and not set(programs) & set(task_names())
    examples = load_examples()
    assert len(examples) == 140 and {e.id for e in examples} <= set(programs)
    for example in examples:
        assert example.steps[-1] == "done" and example.instruction.startswith(example.name.rstrip("."))
        for text in example.steps[:-1]:
            skill_from_text(text, example.objects)  # every step is a skill of its own vocabulary


def test_the_packaged_file_is_what_the_build_writes() -> None:
    for example in load_examples()[:3]:
        assert build_example(example.id) == example


def test_every_fourth_example_is_a_development_task_that_its_own_program_solves() -> None:
    examples = load_examples()
    train, development = development_split(examples)
    assert len(train) == 105 and len(development) == 35
    assert development == examples[3::4] and not {e.id for e in train} & {e.id for e in development}
    example = development[0]
    task = program_task(example.id)
    assert task.identifier not in task_names()  # never a task the benchmark scores
    env = VirtualHomeEnvironment.for_task(task)
    assert env.instruction() == example.instruction and not env.goals_hold
    assert env.after(example.steps[:-1]) is env and env.goals_hold
    # the scorer's own check counts one edge goal at most: it never passes this task's two
    assert len(task.edge_goals) == 2 and not env.goals_reached


def test_a_goal_subset_asks_for_part_of_a_programs_goals_and_its_program_stops_where_they_hold() -> None:
    example = load_examples()[0]
    task = program_task(example.id)
    goals = (task.node_goals, task.edge_goals, task.action_goals)
    subsets = [goal_subset(task, random.Random(f"test/{draw}")) for draw in range(8)]
    assert goal_subset(task, random.Random("test/0")) == subsets[0]  # seeded: the same draw every time
    sizes = set()
    for subset in subsets:
        chosen = (subset.node_goals, subset.edge_goals, subset.action_goals)
        assert all(set(map(repr, part)) <= set(map(repr, whole)) for part, whole in zip(chosen, goals, strict=True))
        sizes.add(sum(map(len, chosen)))
        assert (subset.gold, subset.identifier, subset.name) == (task.gold, task.identifier, task.name)
        cut = task_example(subset, until_goals_hold=True)
        assert not isinstance(cut, str), cut
        steps = cut.steps[:-1]
        assert cut.steps[-1] == "done" and steps == example.steps[: len(steps)]
        env = VirtualHomeEnvironment.for_task(subset)
        assert cut.instruction == env.instruction() and env.after(steps[:-1]) is env
        assert not env.goals_hold  # one step less is not enough,
        assert env.after(steps[-1:]) is env and env.goals_hold  # the last step makes them hold
    assert 0 not in sizes and len(sizes) > 1
    empty = dataclasses.replace(task, node_goals=(), edge_goals=(), action_goals=())
    assert goal_subset(empty, random.Random(0)) == empty


def test_the_fairness_check_drops_what_an_evaluated_task_shares_and_counts_shared_names() -> None:
    (pet_cat,) = evaluated(tasks(["12_2"]))
    assert pet_cat.request == "Pet cat. In the end: you are close to the cat. Do at some point: touch."
    assert pet_cat.plan[-1] == "touch the cat"
    example = load_examples()[0]
    planted = [
        dataclasses.replace(example, id="12_2"),
        dataclasses.replace(example, id="x1", instruction=pet_cat.request),
        dataclasses.replace(example, id="x2", steps=(*pet_cat.plan, "done")),
        dataclasses.replace(example, id="x3", name="Pet cat"),
        example,
    ]
    kept, counts = fairness_check(planted, [pet_cat])
    assert [e.id for e in kept] == ["x3", example.id]
    assert counts == {"same_id": 1, "same_request": 1, "same_plan": 1, "same_name_kept": 1}
    assert fairness_check([example], [Evaluated("1_1", example.name, "", ())])[1]["same_name_kept"] == 1


def test_a_missing_or_malformed_examples_file_is_refused_with_the_command_that_builds_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="build them with `llm-planner train virtualhome-examples"):
        load_examples(tmp_path / "none.jsonl")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(load_examples()[0].to_json() + "\n\n" + '{"id": "1_1", "name": "x"}\n')
    with pytest.raises(ValueError, match=r"broken.jsonl:3: not a VirtualHome example .*; rebuild with"):
        load_examples(broken)

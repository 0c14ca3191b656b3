r"""The SayCan example bank: synthetic requests with their scenes and the oracle's plans, as dialogs.

Each example is a task of ``saycan_tasks`` (a request, the scene it starts from, its goal) solved by the
A* oracle (``llm_planner_ros.domain.oracle.shortest_plan``), so every plan is a shortest one in the
simulator's own
rules. The SayCan prompt retrieves the examples nearest to an instruction (``saycan_retrieval``) and the
adapter trains on them (``llm_planner_ros.training.saycan_adapter``).

Decontamination: examples whose instruction equals (case and punctuation aside) an instruction of an
``--exclude`` file (an episode file, or a text file of one instruction per line, ``#`` comments) are
dropped, so a bank never contains an evaluation request verbatim.

    llm-planner train saycan-bank --count 4000 --seed 0 --exclude domains/saycan_kitchen/dev.yaml \
        --exclude data/saycan/held_out_instructions.txt --out domains/saycan_kitchen/bank.jsonl
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.skill import FIND
from llm_planner_ros.domain.world import World
from llm_planner_ros.paths import repo_path
from llm_planner_ros.planning.domain_tasks import normalized, solve_task
from llm_planner_ros.planning.saycan.bank import BANK_FILE, PlanExample, save_bank
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.training.saycan_tasks import LEXICON_FILE, TaskWriter, load_lexicon

MAX_PLAN = 40  # longest plan kept, done included (the longest dev episodes allow 40 steps)

# How often each task kind is drawn: every instruction family about equally, the kinds of a family
# sharing its weight; long-horizon tasks get more since their plans vary most.
KIND_WEIGHTS: dict[str, float] = {
    "pick": 0.3,
    "put_down": 0.25,
    "go": 0.2,
    "come": 0.1,
    "find": 0.15,
    "category": 1.0,
    "deliver": 0.3,
    "trash": 0.25,
    "move": 0.25,
    "move_from": 0.15,
    "clear_off": 0.05,
    "structured": 1.0,
    "held": 0.4,
    "busy": 0.6,
    "need": 0.5,
    "crowd": 0.5,
    "not_this": 0.2,
    "exclude": 0.3,
    "long": 1.6,
    "drawer": 0.7,
    "multilingual": 0.8,
}


def generate_examples(
    kitchen: Domain, count: int, seed: int, exclude: Iterable[str] = (), lexicon_file: str | Path = LEXICON_FILE
) -> Iterator[PlanExample]:
    """``count`` solvable examples drawn with ``seed`` (the same arguments give the same examples).

    Tasks whose goal holds already, that the oracle cannot solve within MAX_PLAN skills, or whose
    instruction is in ``exclude`` (compared ``normalized``) are drawn again.
    """
    rng = random.Random(seed)
    writer = TaskWriter(load_lexicon(lexicon_file), kitchen, rng)
    excluded = {normalized(text) for text in exclude}
    kinds, weights = zip(*KIND_WEIGHTS.items(), strict=True)
    produced = 0
    while produced < count:
        task = writer.write(rng.choices(kinds, weights)[0])
        if task is None or normalized(task.instruction) in excluded:
            continue
        initial = task.initial.to_initial()
        solved = solve_task(kitchen, initial, task.goal, task.kind, MAX_PLAN)
        if solved is None:
            continue
        world, plan = solved
        steps = _worded(world, [skill.text for skill in plan], task.mentions)
        yield PlanExample(
            f"{task.kind}-{produced:05d}",
            task.kind,
            task.family,
            task.instruction,
            describe_scene(world, unsaid=True),
            tuple(steps),
            initial,
            task.goal,
        )
        produced += 1


def _worded(world: World, steps: list[str], mentions: Sequence[str]) -> list[str]:
    """The oracle words a move that picks nothing up as "go to the <place>"; when the request names an
    object lying there ("find the tea"), "find a tea" is the same move in the request's own terms."""
    if len(steps) != 2 or not mentions:
        return steps
    find = next(
        (skill for skill in world.admissible_skills() if skill.family == FIND and skill.argument == mentions[0]), None
    )
    if find is None or not world.can_apply(find):
        return steps
    after = world.copy()
    after.apply(find)
    arrived = world.copy()
    arrived.apply(steps[0])
    return [find.text, steps[1]] if after.robot_at == arrived.robot_at else steps


def excluded_instructions(path: Path, kitchen: Domain) -> list[str]:
    """The instructions of an episode file (.yaml), or the lines of a text file (``#`` starts a comment)."""
    if path.suffix in (".yaml", ".yml"):
        return [episode.instruction for episode in load_episodes(path, kitchen)]
    lines = (line.strip() for line in repo_path(path).read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train saycan-bank``."""
    parser.add_argument("--count", type=int, default=4000, help="examples to generate (default 4000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="episode file (.yaml) or text file of instructions that must not appear in the bank (repeatable)",
    )
    parser.add_argument("--lexicon", type=Path, default=LEXICON_FILE, help=f"word lists (default {LEXICON_FILE})")
    parser.add_argument("--out", type=Path, default=BANK_FILE, help=f"output JSONL (default {BANK_FILE})")


def run(args: argparse.Namespace) -> int:
    """Generate the example bank (see the module docstring)."""
    kitchen = load_domain_files()
    exclude = [text for path in args.exclude for text in excluded_instructions(path, kitchen)]
    started = time.perf_counter()
    examples = list(generate_examples(kitchen, args.count, args.seed, exclude, args.lexicon))
    written = save_bank(examples, args.out)
    families = Counter(example.family for example in examples)
    lengths = [len(example.steps) for example in examples]
    print(
        f"wrote {written} examples to {args.out} in {time.perf_counter() - started:.0f} s; "
        f"plan length {min(lengths)}-{max(lengths)}, mean {sum(lengths) / len(lengths):.1f}"
    )
    for family, n in sorted(families.items()):
        print(f"  {family:<22} {n}")
    return 0

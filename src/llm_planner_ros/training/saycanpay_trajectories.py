"""The expert plans SayCanPay's Can and Pay models learn from, per domain, with the rules' verdicts.

- BabyAI: the episodes of a split file (``benchmarks/babyai/train.txt``), their oracle plans, and along
  each plan what ``llm_planner_ros.babyai_domain.world`` allows and rejects (``judged_along_plan``).
- A domain folder of the kitchen's format: the plans of its example bank (``llm-planner domain build``).
- Kitchen: requests of every instruction family written by the SayCan bank's generator
  (``saycan_bank.generate_examples``: random scenes, the lexicon's requests, A* oracle plans, requests
  equal to an excluded one dropped), the initial observation as the plan loop gives it
  (``World.summary()``, what ``describe_state`` returns), and along each plan the skills
  ``llm_planner_ros.domain.world.World.can_apply`` allows and rejects in the state before each step.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from llm_planner_ros.babyai_domain.episodes import load_episodes
from llm_planner_ros.babyai_domain.world import judged_along_plan
from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.skill_library import SkillLibrary
from llm_planner_ros.paths import default_domain
from llm_planner_ros.planning.saycan.bank import PlanExample, load_bank
from llm_planner_ros.training.saycan_bank import excluded_instructions, generate_examples

# The evaluation requests no kitchen training plan may repeat (as for the SayCan bank).
KITCHEN_EXCLUDE = (default_domain() / "dev.yaml", Path("data/saycan/held_out_instructions.txt"))


@dataclass(frozen=True)
class Trajectory:
    """An expert plan with the goal and initial observation it was made for, per step the actions the
    environment's rules allow and reject in the state before it (empty when not known), and the skills of
    the domain it was planned in (None: the SayCan kitchen's, or BabyAI)."""

    goal: str
    initial_state: str
    plan: tuple[str, ...]
    allowed: tuple[frozenset[str], ...] = ()
    rejected: tuple[tuple[str, ...], ...] = ()
    library: SkillLibrary | None = None


def babyai_trajectories(path: Path) -> list[Trajectory]:
    """The episodes of a BabyAI split with the rules' verdicts along each oracle plan."""
    trajectories = []
    for episode in load_episodes(path):
        judged = judged_along_plan(episode)
        allowed = tuple(frozenset(a) for a, _ in judged)
        rejected = tuple(tuple(r) for _, r in judged)
        trajectories.append(Trajectory(episode.goal, episode.initial_state, episode.plan, allowed, rejected))
    return trajectories


def kitchen_trajectories(
    kitchen: Domain, count: int, seed: int, exclude_files: Iterable[Path] = KITCHEN_EXCLUDE
) -> list[Trajectory]:
    """``count`` generated kitchen requests (seeded) with their oracle plans and the rules' verdicts
    before each step; no request equals one of ``exclude_files`` (episode files or instruction lists)."""
    exclude = [text for path in exclude_files for text in excluded_instructions(path, kitchen)]
    return plan_trajectories(kitchen, generate_examples(kitchen, count, seed, exclude))


def domain_trajectories(kitchen: Domain, bank: Path) -> list[Trajectory]:
    """The plans of a domain folder's example bank (``llm-planner domain build``: its training episodes
    and generated tasks, none with a request of its evaluation episodes) with the rules' verdicts."""
    return plan_trajectories(kitchen, load_bank(bank))


def plan_trajectories(kitchen: Domain, examples: Iterable[PlanExample]) -> list[Trajectory]:
    """Each example's request, its initial observation (``World.summary()``) and plan, and before each
    step the skills ``World.can_apply`` allows and rejects."""
    trajectories = []
    for example in examples:
        world = kitchen.world(example.initial)
        initial_state = world.summary()
        allowed: list[frozenset[str]] = []
        rejected: list[tuple[str, ...]] = []
        for step in example.steps:
            verdicts = [(skill.text, world.can_apply(skill)) for skill in world.admissible_skills()]
            allowed.append(frozenset(text for text, ok in verdicts if ok))
            rejected.append(tuple(text for text, ok in verdicts if not ok))
            world.apply(step)
        trajectories.append(
            Trajectory(
                example.instruction, initial_state, example.steps, tuple(allowed), tuple(rejected), kitchen.library
            )
        )
    return trajectories

"""A deliberately naive shortest-plan search, independent of llm_planner_ros.domain.oracle, to check its
answers.

Breadth-first over complete world states (every object by id) with every skill of the vocabulary: no
reduction, no pruning, no estimate. Slow, so the tests use it only where plans are short or scenes small.
"""

from __future__ import annotations

from collections.abc import Hashable

from llm_planner_ros.domain import Condition, SkillError, World


def _state(world: World, with_history: bool) -> Hashable:
    objects = tuple(sorted((obj.id, obj.at) for obj in world.objects))
    return (world.robot_at, world.drawer_open, objects, frozenset(world.visited) if with_history else None)


def naive_steps(world: World, goal: Condition, max_steps: int) -> int | None:
    """Fewest skills (``done`` not counted) after which ``goal`` holds, or None beyond ``max_steps``."""
    if goal.holds(world):
        return 0
    skills = [skill for skill in world.admissible_skills() if skill.text != "done"]
    # The places passed matter only to a goal with a visited condition (its text shows it).
    with_history = "visited(" in str(goal)
    seen = {_state(world, with_history)}
    frontier = [world]
    for depth in range(1, max_steps + 1):
        next_frontier = []
        for state in frontier:
            for skill in skills:
                child = state.copy()
                try:
                    child.apply(skill)
                except SkillError:
                    continue
                key = _state(child, with_history)
                if key in seen:
                    continue
                if goal.holds(child):
                    return depth
                seen.add(key)
                next_frontier.append(child)
        frontier = next_frontier
    return None

"""The oracle planner: shortest skill plans in the kitchen world, found by search over world states.

The benchmark uses it for two things:

- checking episodes: every episode's goal must be reachable within its ``max_steps`` (and should not
  hold already at the start); ``check_episode`` says what is wrong with one;
- classifying a planner's failures: ``steps_to_goal`` is the distance of a world from the goal, so a
  planner's step made progress exactly when it lowered that distance, and ``optimal_next_skills`` lists
  the skills that would have.

Plans are lists of kitchen skills and end with ``done``. Search runs on ``World`` itself (its
preconditions and effects come from domains/saycan_kitchen/skills.yaml), so the oracle follows the same rules as
the simulator. It finds the same plan lengths as a breadth-first search over every skill, and stays fast
(the whole dev suite in about 0.3 s) because it searches only what can matter to the goal: the objects
whose labels the goal names (plus the held one), the skills acting on those labels, navigation and
drawer skills; states that differ only in which instance of a label lies where are one state; and it
expands states in A* order with an estimate that never overshoots. Every plan found is replayed on the
full world before it is returned.

    llm-planner oracle domains/saycan_kitchen/dev.yaml   # per-family summary of oracle plans
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from itertools import count
from pathlib import Path
from statistics import mean

from llm_planner_ros.domain.conditions import All, AnyOf, At, Condition, Count, Holding, Not, RobotAt, Visited
from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import Episode, load_episodes
from llm_planner_ros.domain.scene import Scene
from llm_planner_ros.domain.skill import PICK, TERMINATE, Consume, Skill
from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.domain.world import SkillError, World

# Search bound when a World (not an Episode) is given without max_depth: the default episode length.
DEFAULT_MAX_DEPTH = 30

DONE = "done"

# Effect names of llm_planner_ros.domain.world.EFFECTS that only move the robot: to a named place, or to the
# nearest place of an object label.
_TO_LOCATION = "robot_to_location"
_TO_OBJECT = "robot_to_object"
_MOVES = frozenset({_TO_LOCATION, _TO_OBJECT})


@dataclass(frozen=True)
class GoalFocus:
    """What of a world a goal can depend on.

    ``labels``: object labels the goal names (None: any label, for a condition kind the oracle does not
    know). ``visited``: places of the goal's ``visited`` conditions (empty: the goal ignores history;
    None: every place counts).
    """

    labels: frozenset[str] | None
    visited: frozenset[str] | None

    @staticmethod
    def of(goal: Condition) -> GoalFocus:
        labels: set[str] = set()
        visited: set[str] = set()
        known = _collect(goal, labels, visited)
        if not known:
            # An unknown condition may look at anything: search everything (slower, still correct).
            return GoalFocus(None, None)
        return GoalFocus(frozenset(labels), frozenset(visited))


def _collect(condition: Condition, labels: set[str], visited: set[str], negated: bool = False) -> bool:
    """Add the labels and visited places ``condition`` names; False if it has a kind not known here, or
    one that any label can satisfy (so the search must not narrow the labels)."""
    if isinstance(condition, (All, AnyOf)):
        # A list, not a generator: every child must be visited even after an unknown one.
        return all([_collect(child, labels, visited, negated) for child in condition.children])
    if isinstance(condition, Not):
        return _collect(condition.child, labels, visited, not negated)
    if isinstance(condition, (At, Count)):
        labels.update(condition.labels)
        return True
    if isinstance(condition, Holding):
        # not holding(nothing) = holding anything: an object of any label may be the one picked.
        labels.update(condition.labels or ())
        return not (negated and condition.labels is None)
    if isinstance(condition, RobotAt):
        return True
    if isinstance(condition, Visited):
        visited.update(condition.locations)
        return True
    return False


class _LowerBound:
    """An admissible estimate of how many skills a world still needs before the goal holds.

    It never overestimates, so A* with it still finds shortest plans. It reads only the goal's
    conjuncts (nested ``all`` flattened); ``any`` and ``not`` parts add nothing. Skills of different
    kinds are counted apart:

    - put-downs: every unmet ``at``/``count`` at a location needs its own put-downs there (``count``: as
      many as are missing), except that conjuncts whose label lists overlap may share them;
    - picks: every put-down needs a pick first, except for the object already in the gripper; an unmet
      ``holding`` needs one more (that object stays in the gripper);
    - moves: one for every place the robot still has to be at (put-down places, ``robot_at``, places a
      ``visited`` still lacks), the place it stands at now excepted;
    - opening the drawer, when something must go into it and it is closed.
    """

    def __init__(self, goal: Condition, world: World) -> None:
        drawer = world.kitchen.config.drawer
        self.drawer_contents = drawer.contents_at if drawer is not None else None
        self.drawer_place = drawer.location if drawer is not None else None
        leaves = _conjuncts(goal)
        self.placements = [leaf for leaf in leaves if isinstance(leaf, (At, Count))]
        self.holdings = [leaf for leaf in leaves if isinstance(leaf, Holding)]
        self.robot_ats = [leaf for leaf in leaves if isinstance(leaf, RobotAt)]
        self.visits = frozenset(place for leaf in leaves if isinstance(leaf, Visited) for place in leaf.locations)

    def __call__(self, world: World) -> int:
        placed: dict[str, list[str]] = {}
        for obj in world.objects:
            if not obj.held:
                placed.setdefault(obj.at, []).append(obj.label)
        missing_by_place: dict[str, list[tuple[int, frozenset[str]]]] = {}
        for leaf in self.placements:
            missing = _missing(leaf, placed.get(leaf.location, []))
            if missing:
                missing_by_place.setdefault(leaf.location, []).append((missing, frozenset(leaf.labels)))
        puts = sum(_disjoint_total(needs) for needs in missing_by_place.values())
        held = world.holding is not None
        hold_unmet = any(not leaf.holds(world) for leaf in self.holdings)
        if held and hold_unmet:
            puts = max(puts, 1)  # an unmet holding (of a label, or of nothing) needs the gripper emptied
        wants_object = any(not leaf.holds(world) and leaf.labels is not None for leaf in self.holdings)
        picks = max(puts - held, 0) + wants_object
        places = {self._stand_at(location) for location in missing_by_place}
        places.update(leaf.location for leaf in self.robot_ats)
        places.update(self.visits.difference(world.visited))
        places.discard(world.robot_at)
        opening = self.drawer_contents in missing_by_place and world.drawer_open is False
        return puts + picks + len(places) + opening

    def _stand_at(self, location: str) -> str:
        return self.drawer_place if location == self.drawer_contents and self.drawer_place else location


def _conjuncts(goal: Condition) -> list[Condition]:
    if isinstance(goal, All):
        return [part for child in goal.children for part in _conjuncts(child)]
    return [goal]


def _missing(leaf: At | Count, labels_there: list[str]) -> int:
    """How many more objects must be put at the leaf's location for it to hold."""
    matching = [label for label in labels_there if label in leaf.labels]
    if isinstance(leaf, At):
        return 0 if matching else 1
    present = len(set(matching)) if leaf.distinct else len(matching)
    return max(leaf.minimum - present, 0)


def _disjoint_total(needs: list[tuple[int, frozenset[str]]]) -> int:
    """A lower bound on the put-downs one place needs: the summed needs of conjuncts with pairwise
    disjoint label lists (one put-down serves at most one of those). Greedy, largest need first: any
    disjoint choice is a valid bound, the greedy one is usually the best."""
    total, used = 0, frozenset[str]()
    for missing, labels in sorted(needs, key=lambda need: (-need[0], sorted(need[1]))):
        if not labels & used:
            total += missing
            used |= labels
    return total


class _Search:
    """One A* search (unit skill costs) from a world towards a goal, on the part of the world it needs."""

    def __init__(self, world: World, goal: Condition, focus: GoalFocus) -> None:
        self.goal = goal
        self.focus = focus
        labels = world.kitchen.config.labels
        held = world.holding
        # The held object matters even when the goal does not name it: it may have to be put down; so do
        # the labels a skill's written precondition names (a door opened only with the key in hand) or
        # that a skill uses up (the coffee pod a coffee is made from).
        required: set[str] = set()
        rules = world.kitchen.library.rules
        for rule in rules:
            for precondition in rule.preconditions:
                if not isinstance(precondition, str):
                    _collect(precondition, required, set())
            required.update(effect.label for effect in rule.effects if isinstance(effect, Consume))
        self.labels = None if focus.labels is None else focus.labels | required | ({held.label} if held else set())
        self.start = self._reduced(world)
        # Skills of labels the goal does not need can never shorten a plan: picking such an object only
        # fills the gripper, and "find" of it goes to a place a "go to" skill reaches in one step too.
        skills = [
            skill
            for skill in world.admissible_skills()
            if skill.family != TERMINATE
            and (self.labels is None or skill.argument not in labels or skill.argument in self.labels)
        ]
        effects = {skill: world.rule(skill).effects for skill in skills}
        self.moves = frozenset(skill for skill in skills if set(effects[skill]) <= _MOVES)
        reached = {skill.argument for skill in skills if effects[skill] == (_TO_LOCATION,)}
        if reached >= set(world.places()):
            # Every place has its own "go to" skill, so a "find" (which only drives to some place) is
            # never shorter than one; leaving finds out cuts the branching. _natural puts them back.
            skills = [skill for skill in skills if effects[skill] != (_TO_OBJECT,)]
        self.skills = tuple(skills)
        # Two moves in a row are never needed (the second alone ends in the same place) unless the
        # goal counts the places passed on the way.
        self.chain_moves = focus.visited is None or bool(focus.visited)
        # Without a focus the goal may be any condition: no estimate, plain breadth-first order. Nor with
        # skills that make, use up or hand over objects: the estimate counts a pick and a put-down at the
        # place for each object, which such a skill saves, so it could overestimate.
        exact = focus.labels is not None and not any(rule.changes_objects for rule in rules)
        self.estimate = _LowerBound(goal, world) if exact else (lambda _world: 0)

    def _reduced(self, world: World) -> World:
        """The world with only the objects the goal can depend on (every object when unsure)."""
        if self.labels is None:
            return world.copy()
        kept = tuple(obj for obj in world.objects if obj.label in self.labels)
        facts = world.facts if world.kitchen.config.facts else None
        return World(world.kitchen, Scene(world.robot_at, kept, world.drawer_open, facts=facts), world.visited)

    def key(self, world: World) -> Hashable:
        """Equal for worlds the goal and the skills cannot tell apart.

        Instances of one label are interchangeable (a skill names the label, not the instance), so the
        key holds the multiset of (label, place) rather than instance ids. History (visited places)
        counts only for places a ``visited`` condition names.
        """
        objects = tuple(sorted((obj.label, obj.at) for obj in world.objects))
        if self.focus.visited is None:
            history = frozenset(world.visited)
        else:
            history = frozenset(place for place in world.visited if place in self.focus.visited)
        return (world.robot_at, world.drawer_open, world.facts, objects, history)

    def run(self, max_steps: int) -> list[Skill] | None:
        """Skills (without ``done``) of a shortest way to the goal in at most ``max_steps``, else None."""
        start_key = self.key(self.start)
        estimate = self.estimate(self.start)
        if estimate > max_steps:
            return None
        best = {start_key: 0}
        parents: dict[Hashable, tuple[Hashable, Skill] | None] = {start_key: None}
        order = count()  # ties: deeper first (closer to a goal), then first generated
        # Entries: (cost so far + estimate, -cost so far, order, cost, state, key, reached by a move).
        queue: list[tuple[int, int, int, int, World, Hashable, bool]] = [
            (estimate, 0, next(order), 0, self.start, start_key, False)
        ]
        while queue:
            _f, _neg, _n, cost, state, state_key, moved = heappop(queue)
            if cost > best[state_key]:
                continue  # a shorter way to this state was found after this entry was queued
            if self.goal.holds(state):
                return _path(parents, state_key)
            for skill in self.skills:
                is_move = skill in self.moves
                if moved and is_move and not self.chain_moves:
                    continue
                try:
                    state.check(skill)
                except SkillError:
                    continue
                child = state.copy()
                child.apply(skill)
                child_key = self.key(child)
                if best.get(child_key, max_steps + 1) <= cost + 1:
                    continue
                bound = cost + 1 + self.estimate(child)
                if bound > max_steps:
                    continue
                best[child_key] = cost + 1
                parents[child_key] = (state_key, skill)
                heappush(queue, (bound, -(cost + 1), next(order), cost + 1, child, child_key, is_move))
        return None


def _path(parents: dict[Hashable, tuple[Hashable, Skill] | None], key: Hashable) -> list[Skill]:
    skills: list[Skill] = []
    step = parents[key]
    while step is not None:
        key, skill = step
        skills.append(skill)
        step = parents[key]
    return skills[::-1]


def _replays(world: World, goal: Condition, skills: Sequence[Skill]) -> bool:
    """Whether ``skills`` apply one after another on a copy of the full world and leave the goal holding."""
    trial = world.copy()
    try:
        for skill in skills:
            trial.apply(skill)
    except SkillError:
        return False
    return goal.holds(trial)


def _natural(world: World, skills: Sequence[Skill]) -> list[Skill]:
    """The same plan, worded the way the SayCan prompts word plans: a move right before "pick up the X"
    becomes "find a X" when that drives to the same place, and a "find" not followed by picking its
    object becomes the "go to" of the place it drove to. Each swap leaves every world state unchanged."""
    finds: dict[str, Skill] = {}
    go_tos: dict[str, Skill] = {}
    for skill in world.admissible_skills():
        effects = world.rule(skill).effects
        if effects == (_TO_OBJECT,) and skill.argument is not None:
            finds[skill.argument] = skill
        elif effects == (_TO_LOCATION,) and skill.argument is not None:
            go_tos[skill.argument] = skill
    moves = {*finds.values(), *go_tos.values()}
    state = world.copy()
    worded: list[Skill] = []
    for index, skill in enumerate(skills):
        after = state.copy()
        after.apply(skill)
        following = skills[index + 1] if index + 1 < len(skills) else None
        if skill in moves:
            target = following.argument if following is not None and following.family == PICK else None
            options = [finds[target]] if target in finds else []
            options += [go_tos[after.robot_at]] if after.robot_at in go_tos else []
            skill = next((option for option in options if _lands(state, option, after.robot_at)), skill)
        worded.append(skill)
        state = after
    return worded


def _lands(world: World, skill: Skill, place: str) -> bool:
    """Whether ``skill`` can be applied to ``world`` and leaves the robot at ``place``."""
    if not world.can_apply(skill):
        return False
    trial = world.copy()
    trial.apply(skill)
    return trial.robot_at == place


def _steps(world: World, goal: Condition, max_steps: int, worded: bool = True) -> list[Skill] | None:
    """A shortest skill sequence (no ``done``) from ``world`` to ``goal``, checked on the full world;
    ``worded``: in the prompts' wording (see _natural), else as the search found it."""
    if max_steps < 0:
        return None
    skills = _Search(world, goal, GoalFocus.of(goal)).run(max_steps)
    if skills is not None and not _replays(world, goal, skills):
        # The focused search disagreed with the full world: the world's rules changed in a way this
        # module does not know about. Searching everything is slower but assumes nothing about them.
        skills = _Search(world, goal, GoalFocus(None, None)).run(max_steps)
        assert skills is None or _replays(world, goal, skills), "a plan of the full search fails on the full world"
    if skills is None or not worded:
        return skills
    natural = _natural(world, skills)
    return natural if _replays(world, goal, natural) else skills


def _start(start: Episode | World, kitchen: Domain | None) -> World:
    if isinstance(start, World):
        return start
    return start.world(kitchen or load_domain_files())


def _done(world: World) -> Skill:
    return world.skill(DONE)


def shortest_plan(
    start: Episode | World,
    goal: Condition | None = None,
    kitchen: Domain | None = None,
    max_depth: int | None = None,
) -> list[Skill] | None:
    """A shortest plan from ``start`` that leaves ``goal`` holding, ending with ``done``; None if none.

    ``start``: an Episode (its initial world, built on ``kitchen``, default the configured kitchen) or a
    World (not changed; it brings its own kitchen). ``goal``: default the episode's goal; required with a
    World. ``max_depth``: the longest plan to accept, ``done`` included; default the episode's
    ``max_steps``, or DEFAULT_MAX_DEPTH for a World.

    None means no plan of at most ``max_depth`` skills reaches the goal (it may be unreachable at all).
    A goal that holds already gives ``[done]``. The same input always gives the same plan, worded as
    the SayCan prompts word plans ("find a coke, pick up the coke, bring it to you, put down the coke").
    """
    world = _start(start, kitchen)
    goal = _goal(start, goal)
    if max_depth is None:
        max_depth = start.max_steps if isinstance(start, Episode) else DEFAULT_MAX_DEPTH
    skills = _steps(world, goal, max_depth - 1)
    return None if skills is None else [*skills, _done(world)]


def steps_to_goal(
    world: World, goal: Condition, kitchen: Domain | None = None, max_depth: int = DEFAULT_MAX_DEPTH
) -> int | None:
    """How many skills a shortest way from ``world`` to ``goal`` has, ``done`` not counted.

    0 when the goal holds already; None when it takes more than ``max_depth`` skills (or is unreachable).
    A planner's step made progress when it lowered this number. ``kitchen`` is accepted for symmetry
    with ``shortest_plan`` and not needed: the world brings its own.
    """
    del kitchen
    skills = _steps(world, goal, max_depth, worded=False)
    return None if skills is None else len(skills)


def optimal_next_skills(world: World, goal: Condition, max_depth: int = DEFAULT_MAX_DEPTH) -> list[Skill]:
    """Every skill of the world's vocabulary that starts some shortest plan to ``goal``, in library order.

    ``[done]`` when the goal holds already; [] when no plan of at most ``max_depth`` skills (``done`` not
    counted) exists. A planner that chose a skill outside this list, while the list was not empty, chose
    a suboptimal (not necessarily wrong-headed) step; ``steps_to_goal`` before and after tells how much
    it cost. One search per distinct successor state (tens of milliseconds for long tasks), so call it
    once per step, not per candidate skill.
    """
    distance = steps_to_goal(world, goal, max_depth=max_depth)
    if distance is None:
        return []
    if distance == 0:
        return [_done(world)]
    progress: dict[Hashable, bool] = {}  # several skills often lead to one state ("find" and "go to")
    chosen: list[Skill] = []
    for skill in world.admissible_skills():
        if skill.family == TERMINATE or not world.can_apply(skill):
            continue
        after = world.copy()
        after.apply(skill)
        state = (
            after.robot_at,
            after.drawer_open,
            tuple(sorted((o.id, o.at) for o in after.objects)),
            frozenset(after.visited),
        )
        if state not in progress:
            progress[state] = steps_to_goal(after, goal, max_depth=distance - 1) == distance - 1
        if progress[state]:
            chosen.append(skill)
    return chosen


def _goal(start: Episode | World, goal: Condition | None) -> Condition:
    if goal is not None:
        return goal
    if isinstance(start, Episode):
        return start.goal
    raise TypeError("shortest_plan(world, ...) needs a goal; pass goal=<Condition>, or pass an Episode instead")


# ----- episode checks and the command line -----------------------------------------------------------


@dataclass(frozen=True)
class EpisodeCheck:
    """The oracle's verdict on one episode: its shortest plan (None: none within max_steps) and problems.

    ``problems`` is empty for a good episode; otherwise each entry says what is wrong and how to fix it.
    """

    episode: Episode
    plan: list[Skill] | None
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_episode(episode: Episode, kitchen: Domain) -> EpisodeCheck:
    """Whether ``episode`` is a fair benchmark episode: its goal does not hold at the start, and some plan
    of at most ``max_steps`` skills (``done`` included) reaches it."""
    world = episode.world(kitchen)
    problems: list[str] = []
    if episode.goal_holds(world):
        problems.append("the goal holds already in the initial state: move an object or change the goal")
    plan = shortest_plan(world, episode.goal, max_depth=episode.max_steps)
    if plan is None:
        longer = shortest_plan(world, episode.goal, max_depth=episode.max_steps + 20)
        if longer is None:
            problems.append(
                f"no plan reaches the goal within {episode.max_steps + 20} skills: check the goal "
                "against the scene (labels present, places, a drawer for drawer goals)"
            )
        else:
            problems.append(
                f"the shortest plan has {len(longer)} skills (done included), more than max_steps "
                f"{episode.max_steps}: raise max_steps"
            )
    return EpisodeCheck(episode, plan, tuple(problems))


def _summary(checks: Iterable[EpisodeCheck], seconds: float) -> str:
    by_family: dict[str, list[EpisodeCheck]] = {}
    for check in checks:
        by_family.setdefault(check.episode.family, []).append(check)
    lines = [f"{'family':<22} {'episodes':>8} {'mean plan':>9}  plan lengths (done included)"]
    total = 0
    for family, group in by_family.items():
        lengths = [len(c.plan) for c in group if c.plan is not None]
        shown = " ".join(str(len(c.plan)) if c.plan is not None else "-" for c in group)
        average = f"{mean(lengths):.1f}" if lengths else "-"
        lines.append(f"{family:<22} {len(group):>8} {average:>9}  {shown}")
        total += len(group)
    lines.append(f"{'total':<22} {total:>8}  solved in {seconds:.2f} s")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``llm-planner oracle``."""
    parser.epilog = (
        "exit status 0: every episode is fair; 1: some are not (stderr says which and why); 2: the file does not load"
    )
    parser.add_argument("episodes", type=Path, help="episode file (docs/episodes.md)")
    parser.add_argument("--plans", action="store_true", help="also print each episode's oracle plan")
    parser.add_argument(
        "--domain", type=Path, metavar="DIR", help="domain folder of the episodes (default: the SayCan kitchen)"
    )


def run(args: argparse.Namespace) -> int:
    """Check an episode file with the oracle and print plan lengths per family.

    Exit status 0: every episode is fair; 1: some are not (stderr says which and why); 2: the file does
    not load."""
    try:
        kitchen = load_domain(args.domain) if args.domain else load_domain_files()
        episodes = load_episodes(args.episodes, kitchen)
    except (OSError, InputError) as error:
        print(f"cannot check {args.episodes}: {error}", file=sys.stderr)
        return 2
    began = time.perf_counter()
    checks = [check_episode(episode, kitchen) for episode in episodes]
    seconds = time.perf_counter() - began
    if args.plans:
        for check in checks:
            plan = ", ".join(s.text for s in check.plan) if check.plan else "(none)"
            print(f"{check.episode.id}: {plan}")
        print()
    print(_summary(checks, seconds))
    bad = [check for check in checks if not check.ok]
    for check in bad:
        for problem in check.problems:
            print(f"episode {check.episode.id}: {problem}", file=sys.stderr)
    return 1 if bad else 0

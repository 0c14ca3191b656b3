"""BabyAI pickup episodes rebuilt in minigrid, and their high-level plans run there by minigrid's BabyAI bot.

Rebuild. The SayCanPay splits were recorded in minigrid's BabyAI levels ``UnlockPickup`` (two rooms, a
box behind a locked door), ``BlockedUnlockPickup`` (the same with a ball blocking the door) and
``UnlockToUnlock`` (three rooms, two locked doors, a ball); ``[Seed]`` is the level's reset seed. An
episode's level follows from its text (three rooms; a blocking ball; otherwise two rooms), and
``rebuild`` resets it with the seed: the grid, positions included, is then the one the episode was
recorded in, which ``layout_differences`` checks against the episode text (each room's objects and the
agent, the locked doors and, where the oracle plan tells them, their colours, the blocking ball, the
mission).

Execution (``replay_plan``). For each high-level action minigrid's ``BabyAIBot`` gets one
``GoNextToSubgoal`` (face the object to pick up, the door to toggle, or the free cell its own drop
planner chooses) and may only turn and move forward to reach it; the primitive (pickup, toggle, drop)
is then minigrid's own step, and its effect is read back from the grid. An action fails when the bot
would have to pick up, drop or toggle something first (a locked door or a blocking object on the
way), when it cannot reach the target within ``max_moves``, or when minigrid's primitive changes
nothing (hands full, wrong key); ``done picking up`` succeeds when the held object is one the
mission's own description (``instrs.desc``) matches.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from llm_planner_ros.babyai_domain.episodes import Episode
from llm_planner_ros.babyai_domain.world import AGENT, COLOURS, DONE, BabyAIWorld, run_plan_text, world_for_episode

# pygame (imported by minigrid for rendering, unused here) prints a banner on import otherwise.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from minigrid.envs.babyai.core.roomgrid_level import RoomGridLevel
from minigrid.envs.babyai.unlock import BlockedUnlockPickup, UnlockPickup, UnlockToUnlock
from minigrid.utils.baby_ai_bot import BabyAIBot, GoNextToSubgoal

LEVELS: dict[str, type[RoomGridLevel]] = {
    "UnlockPickup": UnlockPickup,
    "BlockedUnlockPickup": BlockedUnlockPickup,
    "UnlockToUnlock": UnlockToUnlock,
}
KINDS = ("key", "ball", "box")


def level_for(world: BabyAIWorld) -> str:
    """The minigrid level an episode's initial world comes from (by its room count and blocker)."""
    if len(world.rooms) == 3:
        return "UnlockToUnlock"
    return "BlockedUnlockPickup" if world.blocker is not None else "UnlockPickup"


def rebuild(episode: Episode) -> RoomGridLevel:
    """The episode's level reset with its seed (check it with ``layout_differences``)."""
    env = LEVELS[level_for(BabyAIWorld.from_text(episode.goal, episode.initial_state))]()
    env.reset(seed=episode.seed)
    return env


@dataclass(frozen=True)
class Layout:
    """What the episode text states about a grid: each room's contents ("blue key", "agent") as a
    multiset, rooms numbered left to right from 1; the locked doors by the rooms they join, with their
    colour (None where the text does not tell it); the blocking object; the mission."""

    rooms: dict[int, Counter[str]]
    locked_doors: dict[tuple[int, int], str | None]
    blocker: str | None
    mission: str


def grid_layout(env: RoomGridLevel) -> Layout:
    """The layout of a minigrid level as the episode text would state it."""
    rooms: dict[int, Counter[str]] = {}
    columns = [room for row in env.room_grid for room in row]
    for number, room in enumerate(sorted(columns, key=lambda r: r.top), start=1):
        (left, top), (width, height) = room.top, room.size
        contents: Counter[str] = Counter()
        for x in range(left + 1, left + width - 1):
            for y in range(top + 1, top + height - 1):
                cell = env.grid.get(x, y)
                if cell is not None and cell.type in KINDS:
                    contents[f"{cell.color} {cell.type}"] += 1
                if (x, y) == tuple(env.agent_pos):
                    contents[AGENT] += 1
        rooms[number] = contents
    lefts = sorted(room.top[0] for room in columns)
    locked: dict[tuple[int, int], str | None] = {}
    for x, _y, cell in _cells(env):
        if cell.type == "door" and cell.is_locked:
            left_room = lefts.index(x)  # the door is in the wall the room right of it starts with
            locked[(left_room, left_room + 1)] = cell.color
    blocker = None
    if isinstance(env, BlockedUnlockPickup):
        blocker = next((f"{c.color} {c.type}" for x, y, c in _cells(env) if c.type == "ball"), None)
    return Layout(rooms, locked, blocker, env.mission)


def episode_layout(episode: Episode) -> Layout:
    """The layout the episode text states; door colours are those its oracle plan toggles."""
    world = world_for_episode(episode)
    rooms = {number: Counter(contents) for number, contents in world.rooms.items()}
    locked = {door.rooms: door.colour for door in world.doors if door.locked}
    blocker = world.blocker.text if world.blocker is not None else None
    return Layout(rooms, locked, blocker, episode.goal.rstrip("."))


def layout_differences(episode: Episode, env: RoomGridLevel) -> list[str]:
    """How the rebuilt grid differs from the episode text; empty when it is the same layout."""
    text, grid = episode_layout(episode), grid_layout(env)
    differences = []
    if text.mission != grid.mission:
        differences.append(f"mission {grid.mission!r}, text {text.mission!r}")
    for number in sorted(set(text.rooms) | set(grid.rooms)):
        if text.rooms.get(number) != grid.rooms.get(number):
            differences.append(
                f"Room {number}: grid {dict(grid.rooms.get(number, {}))}, text {dict(text.rooms.get(number, {}))}"
            )
    if set(text.locked_doors) != set(grid.locked_doors):
        differences.append(f"locked doors: grid {sorted(grid.locked_doors)}, text {sorted(text.locked_doors)}")
    for rooms, colour in text.locked_doors.items():
        if colour is not None and grid.locked_doors.get(rooms) not in (None, colour):
            differences.append(f"door {rooms}: grid {grid.locked_doors[rooms]}, plan toggles {colour}")
    if text.blocker != grid.blocker:
        differences.append(f"blocking object: grid {grid.blocker}, text {text.blocker}")
    return differences


@dataclass(frozen=True)
class StepOutcome:
    """One high-level action in minigrid: ``success``, what happened or why it failed, and the
    low-level moves (turns and steps forward) the bot made for it."""

    action: str
    success: bool
    message: str
    moves: int


@dataclass
class Replay:
    """A plan run in minigrid: ``success`` when it ends with ``done picking up`` holding the mission's
    object; ``steps`` up to and including the first failed action."""

    success: bool = False
    steps: list[StepOutcome] = field(default_factory=list)

    @property
    def failed_at(self) -> int | None:
        """Index of the first failed action; len(plan) when every action ran but the goal was missed."""
        if self.success:
            return None
        return next((i for i, s in enumerate(self.steps) if not s.success), len(self.steps))


def replay_plan(env: RoomGridLevel, plan: Sequence[str], max_moves: int = 200) -> Replay:
    """Run ``plan`` in ``env`` (changed in place) until an action fails or ``done picking up``."""
    replay = Replay()
    for action in plan:
        outcome = _run_action(env, action, max_moves)
        replay.steps.append(outcome)
        if not outcome.success:
            return replay
        if action == DONE:
            replay.success = True
            return replay
    return replay


def text_failed_at(episode: Episode, plan: Sequence[str]) -> int | None:
    """Index of the first action ``llm_planner_ros.babyai_domain.world`` rejects (len(plan) when every action ran but
    the goal was missed, the ``done`` index when it was chosen without the goal object); None on success."""
    success, outcomes = run_plan_text(world_for_episode(episode), plan)
    if success:
        return None
    if outcomes and not outcomes[-1].success:
        return len(outcomes) - 1
    return plan.index(DONE) if DONE in plan else len(plan)


def corrupted_plans(plan: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The single-step corruptions ``test_babyai_world`` checks the text world with, labelled: each
    step deleted, and each toggle's colour changed to the first other colour of ``COLOURS``."""
    variants = [(f"delete {i + 1}", (*plan[:i], *plan[i + 1 :])) for i in range(len(plan))]
    for i, action in enumerate(plan):
        if action.startswith("toggle "):
            other = next(c for c in COLOURS if c != action.split()[1])
            variants.append((f"toggle {i + 1} -> {other}", (*plan[:i], f"toggle {other} door", *plan[i + 1 :])))
    return variants


def _cells(env: RoomGridLevel) -> list[tuple[int, int, Any]]:
    return [
        (x, y, cell)
        for x in range(env.grid.width)
        for y in range(env.grid.height)
        if (cell := env.grid.get(x, y)) is not None
    ]


def _run_action(env: RoomGridLevel, action: str, max_moves: int) -> StepOutcome:
    words = action.split()
    if action == DONE:
        held = env.carrying
        if held is not None and any(held is obj for obj in env.instrs.desc.obj_set):
            return StepOutcome(action, True, f"holding the {held.color} {held.type}: mission done", 0)
        what = f"the {held.color} {held.type}" if held is not None else "nothing"
        return StepOutcome(action, False, f"holding {what}, not what {env.mission!r} asks for", 0)
    if action.startswith("pick up ") and len(words) == 4:
        colour, kind = words[2], words[3]
        targets = [(x, y) for x, y, c in _cells(env) if c.type == kind and c.color == colour]
        if not targets:
            return StepOutcome(action, False, f"no {colour} {kind} lies in the grid", 0)
        moves, problem = _go_next_to(env, targets[0], max_moves)
        if problem:
            return StepOutcome(action, False, problem, moves)
        before = env.carrying
        env.step(env.actions.pickup)
        if env.carrying is None or env.carrying is before:
            held = f"holding the {before.color} {before.type}" if before is not None else "nothing picked"
            return StepOutcome(action, False, f"minigrid's pickup did nothing ({held})", moves)
        return StepOutcome(action, True, f"picked {colour} {kind}", moves)
    if action.startswith("toggle ") and len(words) == 3:
        colour = words[1]
        doors = [(x, y, c) for x, y, c in _cells(env) if c.type == "door" and c.color == colour]
        if not doors:
            return StepOutcome(action, False, f"no {colour} door in the grid", 0)
        x, y, door = doors[0]
        moves, problem = _go_next_to(env, (x, y), max_moves)
        if problem:
            return StepOutcome(action, False, problem, moves)
        env.step(env.actions.toggle)
        if door.is_locked or not door.is_open:
            held = f"the {env.carrying.color} {env.carrying.type}" if env.carrying is not None else "nothing"
            return StepOutcome(action, False, f"the {colour} door stayed shut (holding {held})", moves)
        return StepOutcome(action, True, f"{colour} door unlocked", moves)
    if action.startswith("drop ") and len(words) == 4:
        held = env.carrying
        if held is None or held.type != words[1]:
            return StepOutcome(action, False, f"not holding a {words[1]}", 0)
        # The bot's own choice of a free cell that blocks no passage (what "in void" means here).
        spot = _bot(env)._find_drop_pos()
        if spot is None:
            return StepOutcome(action, False, "the bot found no free cell to drop on", 0)
        moves, problem = _go_next_to(env, tuple(spot), max_moves)
        if problem:
            return StepOutcome(action, False, problem, moves)
        env.step(env.actions.drop)
        if env.carrying is not None:
            return StepOutcome(action, False, "minigrid's drop did nothing", moves)
        return StepOutcome(action, True, f"dropped {held.color} {held.type}", moves)
    return StepOutcome(action, False, f"unknown action {action!r}", 0)


def _bot(env: RoomGridLevel) -> BabyAIBot:
    """A bot with an empty plan that sees the whole grid (the episode text is a full observation)."""
    bot = BabyAIBot(env)
    bot.stack.clear()
    bot.vis_mask[:] = True
    return bot


def _go_next_to(env: RoomGridLevel, target: tuple[int, int], max_moves: int) -> tuple[int, str | None]:
    """Let the bot bring the agent to face ``target`` by turning and moving only: (moves, None) when
    it arrived, else (moves, why not)."""
    target = (int(target[0]), int(target[1]))
    bot = _bot(env)
    bot.stack.append(GoNextToSubgoal(bot, target))
    moves = 0
    navigation = (env.actions.left, env.actions.right, env.actions.forward)
    while moves < max_moves:
        try:
            suggested = bot.replan()
        except AssertionError as error:  # the bot asserts when it finds no way and nothing to explore
            return moves, f"the bot finds no way to {target} ({str(error) or 'an assertion of its search'})"
        if suggested == env.actions.done:
            return moves, None
        if suggested not in navigation:
            plan = ", then ".join(repr(s) for s in reversed(bot.stack[-3:]))
            return moves, f"the bot would first {env.actions(suggested).name} on the way to {target} ({plan}, ...)"
        env.step(suggested)
        moves += 1
    return moves, f"the bot did not reach {target} in {max_moves} moves"

"""The BabyAI pickup world as text: its state, and the high-level actions with the oracle plans' rules.

Rules (the ones every oracle plan of the SayCanPay splits follows, and the only ones checked):

- the agent holds at most one object; ``pick up`` needs empty hands, ``drop <kind> in void`` needs an
  object of that kind in hand and leaves it in the agent's room (it can be picked up again);
- an object can be picked up only in a room the agent reaches: its own, or one joined to it through
  unlocked doors (the agent then stands in that object's room);
- ``toggle <colour> door`` unlocks a locked door of that colour next to a reachable room, only with a
  key of the same colour in hand and only when no object blocks the door (picking the blocking object
  up moves it away);
- ``done picking up`` ends the episode; it succeeds when the agent holds an object the goal names.

The SayCanPay splits never name a locked door's colour ("The door connecting Room 1 and Room 2 is
locked"); ``world_for_episode`` reads it off the oracle plan. The held-out generalisation split does
("The yellow door connecting ..."): a named colour is known from the start and stays in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from llm_planner_ros.babyai_domain.episodes import Episode

COLOURS = ("red", "green", "blue", "purple", "yellow", "grey")
KINDS = ("key", "ball", "box")
DONE = "done picking up"
AGENT = "agent"

_PICK = re.compile(rf"^pick up ({'|'.join(COLOURS)}) ({'|'.join(KINDS)})$")
_TOGGLE = re.compile(rf"^toggle ({'|'.join(COLOURS)}) door$")
_DROP = re.compile(rf"^drop ({'|'.join(KINDS)}) in void$")
_GOAL = re.compile(rf"^pick up the (?:({'|'.join(COLOURS)}) )?({'|'.join(KINDS)})\.?$")
_ROOM = re.compile(r"^Room (\d+) has (.+)$")
_DOOR = re.compile(rf"^The (?:({'|'.join(COLOURS)}) )?door connecting Room (\d+) and Room (\d+) is locked$")
_BLOCK = re.compile(rf"^The ({'|'.join(COLOURS)}) ({'|'.join(KINDS)}) is blocking the door$")


class WorldTextError(ValueError):
    """An initial state, goal or plan text this module cannot read; the message quotes the part."""


@dataclass(frozen=True)
class Thing:
    """An object of the grid: a coloured key, ball or box."""

    colour: str
    kind: str

    @property
    def text(self) -> str:
        return f"{self.colour} {self.kind}"


@dataclass
class Door:
    """A door between two rooms; ``colour`` is None while unknown (only a locked door's key needs it);
    ``named``: the episode's text states the colour (so a description repeats it; a colour learned from
    the oracle plan is never shown to a planner)."""

    rooms: tuple[int, int]
    locked: bool = True
    colour: str | None = None
    named: bool = False

    @property
    def text(self) -> str:
        colour = f"{self.colour} " if self.named and self.colour else ""
        return f"The {colour}door connecting Room {self.rooms[0]} and Room {self.rooms[1]} is locked."


@dataclass(frozen=True)
class Goal:
    """A goal "pick up the [colour] kind": satisfied by holding such an object (any colour when None)."""

    kind: str
    colour: str | None = None

    def satisfied_by(self, thing: Thing | None) -> bool:
        return thing is not None and thing.kind == self.kind and self.colour in (None, thing.colour)


@dataclass(frozen=True)
class ActionOutcome:
    """What an action did: ``success`` and the observation ("picked blue key"), or why it was rejected."""

    success: bool
    message: str


def parse_goal(text: str) -> Goal:
    match = _GOAL.match(text.strip())
    if match is None:
        raise WorldTextError(f"goal {text!r} is not 'pick up the [colour] key|ball|box.'")
    return Goal(match[2], match[1])


@dataclass
class BabyAIWorld:
    """The state of one episode: objects per room (with the agent's place in the room's list, so the
    initial text is reproduced), the object held, the doors, the object blocking a door, and whether
    ``done picking up`` was chosen. ``apply`` changes it; ``copy`` gives an independent one."""

    goal: Goal
    rooms: dict[int, list[str]]
    doors: list[Door]
    holding: Thing | None = None
    blocker: Thing | None = None
    blocked_door: int | None = None
    finished: bool = False
    succeeded: bool = False
    history: list[str] = field(default_factory=list)

    @classmethod
    def from_text(cls, goal: str, initial_state: str) -> BabyAIWorld:
        """The world an episode starts in (colours the text does not name: ``world_for_episode`` fills them)."""
        rooms: dict[int, list[str]] = {}
        doors: list[Door] = []
        blocker: Thing | None = None
        for sentence in (s.strip() for s in initial_state.split(".")):
            if not sentence:
                continue
            if match := _ROOM.match(sentence):
                contents = [item.strip() for item in match[2].split(",")]
                for item in contents:
                    if item != AGENT and _thing(item) is None:
                        raise WorldTextError(f"unknown object {item!r} in {sentence!r}")
                rooms[int(match[1])] = contents
            elif match := _DOOR.match(sentence):
                doors.append(Door((int(match[2]), int(match[3])), colour=match[1], named=match[1] is not None))
            elif match := _BLOCK.match(sentence):
                blocker = Thing(match[1], match[2])
            else:
                raise WorldTextError(f"cannot read {sentence!r} of the initial state")
        if sum(AGENT in contents for contents in rooms.values()) != 1:
            raise WorldTextError(f"the initial state must put the agent in exactly one room: {initial_state!r}")
        world = cls(parse_goal(goal), rooms, doors)
        if blocker is not None:
            world.blocker = blocker
            world.blocked_door = world._door_blocked_by(blocker)
        return world

    # ----- queries ------------------------------------------------------------------------------------

    @property
    def agent_room(self) -> int:
        return next(room for room, contents in self.rooms.items() if AGENT in contents)

    def reachable_rooms(self) -> set[int]:
        """Rooms joined to the agent's through unlocked doors (its own included)."""
        reached = {self.agent_room}
        grew = True
        while grew:
            grew = False
            for door in self.doors:
                a, b = door.rooms
                if not door.locked and (a in reached) != (b in reached):
                    reached |= {a, b}
                    grew = True
        return reached

    @property
    def goal_reached(self) -> bool:
        """The agent holds an object the goal names (what ``done picking up`` checks)."""
        return self.goal.satisfied_by(self.holding)

    def room_of(self, thing: Thing) -> int | None:
        return next((room for room, contents in self.rooms.items() if thing.text in contents), None)

    def things(self) -> list[Thing]:
        """Every object lying in a room, room by room (the held one excluded)."""
        return [t for contents in self.rooms.values() for item in contents if (t := _thing(item)) is not None]

    def describe(self) -> str:
        """The state in the episodes' initial-state wording (the held object is not in any room)."""
        sentences = [f"Room {room} has {', '.join(contents)}." for room, contents in sorted(self.rooms.items())]
        sentences += [d.text for d in self.doors if d.locked]
        if self.blocker is not None:
            sentences.append(f"The {self.blocker.text} is blocking the door.")
        return " ".join(sentences)

    def copy(self) -> BabyAIWorld:
        return BabyAIWorld(
            self.goal,
            {room: list(contents) for room, contents in self.rooms.items()},
            [Door(d.rooms, d.locked, d.colour, d.named) for d in self.doors],
            self.holding,
            self.blocker,
            self.blocked_door,
            self.finished,
            self.succeeded,
            list(self.history),
        )

    # ----- actions ------------------------------------------------------------------------------------

    def check(self, action: str) -> str | None:
        """None when ``action`` can run now, else why not."""
        if self.finished:
            return "the episode is over (done picking up was chosen)"
        if action == DONE:
            return None
        if match := _PICK.match(action):
            thing = Thing(match[1], match[2])
            if self.holding is not None:
                return f"hands full: holding the {self.holding.text}"
            room = self.room_of(thing)
            if room is None:
                return f"there is no {thing.text} lying in any room"
            if room not in self.reachable_rooms():
                return f"the {thing.text} is in Room {room}, behind a locked door"
            return None
        if match := _TOGGLE.match(action):
            colour = match[1]
            if self.holding is None or self.holding != Thing(colour, "key"):
                return f"toggling the {colour} door needs the {colour} key in hand"
            door = self._door_to_toggle(colour)
            if door is None:
                return f"no locked {colour} door next to a reachable room"
            if self.doors.index(door) == self.blocked_door:
                return f"the {self.blocker.text if self.blocker else 'object'} is blocking the door"
            return None
        if match := _DROP.match(action):
            if self.holding is None or self.holding.kind != match[1]:
                return f"not holding a {match[1]}"
            return None
        return f"unknown action {action!r}"

    def apply(self, action: str) -> ActionOutcome:
        """Run ``action``: the observation on success; on rejection the reason, and the world unchanged."""
        reason = self.check(action)
        if reason is not None:
            return ActionOutcome(False, reason)
        self.history.append(action)
        if action == DONE:
            self.finished = True
            self.succeeded = self.goal_reached
            return ActionOutcome(True, "goal reached" if self.succeeded else "done without the goal object")
        if match := _PICK.match(action):
            thing = Thing(match[1], match[2])
            room = self.room_of(thing)
            assert room is not None
            self.rooms[room].remove(thing.text)
            self._move_agent(room)
            self.holding = thing
            if thing == self.blocker:
                self.blocker, self.blocked_door = None, None
            return ActionOutcome(True, f"picked {thing.text}")
        if match := _TOGGLE.match(action):
            door = self._door_to_toggle(match[1])
            assert door is not None
            door.locked = False
            return ActionOutcome(True, f"{match[1]} door unlocked")
        assert self.holding is not None
        dropped, self.holding = self.holding, None
        self.rooms[self.agent_room].append(dropped.text)
        return ActionOutcome(True, f"dropped {dropped.text}")

    def _door_to_toggle(self, colour: str) -> Door | None:
        reachable = self.reachable_rooms()
        for door in self.doors:
            if door.locked and door.colour == colour and (door.rooms[0] in reachable or door.rooms[1] in reachable):
                return door
        return None

    def _move_agent(self, room: int) -> None:
        self.rooms[self.agent_room].remove(AGENT)
        self.rooms[room].append(AGENT)

    def _door_blocked_by(self, blocker: Thing) -> int | None:
        room = self.room_of(blocker)
        for index, door in enumerate(self.doors):
            if door.locked and room in door.rooms:
                return index
        return None


def admissible_actions(world: BabyAIWorld) -> list[str]:
    """The action vocabulary of an episode, feasible now or not: pick up each object, toggle the door
    of each key's colour, drop each kind of object present, and ``done picking up``."""
    things = world.things() + ([world.holding] if world.holding else [])
    actions = [f"pick up {t.text}" for t in things]
    actions += [f"toggle {t.colour} door" for t in things if t.kind == "key"]
    actions += [f"drop {kind} in void" for kind in KINDS if any(t.kind == kind for t in things)]
    return [*dict.fromkeys(actions), DONE]


def judged_actions(world: BabyAIWorld) -> tuple[list[str], list[str]]:
    """The episode's actions the rules surely allow now and those they surely reject (Can's labels).

    A toggle of the key in hand counts as neither while a reachable locked door's colour is unknown
    (``world_for_episode`` learns only the colours the oracle plan opens): the real door may match.
    """
    reachable = world.reachable_rooms()
    unknown_door = any(d.locked and d.colour is None and bool(set(d.rooms) & reachable) for d in world.doors)
    allowed: list[str] = []
    rejected: list[str] = []
    for action in admissible_actions(world):
        reason = world.check(action)
        if reason is None:
            allowed.append(action)
        elif not (unknown_door and _TOGGLE.match(action) and world.holding == Thing(action.split()[1], "key")):
            rejected.append(action)
    return allowed, rejected


def judged_along_plan(episode: Episode) -> list[tuple[list[str], list[str]]]:
    """``judged_actions`` in the state before each oracle step (WorldTextError as ``world_for_episode``)."""
    world = world_for_episode(episode)
    judged = []
    for action in episode.plan:
        judged.append(judged_actions(world))
        world.apply(action)
    return judged


def world_for_episode(episode: Episode) -> BabyAIWorld:
    """The episode's initial world with each locked door's colour read off the oracle plan.

    A ``toggle <colour> door`` of the plan unlocks a locked door next to the reachable rooms; when
    several are, it is the one that makes the object the plan picks up next reachable.
    WorldTextError when the plan leaves a door's colour undecided or does not run.
    """
    world = BabyAIWorld.from_text(episode.goal, episode.initial_state)
    probe = world.copy()
    for index, action in enumerate(episode.plan):
        match = _TOGGLE.match(action)
        if match and probe.holding == Thing(match[1], "key") and probe._door_to_toggle(match[1]) is None:
            door = _door_opened_by(probe, episode.plan[index + 1 :])
            probe.doors[door].colour = match[1]
            world.doors[door].colour = match[1]
        outcome = probe.apply(action)
        if not outcome.success:
            raise WorldTextError(f"episode {episode.id}: oracle step {index + 1} {action!r} fails: {outcome.message}")
    return world


def _door_opened_by(world: BabyAIWorld, rest: Sequence[str]) -> int:
    reachable = world.reachable_rooms()
    candidates = [
        index
        for index, door in enumerate(world.doors)
        if door.locked and door.colour is None and (door.rooms[0] in reachable or door.rooms[1] in reachable)
    ]
    if len(candidates) == 1:
        return candidates[0]
    target = next((room for a in rest if (m := _PICK.match(a)) and (room := world.room_of(Thing(m[1], m[2])))), None)
    for index in candidates:
        trial = world.copy()
        trial.doors[index].locked = False
        if target is not None and target in trial.reachable_rooms() and target not in reachable:
            return index
    raise WorldTextError(f"cannot tell which of the doors {candidates} the plan's toggle unlocks")


def _thing(text: str) -> Thing | None:
    parts = text.split()
    if len(parts) == 2 and parts[0] in COLOURS and parts[1] in KINDS:
        return Thing(parts[0], parts[1])
    return None


def run_plan_text(world: BabyAIWorld, plan: Sequence[str]) -> tuple[bool, list[ActionOutcome]]:
    """Apply ``plan`` to a copy of ``world`` until an action is rejected; True when it ends with the goal
    reached by ``done picking up``."""
    trial = world.copy()
    outcomes: list[ActionOutcome] = []
    for action in plan:
        outcomes.append(trial.apply(action))
        if not outcomes[-1].success:
            return False, outcomes
    return trial.succeeded, outcomes

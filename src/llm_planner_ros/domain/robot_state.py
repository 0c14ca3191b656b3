"""The robot-state record published next to /scene/objects, as JSON in a std_msgs/String.

Schema (every key always present)::

    {"stamp": {"sec": 12, "nanosec": 5000},   # equal to the header.stamp of the matching /scene/objects
     "revision": 3,                          # counts world changes since start; a load counts as one
     "episode": "nl-verb-03",                 # loaded episode id ("" for the default scene)
     "at": "far counter", "position": {"x": 4.5, "y": 0.5},
     "holding": "coke_1", "holding_label": "coke",   # null, null when the gripper is empty
     "drawer_open": false,                    # null when the scene has no drawer
     "visited": ["table", "far counter"],
     "facts": ["door_open"],                  # the declared facts that hold (docs/domains.md); [] for none
     "busy": "pick up the coke"}              # skill being executed, or null

A record without ``facts`` (a robot's publisher written before facts existed) reads as no fact holding.

A robot (not the simulator) can publish the same record from its own localization and gripper state
so the affordance servers read both the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from llm_planner_ros.domain.config import Position
from llm_planner_ros.domain.world import World


@dataclass(frozen=True)
class RobotState:
    """The robot's part of the world state (objects travel separately, in /scene/objects)."""

    stamp: tuple[int, int]
    revision: int
    episode: str
    at: str
    position: Position
    holding: str | None
    holding_label: str | None
    drawer_open: bool | None
    visited: tuple[str, ...]
    busy: str | None = None
    facts: tuple[str, ...] = ()

    @classmethod
    def of_world(
        cls, world: World, stamp: tuple[int, int], revision: int, episode: str, busy: str | None
    ) -> RobotState:
        held = world.holding
        return cls(
            stamp=stamp,
            revision=revision,
            episode=episode,
            at=world.robot_at,
            position=world.robot_position,
            holding=held.id if held else None,
            holding_label=held.label if held else None,
            drawer_open=world.drawer_open,
            visited=world.visited,
            busy=busy,
            facts=tuple(sorted(world.facts)),
        )

    def to_json(self) -> str:
        return json.dumps(
            {
                "stamp": {"sec": self.stamp[0], "nanosec": self.stamp[1]},
                "revision": self.revision,
                "episode": self.episode,
                "at": self.at,
                "position": {"x": self.position.x, "y": self.position.y},
                "holding": self.holding,
                "holding_label": self.holding_label,
                "drawer_open": self.drawer_open,
                "visited": list(self.visited),
                "facts": list(self.facts),
                "busy": self.busy,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> RobotState:
        """Parse a record; ValueError names the missing or malformed key."""
        try:
            data: dict[str, Any] = json.loads(text)
            return cls(
                stamp=(int(data["stamp"]["sec"]), int(data["stamp"]["nanosec"])),
                revision=int(data["revision"]),
                episode=str(data["episode"]),
                at=str(data["at"]),
                position=Position(float(data["position"]["x"]), float(data["position"]["y"])),
                holding=_optional_str(data["holding"]),
                holding_label=_optional_str(data["holding_label"]),
                drawer_open=None if data["drawer_open"] is None else bool(data["drawer_open"]),
                visited=tuple(str(place) for place in data["visited"]),
                busy=_optional_str(data["busy"]),
                facts=tuple(str(atom) for atom in data.get("facts", [])),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"malformed robot state record ({type(error).__name__}: {error}): {text[:200]}") from error


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)

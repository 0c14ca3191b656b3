"""Constants of SayCan's calibrated affordance functions (SayCan, arXiv 2204.01691, appendix D.2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Calibration:
    """Affordance constants; defaults are the paper's, overridable from config/affordance_server.yaml.

    pick: the value v of a pick value function is normalized as clamp((v - v_min) / (v_max - v_min)).
    The simulator has no learned value function, so v is derived from the state: ``pick_v_reachable``
    when an instance of the label is within reach and the gripper is empty (the paper's value
    functions rise close to v_max there), ``pick_v_min`` otherwise (their consistent minimum).
    go-to (and find, which navigates to where the object is): clamp((d_max - d) / (d_max - d_min)).
    place: ``place_holding`` when the gripper holds that label, else 0.
    terminate: a small constant so planning ends when nothing else is feasible.
    drawer: ``drawer_possible`` when the robot is at the drawer and the skill's preconditions hold
    (appendix E.2: "if the robot is next to the drawer, all drawer tasks are possible").
    a family a skills file declares beyond the kitchen's (wipe, press, ...): ``rule_possible`` when the
    skill's preconditions hold now, else 0 (the drawer's rule, read from the domain's files).
    """

    pick_v_min: float = 0.2
    pick_v_max: float = 0.5
    pick_v_reachable: float = 0.47
    goto_d_min: float = 0.0
    goto_d_max: float = 100.0
    place_holding: float = 1.0
    terminate: float = 0.1
    drawer_possible: float = 1.0
    rule_possible: float = 1.0

    def __post_init__(self) -> None:
        if self.pick_v_max <= self.pick_v_min:
            raise ValueError(f"pick_v_max ({self.pick_v_max}) must exceed pick_v_min ({self.pick_v_min})")
        if self.goto_d_max <= self.goto_d_min:
            raise ValueError(f"goto_d_max ({self.goto_d_max}) must exceed goto_d_min ({self.goto_d_min})")

    @classmethod
    def from_mapping(cls, values: Mapping[str, float]) -> Calibration:
        """From flat names (``pick_v_min``...); unknown names raise, listing the known ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown calibration constants {unknown}; known: {sorted(known)}")
        return cls(**{name: float(value) for name, value in values.items()})

    def pick(self, value: float) -> float:
        return clamp((value - self.pick_v_min) / (self.pick_v_max - self.pick_v_min))

    def goto(self, distance_m: float) -> float:
        return clamp((self.goto_d_max - distance_m) / (self.goto_d_max - self.goto_d_min))


def clamp(value: float, low: float = 0.0, high: float = 1.0) -> float:
    return max(low, min(high, value))

"""SayCan's analytic affordance model: p(success | state, skill) for each skill family.

Each family's function reads a ``World`` (the simulator's state, or one assembled from perception and
the robot state) and follows SayCan, arXiv 2204.01691, appendix D.2. A skill whose effect already holds (going
where the robot is, finding an object the robot stands at, picking what it holds) gets 0, the paper's
cap that keeps the planner from repeating completed skills. A family the domain's skills file declares
beyond the kitchen's six is scored from its skills' preconditions: ``rule_possible`` when they hold now,
0 otherwise. A family the skills file gives ``affordance: {constant: p}`` scores p while its skills'
preconditions hold; one it gives ``{server: ...}`` is the user's server's to score over ROS, and is scored
here (plan-only goals, in-process benchmarks) as an analytic family would be.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llm_planner_ros.affordance.calibration import Calibration
from llm_planner_ros.domain.skill import DRAWER, FIND, GOTO, PICK, PLACE, TERMINATE, Skill
from llm_planner_ros.domain.vocabulary import CONSTANT
from llm_planner_ros.domain.world import World

_NEEDS_ARGUMENT = (FIND, PICK, PLACE, GOTO)


class AffordanceError(ValueError):
    """A skill the model cannot evaluate at all (unknown family, missing argument): a caller's bug,
    as opposed to a skill that merely cannot succeed now (that one gets affordance 0)."""


class AffordanceModel:
    """Calibrated affordance functions per family; ``evaluate`` scores a batch against one state."""

    def __init__(self, calibration: Calibration | None = None) -> None:
        self.calibration = calibration or Calibration()
        self._functions: dict[str, Callable[[Skill, World], float]] = {
            FIND: self._find,
            PICK: self._pick,
            PLACE: self._place,
            GOTO: self._goto,
            TERMINATE: lambda _skill, _world: self.calibration.terminate,
            DRAWER: self._drawer,
        }

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(self._functions)

    def affordance(self, skill: Skill, world: World) -> float:
        """p(success) of one skill in [0, 1]; raises AffordanceError for a malformed skill."""
        function = self._functions.get(skill.family)
        if function is None:
            declared = world.kitchen.library.declared_families
            if skill.family not in declared:
                raise AffordanceError(
                    f"skill {skill.text!r} has unknown family {skill.family!r}; the skills file "
                    f"({world.kitchen.library.source}) declares: {', '.join(declared)}"
                )
            function = self._rule
        if skill.family in _NEEDS_ARGUMENT and len(skill.arguments) != 1:
            raise AffordanceError(
                f"skill {skill.text!r} (family {skill.family}) needs one argument, got {list(skill.arguments)}"
            )
        if _written_precondition_unmet(skill, world):
            return 0.0
        source = world.kitchen.library.affordance_sources.get(skill.family)
        if source is not None and source.kind == CONSTANT:
            return source.value if world.can_apply(skill) else 0.0
        return function(skill, world)

    def evaluate(self, skills: Sequence[Skill], world: World) -> list[float]:
        return [self.affordance(skill, world) for skill in skills]

    def _pick(self, skill: Skill, world: World) -> float:
        held = world.holding
        reachable = held is None and bool(world.reachable(str(skill.argument)))
        value = self.calibration.pick_v_reachable if reachable else self.calibration.pick_v_min
        return self.calibration.pick(value)

    def _place(self, skill: Skill, world: World) -> float:
        held = world.holding
        return self.calibration.place_holding if held is not None and held.label == skill.argument else 0.0

    def _goto(self, skill: Skill, world: World) -> float:
        return self._navigate_to(skill.argument, world)

    def _find(self, skill: Skill, world: World) -> float:
        # Find is go-to with known object locations (appendix D.2): the nearest place holding the label.
        return self._navigate_to(world.nearest_place_of(str(skill.argument)), world)

    def _navigate_to(self, place: str | None, world: World) -> float:
        if place is None or place not in world.places() or place == world.robot_at:
            return 0.0
        distance = world.robot_position.distance_to(world.kitchen.config.position(place))
        return self.calibration.goto(distance)

    def _rule(self, skill: Skill, world: World) -> float:
        return self.calibration.rule_possible if world.can_apply(skill) else 0.0

    def _drawer(self, skill: Skill, world: World) -> float:
        # The preconditions are the paper's heuristic (robot next to the drawer) plus the drawer state
        # that makes the skill meaningful (opening a closed drawer, putting in what the gripper holds).
        return self.calibration.drawer_possible if world.can_apply(skill) else 0.0


def _written_precondition_unmet(skill: Skill, world: World) -> bool:
    """Whether a precondition the skills file writes as a condition (``{fact: door_open}``) is unmet now: a
    kitchen family's function knows only the kitchen's own rules, so a door the domain closes must still
    stop a go-to."""
    rule = world.kitchen.library.find(skill.text)
    return rule is not None and any(
        not isinstance(precondition, str) and precondition.unmet(world) is not None
        for precondition in rule.preconditions
    )

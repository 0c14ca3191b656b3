"""The ``action`` backend: each skill as a goal of the ROS 2 action the skills file binds its executor to.

A skills file's ``executors: {wiper: {action: {type, name, goal, success, timeout_s}}}``
(llm_planner_ros.domain.vocabulary.ActionBinding) names the action type, the action, the goal
template and how the result tells success. The goal is filled from the skill (``{skill}``, ``{family}``,
``{object}``, ``{location}``) and, for a skill at a place, that place's base pose in the executor's place
map (``{place.x}``, ``{place.y}``, ``{place.yaw}``; map_file). Every skill of the executor is filled once at
start-up, so a template that does not fit the goal message stops the node with the field to fix.

A skill SUCCEEDS when the goal succeeded and the success rule holds; it FAILS, with the result's message
field where the binding names one, otherwise; a cancel of the skill cancels the goal. With
``apply_in_sim`` the skill is then applied in sim_world as well (the sim backend), so that the
symbolic simulation tracks what a device tried inside it did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from llm_planner_ros.domain.config import DomainConfig
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.vocabulary import ActionBinding
from llm_planner_ros.robot_motion.place_map import PlaceMap
from skill_executors.action_call import ActionCall, CallLimits
from skill_executors.backend import ProgressCallback, SkillBackend, SkillOutcome, Status
from skill_executors.goal_template import TemplateError, fill_goal, import_action


class ActionBackend(SkillBackend):
    """Runs ``skills`` (the executor's) as goals of ``binding``'s action; ``then`` (the sim backend, or
    None) applies each succeeded skill in the simulator too. TemplateError at construction when the
    type cannot be imported or a skill's goal cannot be filled."""

    def __init__(
        self,
        node: Node,
        executor: str,
        binding: ActionBinding,
        skills: Sequence[Skill],
        config: DomainConfig,
        places: PlaceMap | None,
        limits: CallLimits,
        group: CallbackGroup,
        then: SkillBackend | None = None,
    ) -> None:
        action = import_action(binding.type)
        self._binding = binding
        self._goal_type = action.Goal
        self._config = config
        self._places = places
        self._then = then
        fix = f"start the {binding.type} server, or correct executors.{executor}.action.name in the skills file"
        self._call = ActionCall(node, action, binding.name, group, limits, fix)
        for path in filter(None, (binding.success.field, binding.success.message)):
            if _field(action.Result(), path) is None:
                raise TemplateError(
                    f"{binding.type}'s result has no field {path!r} (its fields: "
                    f"{', '.join(action.Result.get_fields_and_field_types())}): correct executors.{executor}."
                    "action.success in the skills file"
                )
        for skill in skills:
            self.goal(skill)

    def goal(self, skill: Skill) -> Any:
        """The goal message of ``skill``; TemplateError names what does not fit."""
        try:
            return fill_goal(self._goal_type, self._binding.goal, self._values(skill))
        except TemplateError as error:
            raise TemplateError(f"skill {skill.text!r}: {error}") from error

    def _values(self, skill: Skill) -> dict[str, str]:
        values = {"skill": skill.text, "family": skill.family}
        argument = skill.argument
        if argument is None:
            return values
        if argument in self._config.locations:
            values["location"] = argument
            place = self._places.place(argument) if self._places is not None else None
            if place is not None:
                values.update(
                    {"place.x": repr(place.base.x), "place.y": repr(place.base.y), "place.yaw": repr(place.heading)}
                )
        else:
            values["object"] = argument
        return values

    def execute(self, skill: Skill, report: ProgressCallback, should_cancel: Callable[[], bool]) -> SkillOutcome:
        try:
            goal = self.goal(skill)
        except TemplateError as error:
            return SkillOutcome(Status.FAILED, str(error))
        phase = f"{self._binding.type.rsplit('/', 1)[-1]} goal on {self._call.name}"
        report(0.0, phase)
        outcome = self._call.run(goal, should_cancel, lambda _feedback: report(0.5, phase))
        if outcome.result is None:
            return SkillOutcome(Status.FAILED, f"{skill.text!r} failed: {outcome.message}")
        told = self._result_message(outcome.result)
        if outcome.status is Status.CANCELED:
            return SkillOutcome(Status.CANCELED, f"{skill.text!r} canceled{told}")
        if outcome.status is not Status.SUCCEEDED:
            return SkillOutcome(Status.FAILED, f"{self._call.name} aborted {skill.text!r}{told}")
        unmet = self._unmet(outcome.result)
        if unmet is not None:
            return SkillOutcome(Status.FAILED, f"{skill.text!r} failed: {unmet}{told}")
        report(1.0, phase)
        if self._then is not None:
            return self._then.execute(skill, report, should_cancel)
        return SkillOutcome(Status.SUCCEEDED, f"{skill.text!r} done by {self._call.name}{told}")

    def _unmet(self, result: Any) -> str | None:
        """Why the result does not meet the success rule, or None."""
        rule = self._binding.success
        if not rule.field:
            return None
        value = _field(result, rule.field)
        if rule.equals is None:
            return None if value else f"the result's {rule.field} is {value!r}"
        return None if value == rule.equals else f"the result's {rule.field} is {value!r}, not {rule.equals!r}"

    def _result_message(self, result: Any) -> str:
        if not self._binding.success.message:
            return ""
        text = str(_field(result, self._binding.success.message))
        return f" ({text})" if text else ""


def _field(message: Any, path: str) -> Any:
    """A dotted field of a result; a missing one reads as None (the result type is the user's)."""
    value = message
    for name in path.split("."):
        value = getattr(value, name, None)
    return value

"""The planning environment of a real ROS graph: affordance servers, executors and the perceived state.

Affordances come from one ``EvaluateAffordance`` server per skill family (``/affordance/<family>``),
all families asked at once; skills run on ``/executors/<executor>/execute_skill``; the state is
whatever the ``StateProvider`` assembles from ``/scene/objects`` and the robot-state topic. Every
call has a timeout, and a server that is missing or fails ends the plan with a reason
(``PlanAborted``), never a hang.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from action_msgs.msg import GoalStatus
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from affordance_servers.state_provider import StateProvider
from kitchen_sim.messages import skill_to_msg
from kitchen_sim.skill import Skill
from kitchen_sim.world import World
from llm_planner_interfaces.action import EvaluateAffordance, ExecuteSkill

from llm_planner_ros.planning.environment import SkillOutcome
from llm_planner_ros.planning.plan_loop import EndReason, PlanAborted
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.futures import WaitTimeout, wait_for


class RosEnvironment:
    """A ``PlanningEnvironment`` whose skills run on the robot (or the simulator) through ROS.

    ``canceled`` is polled while a skill runs: when it returns a reason, the executor goal is
    canceled and ``execute`` returns a failed outcome carrying that reason.
    """

    def __init__(
        self,
        node: Node,
        state: StateProvider,
        callback_group: CallbackGroup,
        canceled: Callable[[], str | None],
        affordance_timeout_s: float,
        executor_timeout_s: float,
        server_wait_s: float,
    ) -> None:
        self._node = node
        self._state = state
        self._group = callback_group
        self._canceled = canceled
        self._affordance_timeout_s = affordance_timeout_s
        self._executor_timeout_s = executor_timeout_s
        self._server_wait_s = server_wait_s
        self._clients: dict[str, RaceFreeActionClient] = {}

    # ----- state ---------------------------------------------------------------------------------------
    def snapshot(self) -> World:
        world = self._state.wait(self._server_wait_s)
        if world is None:
            raise PlanAborted(EndReason.ERROR, f"no world state after {self._server_wait_s:.0f} s from {self._state.describe()}")
        return world.copy()

    def admissible_skills(self) -> Sequence[Skill]:
        return self.snapshot().admissible_skills()

    def observed_objects(self) -> list[str]:
        return sorted({obj.label for obj in self.snapshot().objects})

    def describe_state(self) -> str:
        return self.snapshot().summary()

    # ----- affordances -----------------------------------------------------------------------------------
    def affordances(self, skills: Sequence[Skill]) -> list[float]:
        by_family: dict[str, list[int]] = {}
        for index, skill in enumerate(skills):
            by_family.setdefault(skill.family, []).append(index)
        pending = []
        for family, indices in by_family.items():
            client = self._client(EvaluateAffordance, f"/affordance/{family}")
            goal = EvaluateAffordance.Goal(skills=[skill_to_msg(skills[i]) for i in indices])
            pending.append((family, indices, client.send_goal_async(goal)))
        values = [0.0] * len(skills)
        for family, indices, sent in pending:
            result = self._affordance_result(family, sent)
            if len(result.affordances) != len(indices):
                raise PlanAborted(
                    EndReason.ERROR,
                    f"/affordance/{family} returned {len(result.affordances)} values for {len(indices)} skills",
                )
            for index, value in zip(indices, result.affordances, strict=True):
                values[index] = float(value)
        return values

    def _affordance_result(self, family: str, sent) -> EvaluateAffordance.Result:  # noqa: ANN001 (rclpy Future)
        name = f"/affordance/{family}"
        try:
            handle = wait_for(sent, self._affordance_timeout_s, f"{name} goal")
            if not handle.accepted:
                raise PlanAborted(EndReason.ERROR, f"{name} rejected the affordance goal; see that server's log")
            response = wait_for(handle.get_result_async(), self._affordance_timeout_s, f"{name} result")
        except WaitTimeout as timeout:
            raise PlanAborted(EndReason.ERROR, str(timeout)) from timeout
        if not response.result.success:
            raise PlanAborted(EndReason.ERROR, f"{name} failed: {response.result.message}")
        return response.result

    # ----- execution -----------------------------------------------------------------------------------
    def execute(self, skill: Skill) -> SkillOutcome:
        name = f"/executors/{skill.executor}/execute_skill"
        client = self._client(ExecuteSkill, name)
        try:
            handle = wait_for(client.send_goal_async(ExecuteSkill.Goal(skill=skill_to_msg(skill))),
                              self._server_wait_s, f"{name} goal")
        except WaitTimeout as timeout:
            raise PlanAborted(EndReason.ERROR, str(timeout)) from timeout
        if not handle.accepted:
            return SkillOutcome(False, f"{name} rejected {skill.text!r} (see the executor's log for why)")
        try:
            response = wait_for(handle.get_result_async(), self._executor_timeout_s, f"{name} result",
                                interrupted=lambda: self._canceled() is not None)
        except WaitTimeout as timeout:
            self._cancel(handle, name)
            return SkillOutcome(False, str(timeout))
        if response is None:
            reason = self._canceled() or "canceled"
            self._cancel(handle, name)
            return SkillOutcome(False, reason)
        if response.status == GoalStatus.STATUS_SUCCEEDED and response.result.success:
            return SkillOutcome(True, response.result.message)
        return SkillOutcome(False, response.result.message or f"executor ended with status {response.status}")

    def _cancel(self, handle, name: str) -> None:  # noqa: ANN001 (rclpy ClientGoalHandle)
        try:
            wait_for(handle.cancel_goal_async(), self._server_wait_s, f"{name} cancel")
            wait_for(handle.get_result_async(), self._server_wait_s, f"{name} result after cancel")
        except WaitTimeout as timeout:
            self._node.get_logger().error(f"{timeout}; the skill may still be running")

    def _client(self, action_type: type, name: str) -> RaceFreeActionClient:
        client = self._clients.get(name)
        if client is None:
            client = RaceFreeActionClient(self._node, action_type, name, callback_group=self._group)
            self._clients[name] = client
        if not client.wait_for_server(timeout_sec=self._server_wait_s):
            raise PlanAborted(
                EndReason.ERROR,
                f"action server {name} not available after {self._server_wait_s:.0f} s: start it (llm-planner up, "
                "or ros2 launch llm_planner_ros sim.launch.py)",
            )
        return client

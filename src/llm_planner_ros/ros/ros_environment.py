"""The planning environment of a real ROS graph: affordance servers, executors and the perceived state.

Affordances come from one ``EvaluateAffordance`` server per skill family (``affordance/<family>`` in
the planner's namespace, or the action the skills file names for the family, ``affordance: {server:
...}``), all families asked at once; skills run on ``executors/<executor>/execute_skill``; the state is
whatever the ``StateProvider`` assembles from ``scene/objects`` and the robot-state topic. Every
call has a timeout, and a server that is missing or fails ends the plan with a reason
(``PlanAborted``), never a hang. A server that leaves the graph while it is being waited on, or that
this plan used before and is gone, is given up within ``server_lost_s``.

When an executor gives no answer (it timed out, or left the graph mid-skill), the skill's outcome is
read back from the world state (``llm_planner_ros.domain.outcome``), so the plan goes on from what the robot
really did: a skill the world shows done succeeded. A lost executor also ends the plan (ERROR): the
skills it runs cannot run until it is restarted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence

from action_msgs.msg import GoalStatus
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.action import EvaluateAffordance, ExecuteSkill
from llm_planner_ros.domain.outcome import ReadBack, read_back, shows_effects
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.environment import SkillOutcome
from llm_planner_ros.planning.plan_loop import EndReason, PlanAborted
from llm_planner_ros.ros.action_client import RaceFreeActionClient
from llm_planner_ros.ros.futures import Liveness, ServerLost, WaitTimeout, wait_for
from llm_planner_ros.ros.messages import skill_to_msg, time_msg
from llm_planner_ros.ros.state_provider import StateProvider
from llm_planner_ros.ros.topics import EXECUTOR_CLOSING, affordance_action, executor_action, full_name

_START = "(llm-planner up, or ros2 launch llm_planner_ros sim.launch.py)"
# How often the read-back looks for a world state newer than the executor's loss.
_STATE_POLL_S = 0.05


class ActionClients:
    """The action clients of one node, made once per name and kept for the node's life.

    A client made per goal would leave its DDS endpoints behind: every process of the graph keeps
    discovery data for each of them, so every node's memory would grow with every goal.
    """

    def __init__(self, node: Node, callback_group: CallbackGroup) -> None:
        self._node = node
        self._group = callback_group
        self._clients: dict[str, RaceFreeActionClient] = {}
        self._lock = threading.Lock()

    def get(self, action_type: type, name: str) -> RaceFreeActionClient:
        with self._lock:
            client = self._clients.get(name)
            if client is None:
                client = RaceFreeActionClient(self._node, action_type, name, callback_group=self._group)
                self._clients[name] = client
            return client


class RosEnvironment:
    """A ``PlanningEnvironment`` whose skills run on the robot (or the simulator) through ROS.

    ``canceled`` is polled while a skill runs: when it returns a reason, the executor goal is
    canceled and ``execute`` returns a failed outcome carrying that reason. ``server_wait_s`` is how
    long a server may take to appear, ``server_lost_s`` how long one that left the graph may take to
    answer or come back, and how long the read-back waits for the world to show a skill done.
    ``effect_wait_s``: how long a skill the executor reported done waits for the state to show it. A
    perceived scene lags the robot (the object put down is seen only in a later camera frame); the next
    decision, and the final state a goal reports, must not be made on the scene from before the skill.
    ``affordance_servers`` maps the families a user's own server scores to its action name.
    """

    def __init__(
        self,
        node: Node,
        state: StateProvider,
        clients: ActionClients,
        canceled: Callable[[], str | None],
        affordance_timeout_s: float,
        executor_timeout_s: float,
        server_wait_s: float,
        server_lost_s: float,
        effect_wait_s: float,
        affordance_servers: Mapping[str, str] | None = None,
    ) -> None:
        self._node = node
        self._affordance_servers = dict(affordance_servers or {})
        self._state = state
        self._clients = clients
        self._used: set[str] = set()
        self._canceled = canceled
        self._affordance_timeout_s = affordance_timeout_s
        self._executor_timeout_s = executor_timeout_s
        self._server_wait_s = server_wait_s
        self._server_lost_s = server_lost_s
        self._effect_wait_s = effect_wait_s

    # ----- state ---------------------------------------------------------------------------------------
    def snapshot(self) -> World:
        world = self._state.wait(self._server_wait_s)
        if world is None:
            raise PlanAborted(
                EndReason.ERROR, f"no world state after {self._server_wait_s:.0f} s from {self._state.describe()}"
            )
        if (problem := self._state.problem()) is not None:
            raise PlanAborted(EndReason.ERROR, problem)
        return world.copy()

    def admissible_skills(self) -> Sequence[Skill]:
        return self.snapshot().admissible_skills()

    def observed_objects(self) -> list[str]:
        return sorted({obj.label for obj in self.snapshot().objects})

    def describe_state(self) -> str:
        return self.snapshot().summary()

    # ----- affordances -----------------------------------------------------------------------------------
    def _affordance_name(self, family: str) -> str:
        return full_name(self._node, self._affordance_servers.get(family) or affordance_action(family))

    def affordances(self, skills: Sequence[Skill]) -> list[float]:
        by_family: dict[str, list[int]] = {}
        for index, skill in enumerate(skills):
            by_family.setdefault(skill.family, []).append(index)
        # The servers read the state topics too, possibly a message behind this node: they answer from
        # the state planned on or a newer one.
        state_stamp = time_msg(self._state.stamp())
        pending = []
        for family, indices in by_family.items():
            client = self._client(EvaluateAffordance, self._affordance_name(family), self._affordance_node(family))
            goal = EvaluateAffordance.Goal(skills=[skill_to_msg(skills[i]) for i in indices], state_stamp=state_stamp)
            pending.append((family, indices, client, client.send_goal_async(goal)))
        values = [0.0] * len(skills)
        for family, indices, client, sent in pending:
            result = self._affordance_result(family, client, sent)
            if len(result.affordances) != len(indices):
                raise PlanAborted(
                    EndReason.ERROR,
                    f"{self._affordance_name(family)} returned {len(result.affordances)} values "
                    f"for {len(indices)} skills",
                )
            for index, value in zip(indices, result.affordances, strict=True):
                values[index] = float(value)
        return values

    def _affordance_node(self, family: str) -> str:
        if family in self._affordance_servers:
            return f"the {family} family's own affordance server (the skills file's families.{family}.affordance)"
        return "affordance_server"

    def _affordance_result(
        self,
        family: str,
        client: RaceFreeActionClient,
        sent,
    ) -> EvaluateAffordance.Result:
        name = self._affordance_name(family)
        liveness = self._liveness(client, name, self._affordance_node(family))
        try:
            handle = wait_for(sent, self._affordance_timeout_s, f"{name} goal", liveness=liveness)
            if not handle.accepted:
                raise PlanAborted(EndReason.ERROR, f"{name} rejected the affordance goal; see that server's log")
            response = wait_for(
                handle.get_result_async(), self._affordance_timeout_s, f"{name} result", liveness=liveness
            )
        except WaitTimeout as timeout:  # ServerLost included
            raise PlanAborted(EndReason.ERROR, str(timeout)) from timeout
        if response.status == GoalStatus.STATUS_UNKNOWN:
            # rclpy answers a result request for a goal it no longer keeps with an empty result.
            raise PlanAborted(
                EndReason.ERROR,
                f"{name} had dropped the goal's result before the planner asked for it: raise that "
                "server's result_timeout_s (config/affordance_server.yaml) on a loaded machine",
            )
        if not response.result.success:
            raise PlanAborted(EndReason.ERROR, f"{name} failed: {response.result.message}")
        return response.result

    # ----- execution -----------------------------------------------------------------------------------
    def execute(self, skill: Skill) -> SkillOutcome:
        name = full_name(self._node, executor_action(skill.executor))
        client = self._client(ExecuteSkill, name, f"{skill.executor}_executor")
        before = self.snapshot()
        liveness = self._liveness(client, name, f"{skill.executor}_executor")
        try:
            handle = wait_for(
                client.send_goal_async(ExecuteSkill.Goal(skill=skill_to_msg(skill))),
                self._server_wait_s,
                f"{name} goal",
                liveness=liveness,
            )
        except ServerLost as lost:
            raise self._executor_lost(before, skill, lost) from lost
        except WaitTimeout as timeout:
            raise PlanAborted(EndReason.ERROR, str(timeout)) from timeout
        if not handle.accepted:
            return SkillOutcome(False, f"{name} rejected {skill.text!r} (see the executor's log for why)")
        try:
            response = wait_for(
                handle.get_result_async(),
                self._executor_timeout_s,
                f"{name} result",
                interrupted=lambda: self._canceled() is not None,
                liveness=liveness,
            )
        except ServerLost as lost:
            raise self._executor_lost(before, skill, lost) from lost
        except WaitTimeout as timeout:
            self._cancel(handle, name)
            return self._read_back(before, skill, str(timeout))
        if response is None:
            reason = self._canceled() or "canceled"
            self._cancel(handle, name)
            return SkillOutcome(False, reason)
        if response.status == GoalStatus.STATUS_SUCCEEDED and response.result.success:
            self._await_effects(before, skill)
            return SkillOutcome(True, response.result.message)
        if response.result.message.startswith(EXECUTOR_CLOSING):
            # The executor stopped the skill on its way down: the world says what the skill did.
            outcome = self._read_back(before, skill, f"{name} is shutting down")
            reason = response.result.message.removeprefix(EXECUTOR_CLOSING)
            raise PlanAborted(
                EndReason.ERROR,
                f"{name} is shutting down ({reason}): restart {skill.executor}_executor {_START}; no "
                f"{skill.executor} skill can run until then",
                outcome,
            )
        return SkillOutcome(False, response.result.message or f"executor ended with status {response.status}")

    def _executor_lost(self, before: World, skill: Skill, lost: ServerLost) -> PlanAborted:
        """How the plan ends when the executor of ``skill`` left the graph: ERROR, the skill's outcome read back."""
        outcome = self._read_back(before, skill, f"executor of {skill.text!r} lost")
        return PlanAborted(EndReason.ERROR, f"{lost}; no {skill.executor} skill can run until then", outcome)

    def _read_back(self, before: World, skill: Skill, why: str) -> SkillOutcome:
        """The skill's outcome as the world state shows it, when its executor could not say (``why``).

        Only a state newer than this call counts; the wait ends as soon as one shows the skill done, or
        after ``server_lost_s`` (a robot still finishing the skill gets that long to show it).
        """
        stale = self._state.current()
        deadline = time.monotonic() + self._server_lost_s
        verdict: ReadBack | None = None
        while verdict is not ReadBack.APPLIED and time.monotonic() < deadline:
            time.sleep(_STATE_POLL_S)
            world = self._state.current()
            if world is not None and world is not stale:
                verdict = read_back(before, world, skill)
        if verdict is ReadBack.APPLIED:
            return SkillOutcome(True, f"{why}; the world shows {skill.text!r} done")
        if verdict is ReadBack.NOT_APPLIED:
            return SkillOutcome(False, f"{why}; the world is unchanged: {skill.text!r} did not take effect")
        if verdict is ReadBack.UNKNOWN:
            return SkillOutcome(False, f"{why}; the world shows {skill.text!r} neither done nor undone")
        return SkillOutcome(
            False,
            f"{why}; no new world state from {self._state.describe()} within "
            f"{self._server_lost_s:.1f} s, so whether {skill.text!r} took effect is unknown",
        )

    def _await_effects(self, before: World, skill: Skill) -> None:
        """Wait up to ``effect_wait_s`` for a world state that shows ``skill``'s effects; on time-out log
        what is missing and go on (perception may never report it: a mislabelled object)."""
        deadline = time.monotonic() + self._effect_wait_s
        while True:
            world = self._state.current()
            if world is not None and shows_effects(before, world, skill):
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(_STATE_POLL_S)
        self._node.get_logger().warning(
            f"{skill.text!r} reported done, but {self._state.describe()} does not show it after "
            f"{self._effect_wait_s:.1f} s; planning on from what it shows"
        )

    def _cancel(self, handle, name: str) -> None:
        try:
            wait_for(handle.cancel_goal_async(), self._server_wait_s, f"{name} cancel")
            wait_for(handle.get_result_async(), self._server_wait_s, f"{name} result after cancel")
        except WaitTimeout as timeout:
            self._node.get_logger().error(f"{timeout}; the skill may still be running")

    def _liveness(self, client: RaceFreeActionClient, name: str, node: str) -> Liveness:
        return Liveness(name, client.server_is_ready, self._server_lost_s, f"restart {node} {_START}")

    def _client(self, action_type: type, name: str, node: str = "") -> RaceFreeActionClient:
        """The action client of ``name`` once its server is there: a server this plan has not used yet
        gets ``server_wait_s`` to appear, one it used before (so it left) ``server_lost_s`` to come back."""
        wait_s = self._server_lost_s if name in self._used else self._server_wait_s
        self._used.add(name)
        client = self._clients.get(action_type, name)
        if not client.wait_for_server(timeout_sec=wait_s):
            raise PlanAborted(
                EndReason.ERROR,
                f"action server {name} not available after {wait_s:.1f} s: start {node or 'it'} {_START}",
            )
        return client

"""SayCanPay's Can and Pay models over ROS: the planner's view of ``saycanpay_scorer`` nodes.

``ServiceScorer`` offers what the SayCanPay planner asks of a learned model
(``probabilities(goal, initial_state, history, actions)``, as ``planning.saycanpay.models.Scorer``) and
answers it with one ``ScorePlanActions`` request to a service (``saycanpay/can``, ``saycanpay/pay``):
all actions of a call in one request, rated in one batch by the server. A service that does not
appear within ``server_wait_s``, that answered before and has been gone for ``server_lost_s`` (also
while a request is pending), that does not answer within ``timeout_s``, answers ``success`` false,
serves the other kind, or returns another number of values than actions raises
``ScorerServiceError`` with the reason and the fix, so the plan ends with ``error``, never a hang.
"""

from __future__ import annotations

from collections.abc import Sequence

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.srv import ScorePlanActions
from llm_planner_ros.ros.futures import Liveness, WaitTimeout, wait_for
from llm_planner_ros.ros.topics import full_name


class ScorerServiceError(RuntimeError):
    """A Can/Pay service is missing, gone, too slow, or answered with an error; the message says which
    and the fix."""


class ServiceScorer:
    """The ``kind`` (can | pay) model served at ``service`` (relative names resolve in ``node``'s
    namespace); safe from several threads (each call is its own request)."""

    def __init__(
        self,
        node: Node,
        callback_group: CallbackGroup,
        kind: str,
        service: str,
        timeout_s: float,
        server_wait_s: float,
        server_lost_s: float,
    ) -> None:
        self.kind = kind
        self.name = full_name(node, service)
        self._client = node.create_client(ScorePlanActions, self.name, callback_group=callback_group)
        self._timeout_s = timeout_s
        self._server_wait_s = server_wait_s
        self._server_lost_s = server_lost_s
        self._answered = False  # once it answered, a gap is a loss (server_lost_s), not a slow start
        self._fix = (
            f"start a {kind} scorer there (ros2 run llm_planner_ros saycanpay_scorer --ros-args -p kind:={kind} "
            f"-r __node:=saycanpay_{kind}), or set the saycanpay {kind}_service option to '' to load {kind}_model "
            "in the planner"
        )

    def probabilities(
        self, goal: str, initial_state: str, history: Sequence[str], actions: Sequence[str]
    ) -> list[float]:
        """One value in [0, 1] per action, in the order of ``actions``; ScorerServiceError when the
        service cannot give them."""
        if not actions:
            return []
        appear_s = self._server_lost_s if self._answered else self._server_wait_s
        if not self._client.wait_for_service(timeout_sec=appear_s):
            state = "is gone" if self._answered else "is not available"
            raise ScorerServiceError(f"{self.name} {state} after {appear_s:.1f} s: {self._fix}")
        request = ScorePlanActions.Request(
            goal=goal, initial_state=initial_state, history=list(history), actions=list(actions)
        )
        pending = self._client.call_async(request)
        liveness = Liveness(self.name, self._client.service_is_ready, self._server_lost_s, self._fix)
        try:
            response = wait_for(pending, self._timeout_s, self.name, liveness=liveness)
        except WaitTimeout as timeout:
            self._client.remove_pending_request(pending)  # an answer arriving after this must not be kept
            raise ScorerServiceError(str(timeout)) from timeout
        self._answered = True
        if not response.success:
            raise ScorerServiceError(f"{self.name} failed: {response.message}")
        if response.kind != self.kind:
            raise ScorerServiceError(
                f"{self.name} serves a {response.kind or 'unnamed'} model, not a {self.kind} model: point the "
                f"saycanpay {self.kind}_service option at a {self.kind} scorer (saycanpay/{self.kind})"
            )
        if len(response.probabilities) != len(actions):
            raise ScorerServiceError(
                f"{self.name} returned {len(response.probabilities)} values for {len(actions)} actions"
            )
        return [float(p) for p in response.probabilities]

"""saycanpay_scorer: one learned SayCanPay model (Can or Pay) served as a ``ScorePlanActions`` service.

Serves ``saycanpay/<kind>`` (llm_planner_interfaces/srv/ScorePlanActions) with the ``kind`` (can | pay)
model of ``domain`` (babyai | kitchen) in ``weights_file`` (empty: the shipped
``data/saycanpay/<domain>_<kind>.safetensors``), read with the project's sentence encoder. Can rates
p(an action's preconditions hold after the partial plan), Pay the action's discounted payoff (Hazra et
al., "SayCanPay", arXiv 2308.12682). The model is the ROS-free ``planning.saycanpay.models.Scorer``;
this node only translates messages. Start one per kind (node names ``saycanpay_can`` and
``saycanpay_pay`` in ``config/saycanpay_scorer.yaml``); planner calls them for
``planner: saycanpay`` when the planner options ``can_service`` / ``pay_service`` name them
(docs/saycanpay.md, "Over ROS").

At start, a weight file that is missing, holds the other kind (a Pay file given as Can) or domain, was
trained on other sentence vectors or does not fit the architecture stops the node: one fatal line
naming the file and the fix. Outcomes of a request: ``success`` true with one probability per action,
in request order, all rated in one batch; or ``success`` false with ``message``: no action, more than
``max_actions``, an empty goal or action, or a model failure. No request crashes the node.
"""

from __future__ import annotations

import time
from pathlib import Path

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.srv import ScorePlanActions
from llm_planner_ros.llm.base import LLMError
from llm_planner_ros.paths import repo_path
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters
from llm_planner_ros.ros.topics import full_name

# planning.saycanpay.models' KINDS and DOMAINS (a test checks they agree), named here so that a bad value
# is refused at once: the models module imports torch, which takes seconds (a minute on a loaded machine).
KINDS = ("can", "pay")
DOMAINS = ("babyai", "kitchen")
PARAMETERS = {
    "kind": Parameter("can", "which model: can (feasibility) or pay (payoff); serves saycanpay/<kind>", choices=KINDS),
    "domain": Parameter("babyai", "the world the model was trained on: babyai or kitchen", choices=DOMAINS),
    "weights_file": Parameter("", "the model's safetensors file (empty: data/saycanpay/<domain>_<kind>.safetensors)"),
    "max_actions": Parameter(256, "most actions in one request (one batch); more are refused", minimum=1),
}


def service_name(kind: str) -> str:
    """The ScorePlanActions service of one kind, relative to the node's namespace."""
    return f"saycanpay/{kind}"


class SayCanPayScorerNode(Node):
    """Thin adapter: ScorePlanActions requests in, ``Scorer.probabilities`` of one batch, responses out."""

    def __init__(self) -> None:
        super().__init__("saycanpay_scorer")
        p = declare_parameters(self, PARAMETERS)
        from llm_planner_ros.llm.factory import load_embedder
        from llm_planner_ros.planning.saycanpay.models import ScorerLoadError, load_scorer
        from llm_planner_ros.planning.saycanpay.planner import DEFAULT_MODELS

        self._kind: str = p["kind"]
        self._max_actions: int = p["max_actions"]
        try:
            path = repo_path(p["weights_file"] or DEFAULT_MODELS[p["domain"], self._kind])
            self._scorer = load_scorer(path, self._kind, load_embedder({}), p["domain"])
        # OSError: a packaged default not installed; LLMError: the sentence encoder did not load
        except (ScorerLoadError, OSError, LLMError) as error:
            raise StartupError(f"kind {self._kind}, domain {p['domain']}, parameter weights_file: {error}") from error
        self._model = Path(path).name
        # One request at a time: the sentence cache the model fills is not safe from several threads,
        # and a request is one batched forward, so queued requests lose nothing.
        self._service = self.create_service(
            ScorePlanActions,
            service_name(self._kind),
            self._score,
            callback_group=MutuallyExclusiveCallbackGroup(),
        )
        self.get_logger().info(
            f"serving {full_name(self, service_name(self._kind))} with the {p['domain']} {self._kind} model {path}"
        )

    def _score(
        self, request: ScorePlanActions.Request, response: ScorePlanActions.Response
    ) -> ScorePlanActions.Response:
        response.kind = self._kind
        response.model = self._model
        refusal = self._refusal(request)
        if refusal is not None:
            response.message = refusal
            self.get_logger().warning(f"request refused: {refusal}")
            return response
        started = time.perf_counter()
        try:
            values = self._scorer.probabilities(
                request.goal, request.initial_state, list(request.history), list(request.actions)
            )
        except Exception as error:
            response.message = f"the {self._kind} model failed: {type(error).__name__}: {error}"
            self.get_logger().error(response.message)
            return response
        response.probabilities = [float(v) for v in values]
        response.success = True
        self.get_logger().debug(
            f"rated {len(values)} action(s) after {len(request.history)} step(s) in "
            f"{1000 * (time.perf_counter() - started):.1f} ms"
        )
        return response

    def _refusal(self, request: ScorePlanActions.Request) -> str | None:
        """Why a request cannot be rated, or None."""
        if not request.actions:
            return "no actions to rate: send at least one in actions"
        if len(request.actions) > self._max_actions:
            return (
                f"{len(request.actions)} actions is over the limit of {self._max_actions} "
                "(parameter max_actions): split the request"
            )
        if not request.goal.strip():
            return "empty goal: send the task (the instruction) in goal"
        empty = [i for i, action in enumerate(request.actions) if not action.strip()]
        if empty:
            return f"actions {empty} are empty: every action must be a non-empty text"
        return None


def main(args: list[str] | None = None) -> None:
    raise SystemExit(run_node(SayCanPayScorerNode, threads=2, args=args))

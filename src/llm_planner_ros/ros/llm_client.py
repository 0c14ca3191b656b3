"""``LanguageModel`` over ROS: the planner's view of a shared ``llm_service``.

``score`` calls ``llm/score`` (ScoreCompletions) and ``generate`` calls ``llm/generate``
(GenerateText), in the planner's namespace or in ``llm_namespace`` (one model service shared by
several robots: ``/`` for the root namespace's ``/llm/score``). A missing service, a timeout or
``success=false`` raises the LLM layer's errors with the service's reason, so the plan ends with
that reason instead of hanging. A service that answered before and is gone (llm_service
stopped or restarted) is given up within ``server_lost_s``, both between calls and while a call is
pending, not after ``server_wait_s`` or the call's timeout.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping, Sequence

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner_interfaces.srv import GenerateText, ScoreCompletions
from llm_planner_ros.llm.base import (
    UNKNOWN_ADAPTER,
    BackendUnavailableError,
    GenerationResult,
    LanguageModel,
    LLMError,
    MergedAdapter,
    RankedScores,
    RankRequest,
    ScoreResult,
    check_rank_request,
)
from llm_planner_ros.ros.futures import Liveness, WaitTimeout, wait_for
from llm_planner_ros.ros.topics import LLM_GENERATE_SERVICE, LLM_MODEL_TOPIC, LLM_SCORE_SERVICE, STATE_QOS, full_name

_FIX = "start llm_service (llm-planner up) or set the planner's llm_mode to in_process"


def llm_service_name(service: str, llm_namespace: str) -> str:
    """``service`` in ``llm_namespace``: empty keeps it relative (the caller's namespace), ``/`` is the root
    namespace, ``/shared`` (or a relative ``shared``) another one."""
    return f"{llm_namespace.rstrip('/')}/{service}" if llm_namespace else service


class ServiceLanguageModel(LanguageModel):
    """Calls the LLM service node; safe from several threads (each call is its own request)."""

    def __init__(
        self,
        node: Node,
        callback_group: CallbackGroup,
        timeout_s: float,
        server_wait_s: float,
        server_lost_s: float,
        llm_namespace: str = "",
    ) -> None:
        self._score_name = full_name(node, llm_service_name(LLM_SCORE_SERVICE, llm_namespace))
        self._generate_name = full_name(node, llm_service_name(LLM_GENERATE_SERVICE, llm_namespace))
        self._score = node.create_client(ScoreCompletions, self._score_name, callback_group=callback_group)
        self._generate = node.create_client(GenerateText, self._generate_name, callback_group=callback_group)
        self._timeout_s = timeout_s
        self._server_wait_s = server_wait_s
        self._server_lost_s = server_lost_s
        self._answered: set[str] = set()  # services that answered once: a gap in them is a loss, not a slow start
        self._model_name = "llm_service"
        self._adapter = UNKNOWN_ADAPTER
        self._described = threading.Event()
        self._model_topic = full_name(node, llm_service_name(LLM_MODEL_TOPIC, llm_namespace))
        node.create_subscription(String, self._model_topic, self._on_model, STATE_QOS, callback_group=callback_group)

    @property
    def name(self) -> str:
        return self._model_name

    @property
    def adapter(self) -> MergedAdapter:
        """The adapter of the service's model, as the service reports it once its model loaded (llm/model):
        a service that is up but still loading is waited for (up to the request timeout, as a request would
        wait); unknown where no service is up yet (the request says why) or its load failed."""
        if not self._described.is_set() and self._score.service_is_ready():
            self._described.wait(self._timeout_s)
        return self._adapter

    def _on_model(self, msg: String) -> None:
        try:
            described = json.loads(msg.data)
            self._adapter = MergedAdapter.from_json(described["adapter"])
            self._model_name = str(described["name"]) or self._model_name
        except (ValueError, KeyError, TypeError):
            return  # not our service's record: the adapter stays unknown
        self._described.set()

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        request = ScoreCompletions.Request(prompt=prompt, completions=list(completions), per_token=per_token)
        response = self._call(self._score, self._score_name, request)
        counts = tuple(int(c) for c in response.token_counts)
        per_token_terms = None
        if per_token:
            flat, terms, start = list(response.token_log_probs), [], 0
            for count in counts:
                terms.append(tuple(flat[start : start + count]))
                start += count
            per_token_terms = tuple(terms)
        return ScoreResult(tuple(float(v) for v in response.log_probs), counts, per_token_terms)

    def score_ranked(self, requests: Sequence[RankRequest]) -> list[RankedScores]:
        """One ranked ScoreCompletions request each (``weights``, ``keep``): the service scores only
        what can be among the ``keep`` best, and batches requests of several planners."""
        answers = []
        for ranking in requests:
            check_rank_request(ranking)
            request = ScoreCompletions.Request(
                prompt=ranking.prompt,
                completions=list(ranking.completions),
                per_token=True,
                weights=[float(w) for w in ranking.weights],
                keep=ranking.keep,
            )
            response = self._call(self._score, self._score_name, request)
            flat, terms, start = list(response.token_log_probs), [], 0
            for value, count in zip(response.log_probs, response.token_counts, strict=True):
                terms.append(None if math.isnan(value) else tuple(flat[start : start + count]))
                start += count
            answers.append(
                RankedScores(
                    tuple(None if math.isnan(v) else float(v) for v in response.log_probs),
                    tuple(terms),
                    int(response.computed_tokens),
                )
            )
        return answers

    def generate(
        self,
        prompt: str,
        n: int = 1,
        max_tokens: int = 64,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
        logit_bias: Mapping[str, float] | None = None,
        grammar: str | None = None,
    ) -> GenerationResult:
        bias = dict(logit_bias or {})
        request = GenerateText.Request(
            prompt=prompt,
            num_samples=n,
            max_tokens=max_tokens,
            temperature=float(temperature),
            top_p=float(top_p),
            stop=list(stop),
            logit_bias_words=list(bias),
            logit_bias_values=[float(v) for v in bias.values()],
            grammar=grammar or "",
        )
        response = self._call(self._generate, self._generate_name, request)
        means = tuple(float(v) if math.isfinite(v) else math.nan for v in response.mean_log_probs)
        return GenerationResult(tuple(response.texts), means)

    def _call(self, client, name: str, request):
        appear_s = self._server_lost_s if name in self._answered else self._server_wait_s
        if not client.wait_for_service(timeout_sec=appear_s):
            gone = "is gone" if name in self._answered else "is not available"
            raise BackendUnavailableError(f"{name} {gone} after {appear_s:.1f} s: {_FIX}")
        pending = client.call_async(request)
        try:
            response = wait_for(
                pending,
                self._timeout_s,
                name,
                liveness=Liveness(name, client.service_is_ready, self._server_lost_s, _FIX),
            )
        except WaitTimeout as timeout:
            client.remove_pending_request(pending)  # an answer arriving after this must not be kept forever
            raise BackendUnavailableError(str(timeout)) from timeout
        self._answered.add(name)
        if not response.success:
            raise LLMError(f"{name} failed: {response.message}")
        self._model_name = response.model or self._model_name
        return response

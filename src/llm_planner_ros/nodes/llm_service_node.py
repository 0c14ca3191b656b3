"""``llm_service``: one language model shared over ROS by every planner (and every robot).

Serves ``/llm/score`` (ScoreCompletions) and ``/llm/generate`` (GenerateText) with the backend its
parameters describe: one parameter per field of ``llm_planner_ros.llm.factory.LLMConfig`` (backend,
model, device, base_url, ...; defaults and help in ``config/llm_service.yaml``), plus
``default_max_tokens``, ``request_queue_depth`` and one parameter per size limit of
``llm_planner_ros.llm.limits.RequestLimits`` (``max_completions``, ``max_samples``, ...). The node
only translates messages; the model work is the ROS-free ``LanguageModel``.

Lifecycle: the services exist from the start; the model loads on a background thread (the first
start of the embedded model de-quantizes it, ~20 s), then warms up (``warm_up``: one SayCan step of
the configured prompt in the default scene, so the first goal finds the kernels initialised and the
prompt's preamble and scene in the cache), and only then logs "ready", publishes the model's name and
adapter on the latched ``llm/model`` (JSON; planners choose their prompts' examples by the adapter) and
true on the latched ``llm/ready`` (true also after a failed load: requests are then answered at once,
with the load error); requests arriving meanwhile wait for it. Requests are served in arrival order
by one worker (``llm.request_batcher``): score requests that waited together (several planners, one
robot each) run as one batch, at most ``max_batch`` (one set of forwards with the ``hf`` backend);
generation runs alone. Callbacks wait on ``SERVICE_THREADS`` executor threads; further requests
wait in the services' request queues (``request_queue_depth`` each, reliable), so concurrent
clients are queued, never dropped, up to that depth.

A ScoreCompletions request with ``weights`` is a ranking (``llm.ranking``): only the completions
that can be among the ``keep`` best by p x weight are scored, the others come back NaN.

Outcomes of a request: ``success`` true with the results; or ``success`` false with ``message``
saying why: a malformed request (empty prompt or candidate list, a prompt beyond the context window,
``logit_bias_words`` and ``logit_bias_values`` of different lengths), a request over a size limit (the
message names the value asked, the limit and its parameter), a backend failure (server down or slow
after its retries, no prompt log-probs), or a model that failed to load (the message has the loading
error and its fix). No request crashes the node: reading the request, calling the model and filling
the response all run inside one guard.

GenerateText fields left at 0 mean: ``num_samples`` 1, ``max_tokens`` ``default_max_tokens``,
``top_p`` 1.0; ``temperature`` 0 is greedy; ``logit_bias_values[i]`` is the bias of
``logit_bias_words[i]``; an empty ``grammar`` means unconstrained generation, any other is the Lark
grammar every text must follow (a backend that cannot enforce one answers ``success`` false saying
so). Strings arrive as rclpy decodes them: invalid UTF-8 bytes become U+FFFD.
"""

from __future__ import annotations

import dataclasses
import json
import math
import threading
from collections.abc import Callable
from typing import TypeVar

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Bool, String

from llm_planner_interfaces.srv import GenerateText, ScoreCompletions
from llm_planner_ros.llm.base import UNKNOWN_ADAPTER, InvalidRequestError, LanguageModel, LLMError, RankRequest
from llm_planner_ros.llm.factory import LLMConfig, load_language_model
from llm_planner_ros.llm.hf_loading import limit_openmp_spinning
from llm_planner_ros.llm.limits import RequestLimits
from llm_planner_ros.llm.request_batcher import RequestBatcher, ScoreJob
from llm_planner_ros.planning.saycan.warm_up import warm_up
from llm_planner_ros.ros.node_startup import run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters, field_parameters
from llm_planner_ros.ros.topics import LLM_GENERATE_SERVICE, LLM_MODEL_TOPIC, LLM_READY_TOPIC, LLM_SCORE_SERVICE

# Executor threads: one per request waiting in a callback (a batch is at most max_batch of them) plus
# the parameter services; requests beyond them wait in the services' queues.
SERVICE_THREADS = 12

_POSITIVE = {"minimum": 1, "maximum": 1_000_000_000}
_PARAMETERS = {
    **field_parameters(LLMConfig),
    "default_max_tokens": Parameter(64, "max_tokens of a GenerateText request that leaves it at 0", **_POSITIVE),
    "request_queue_depth": Parameter(
        1000, "requests each service holds while one is served (reliable, keep last)", **_POSITIVE
    ),
    "max_batch": Parameter(
        8, "score requests (one per planner) served together in one batch", minimum=1, maximum=SERVICE_THREADS - 2
    ),
    "warm_up": Parameter(True, "score one SayCan step at load, before reporting ready (hf backend only)"),
    **{
        f.name: Parameter(f.default, f"largest request served: {f.metadata['help']}", **_POSITIVE)
        for f in dataclasses.fields(RequestLimits)
    },
}

ResponseT = TypeVar("ResponseT", ScoreCompletions.Response, GenerateText.Response)


class LLMServiceNode(Node):
    """Adapter from the two LLM services to one ``LanguageModel`` (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__("llm_service")
        declare_parameters(self, _PARAMETERS)
        self._model: LanguageModel | None = None
        self._load_error = ""
        self._loaded = threading.Event()
        self._batcher: RequestBatcher | None = None
        latched = QoSProfile(
            history=HistoryPolicy.KEEP_LAST,
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        self._ready = self.create_publisher(Bool, LLM_READY_TOPIC, latched)
        self._ready.publish(Bool(data=False))
        self._model_description = self.create_publisher(String, LLM_MODEL_TOPIC, latched)
        queue = QoSProfile(
            history=HistoryPolicy.KEEP_LAST,
            depth=int(self.get_parameter("request_queue_depth").value),
            reliability=ReliabilityPolicy.RELIABLE,
        )
        # Reentrant: callbacks only hand their request to the batcher, which serialises the model.
        waiting = ReentrantCallbackGroup()
        self.create_service(
            ScoreCompletions, LLM_SCORE_SERVICE, self._on_score, qos_profile=queue, callback_group=waiting
        )
        self.create_service(
            GenerateText, LLM_GENERATE_SERVICE, self._on_generate, qos_profile=queue, callback_group=waiting
        )
        threading.Thread(target=self._load, name="llm-load", daemon=True).start()

    def _load(self) -> None:
        config = {field.name: self.get_parameter(field.name).value for field in dataclasses.fields(LLMConfig)}
        logger = self.get_logger()
        try:
            model = load_language_model(config, report=logger.info)
            if config["backend"] == "hf" and self.get_parameter("warm_up").value:
                logger.info(f"warm-up: {warm_up(model)}")
            self._batcher = RequestBatcher(model, int(self.get_parameter("max_batch").value))
            self._model = model
            logger.info(f"ready: serving {LLM_SCORE_SERVICE} and {LLM_GENERATE_SERVICE} with {model.name}")
        except LLMError as error:
            self._load_error = f"the language model did not load: {error}"
            logger.error(self._load_error)
        except Exception as error:
            self._load_error = f"the language model did not load ({type(error).__name__}): {error}"
            logger.error(self._load_error)
        finally:
            self._loaded.set()
            # Said also after a failed load (no name, the adapter unknown): a planner waiting for it goes on.
            model_adapter = self._model.adapter if self._model is not None else UNKNOWN_ADAPTER
            described = {
                "name": self._model.name if self._model is not None else "",
                "adapter": model_adapter.to_json(),
            }
            self._model_description.publish(String(data=json.dumps(described)))
            # From now on requests are answered at once (with the load error, if it failed).
            self._ready.publish(Bool(data=True))

    def _on_score(
        self, request: ScoreCompletions.Request, response: ScoreCompletions.Response
    ) -> ScoreCompletions.Response:
        def answer(_model: LanguageModel) -> None:
            completions = list(request.completions)
            self._limits().check_score(request.prompt, completions)
            ranked = len(request.weights) > 0
            weights = list(request.weights) if ranked else [1.0] * len(completions)
            keep = max(1, request.keep) if ranked else len(completions)
            assert self._batcher is not None
            result = self._batcher.score(ScoreJob(RankRequest(request.prompt, completions, weights, keep), ranked))
            response.log_probs = [math.nan if value is None else value for value in result.log_probs]
            response.token_counts = [0 if terms is None else len(terms) for terms in result.token_log_probs]
            if request.per_token:
                response.token_log_probs = [value for terms in result.token_log_probs for value in terms or ()]
            response.computed_tokens = result.computed_tokens

        return self._serve(response, answer, alone=False)

    def _on_generate(self, request: GenerateText.Request, response: GenerateText.Response) -> GenerateText.Response:
        def answer(model: LanguageModel) -> None:
            num_samples = request.num_samples or 1
            max_tokens = request.max_tokens or int(self.get_parameter("default_max_tokens").value)
            stop = list(request.stop)
            self._limits().check_generate(request.prompt, num_samples, max_tokens, stop, request.logit_bias_words)
            bias = logit_bias(list(request.logit_bias_words), list(request.logit_bias_values))
            result = model.generate(
                request.prompt,
                n=num_samples,
                max_tokens=max_tokens,
                temperature=float(request.temperature),
                top_p=float(request.top_p) or 1.0,
                stop=stop,
                logit_bias=bias or None,
                grammar=request.grammar or None,
            )
            response.texts = list(result.texts)
            response.mean_log_probs = list(result.mean_log_probs)

        return self._serve(response, answer)

    def _limits(self) -> RequestLimits:
        # Read per request, so `ros2 param set` changes a limit without a restart.
        return RequestLimits(
            **{f.name: int(self.get_parameter(f.name).value) for f in dataclasses.fields(RequestLimits)}
        )

    def _serve(self, response: ResponseT, answer: Callable[[LanguageModel], None], alone: bool = True) -> ResponseT:
        """Run ``answer`` (which reads the request, calls the model and fills ``response``); set
        ``success``, ``message`` and ``model``. Nothing ``answer`` raises leaves this method.
        ``alone``: run it on the batcher's worker, by itself in arrival order (score requests call
        the batcher themselves, to be batched)."""
        self._loaded.wait()
        if self._model is None:
            response.success, response.message = False, self._load_error
            return response
        response.model = self._model.name
        model, batcher = self._model, self._batcher
        assert batcher is not None
        try:
            if alone:
                batcher.run(lambda: answer(model))
            else:
                answer(model)
        except LLMError as error:
            response.success, response.message = False, str(error)
            self.get_logger().warning(f"request refused: {error}")
            return response
        except Exception as error:
            response.success, response.message = False, f"internal error ({type(error).__name__}): {error}"
            self.get_logger().error(f"request failed: {response.message}")
            return response
        response.success, response.message = True, ""
        return response


def logit_bias(words: list[str], values: list[float]) -> dict[str, float]:
    """The word -> bias mapping of a GenerateText request (``values[i]`` belongs to ``words[i]``; a
    repeated word keeps its last value); InvalidRequestError when the lists differ in length."""
    if len(words) != len(values):
        raise InvalidRequestError(
            f"logit_bias_words has {len(words)} words but logit_bias_values has {len(values)} values: "
            "give one value per word, in the same order"
        )
    return {word: float(value) for word, value in zip(words, values, strict=True)}


def main(args: list[str] | None = None) -> None:
    limit_openmp_spinning()
    raise SystemExit(run_node(LLMServiceNode, threads=SERVICE_THREADS, args=args))


if __name__ == "__main__":
    main()

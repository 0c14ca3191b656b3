"""One model, many clients: requests served in arrival order, waiting score requests batched.

Why: several robots (one planner each) share one ``llm_service``. Served one at a time, each
robot's step waits for every other robot's whole step. A backend that can run several prompts in
the same forwards (``hf``: ``LanguageModel.score_ranked`` with several requests) answers all the
score requests that waited together at about the cost of one, so throughput grows with the robots.

How: callers (one thread per request, e.g. ROS service callbacks) submit jobs and block until their
answer. One worker thread takes the queue in arrival order (first come, first served, whichever
client sent it): a score job takes along the score jobs queued right behind it (at most
``max_batch``) into one ``score_ranked`` call; any other job (generation) runs alone. A batch that
fails is retried one request at a time, so one bad request gets its own error and the others their
answers. A lone plain score (no weights) goes to ``score``, exactly as without batching.

Outcomes of ``score``/``run``: the answer, or the exception the model raised for that request.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from llm_planner_ros.llm.base import LanguageModel, RankedScores, RankRequest

T = TypeVar("T")


@dataclass(frozen=True)
class ScoreJob:
    """A score request as the batcher serves it: ``ranked`` False means a plain score (every
    candidate, weights all 1), which is answered by ``score`` when it runs alone."""

    request: RankRequest
    ranked: bool


@dataclass
class _Job:
    work: ScoreJob | Callable[[], Any]
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None


class RequestBatcher:
    """Serialises calls to ``model`` from any number of threads, batching score requests (module docstring)."""

    def __init__(self, model: LanguageModel, max_batch: int = 8) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, got {max_batch}")
        self._model = model
        self._max_batch = max_batch
        self._queue: deque[_Job] = deque()
        self._ready = threading.Condition()
        self._closed = False
        self.batches: list[int] = []  # the size of every score batch served (for benchmarks and tests)
        self._worker = threading.Thread(target=self._serve, name="llm-batcher", daemon=True)
        self._worker.start()

    @property
    def pending(self) -> int:
        """Requests waiting for the worker (not counting the one it serves)."""
        with self._ready:
            return len(self._queue)

    def score(self, job: ScoreJob) -> RankedScores:
        return self._submit(job)

    def run(self, call: Callable[[], T]) -> T:
        """``call()`` on the worker, alone, in arrival order (e.g. a generation)."""
        return self._submit(call)

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def _submit(self, work: ScoreJob | Callable[[], Any]) -> Any:
        job = _Job(work)
        with self._ready:
            if self._closed:
                raise RuntimeError("the request batcher is closed")
            self._queue.append(job)
            self._ready.notify()
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def _serve(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._ready.wait()
                if self._closed:
                    return
                batch = [self._queue.popleft()]
                if isinstance(batch[0].work, ScoreJob):
                    while self._queue and isinstance(self._queue[0].work, ScoreJob) and len(batch) < self._max_batch:
                        batch.append(self._queue.popleft())
            if isinstance(batch[0].work, ScoreJob):
                self.batches.append(len(batch))
                self._score(batch)
            else:
                self._answer(batch[0], batch[0].work)

    def _score(self, batch: list[_Job]) -> None:
        jobs: list[ScoreJob] = [job.work for job in batch]  # type: ignore[misc]
        if len(batch) == 1 and not jobs[0].ranked:
            self._answer(batch[0], lambda: _plain(self._model, jobs[0].request))
            return
        try:
            answers = self._model.score_ranked([job.request for job in jobs])
        except Exception:
            if len(batch) == 1:
                self._answer(batch[0], lambda: self._model.score_ranked([jobs[0].request])[0])
                return
            for job, work in zip(batch, jobs, strict=True):
                self._answer(job, lambda work=work: self._model.score_ranked([work.request])[0])
            return
        for job, answer in zip(batch, answers, strict=True):
            job.result = answer
            job.done.set()

    @staticmethod
    def _answer(job: _Job, call: Callable[[], Any]) -> None:
        try:
            job.result = call()
        except BaseException as error:
            job.error = error
        job.done.set()


def _plain(model: LanguageModel, request: RankRequest) -> RankedScores:
    result = model.score(request.prompt, request.completions, per_token=True)
    assert result.token_log_probs is not None
    return RankedScores(result.log_probs, result.token_log_probs)
